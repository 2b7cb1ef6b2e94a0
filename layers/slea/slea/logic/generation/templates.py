"""Tool 2: few-shot templates for the generator.

Candidates come from the sparse search index (category + domain, difficulty window); the
remaining filters are re-checked here so a stale index entry can never leak through.
"""

from pydantic import ValidationError

from slea.constants import TEMPLATE_DIFFICULTY_WINDOW, TEMPLATE_SEARCH_LIMIT
from slea.contracts.templates import QuestionTemplate, SearchTemplatesInput
from slea.dal import templates
from slea.dal.templates import StoredTemplate
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer


def _is_candidate(item: StoredTemplate, request: SearchTemplatesInput, low: float, high: float) -> bool:
    wanted_domains = {interest.casefold() for interest in request.interests}
    return (
        item.category == request.category
        and item.domain.strip().casefold() in wanted_domains
        and item.avg_difficulty_score is not None
        and low <= item.avg_difficulty_score <= high
        and item.usage_count > 0
        and item.is_active
    )


def _parsed(item: StoredTemplate) -> QuestionTemplate | None:
    try:
        return QuestionTemplate.model_validate(item.as_stored)
    except ValidationError as error:
        logger.warning("skipping a malformed stored template", extra={"fields": [e["loc"] for e in error.errors()]})
        return None


def _ranking(template: QuestionTemplate) -> tuple[float, int, str]:
    # correct_rate desc, then usage_count desc; the id makes ties deterministic.
    return (-template.correct_rate, -template.usage_count, template.id)


@tracer.capture_method
def search_question_templates(request: SearchTemplatesInput) -> list[QuestionTemplate]:
    low = request.difficulty - TEMPLATE_DIFFICULTY_WINDOW
    high = request.difficulty + TEMPLATE_DIFFICULTY_WINDOW
    try:
        items = templates.query_candidates(request.category, request.interests, low, high)
    except DataAccessError as error:
        # Logged without the request's interests or any template content: neither belongs in the logs.
        logger.warning("template search failed, continuing without few-shot examples", extra={"reason": str(error)})
        metrics.add_metric(name="TemplateSearchFallback", unit="Count", value=1)
        metrics.add_metric(name="TemplatesReturned", unit="Count", value=0)
        return []
    found = [template for item in items if _is_candidate(item, request, low, high) and (template := _parsed(item))]
    found.sort(key=_ranking)
    metrics.add_metric(name="TemplatesReturned", unit="Count", value=min(len(found), TEMPLATE_SEARCH_LIMIT))
    return found[:TEMPLATE_SEARCH_LIMIT]
