"""The generation step of Mode 1: exactly `count` draft questions from one LLM call, using the
profile, the few-shot templates and the keyword record. If the model fails or returns too few
usable questions, the offline generator fills the gap, so a round always has its questions."""

from slea.contracts.errors import utc_now
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput, GenerateQuestionsOutput
from slea.llm.offline import OfflineProvider
from slea.llm.provider import LLMError, get_provider
from slea.observability import logger, metrics, tracer


def _usable(draft: DraftQuestion, seen: set[str]) -> bool:
    key = draft.stem.strip().casefold()
    if key in seen:
        return False
    if draft.type == "short_answer":
        return bool(draft.correct_keywords)
    return bool((draft.correct_answer or "").strip())


@tracer.capture_method
def generate_questions(request: GenerateQuestionsInput) -> GenerateQuestionsOutput:
    provider = get_provider()
    try:
        drafts = provider.generate_questions(request, request.count).questions
    except LLMError as error:
        logger.warning("question generation failed, using the offline generator", extra={"reason": str(error)})
        drafts = []
    seen = {stem.strip().casefold() for stem in request.avoid_stems}
    questions: list[DraftQuestion] = []
    for draft in drafts:
        if len(questions) < request.count and _usable(draft, seen):
            seen.add(draft.stem.strip().casefold())
            update: dict[str, object] = {"difficulty": request.difficulty}
            if provider.name != "offline":  # a model's draft has no concept record behind it, whatever it wrote
                update["source"] = None
            questions.append(draft.model_copy(update=update))
    missing = request.count - len(questions)
    if missing and provider.name != "offline":
        topped_up = request.model_copy(update={"avoid_stems": [*request.avoid_stems, *(q.stem for q in questions)]})
        questions += OfflineProvider().generate_questions(topped_up, missing).questions
        metrics.add_metric(name="GeneratedOffline", unit="Count", value=missing)
    metrics.add_metric(name="QuestionsGenerated", unit="Count", value=len(questions))
    return GenerateQuestionsOutput(
        questions=questions,
        round_id=f"{request.session_id}_{request.round}_{utc_now()}",
        provider=provider.name,
        template_stems=[template.stem for template in request.templates],
    )
