"""What the learner is shown after an answer, in one place: the explanation (from the cache read
with the answer's other records, else the provider, else the offline explainer), its parts and
its prose (feedback/), the feedback line, and the key-leak guard over all of it.

Nothing shown may give away the key of an item of the session the learner has not answered yet
(security/key_leaks.py): every text passes the guard, cached or fresh, from either provider.
MC/TF explanations are cached per (question, correct or not, prompt version, content digest, and
for a wrong choice the option picked): a popular question costs at most one explanation call per
option. The cache entry to write goes into the answer's recording transaction.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from slea.contracts.llm import Explanation, GradingItem
from slea.contracts.scoring import FeedbackDetails, ReferenceLink
from slea.feedback.details import (
    compose,
    details_of,
    offline_parts,
    padded,
    picked_concept,
    picked_option,
    quoted_from_page,
)
from slea.feedback.offline_explanation import explain_offline
from slea.feedback.references import cited, topic_terms
from slea.feedback.short_answer import study_terms
from slea.llm import budget
from slea.llm.model_settings import LLMSettings
from slea.llm.prompts import PROMPT_VERSION
from slea.llm.provider import LLMError
from slea.llm.provider_choice import get_provider
from slea.logic.answering.grades import Grade, language
from slea.logic.answering.grading import feedback_line
from slea.measurement.scale import NextRound
from slea.platform.observability import logger, metrics
from slea.security.key_leaks import KeyedItem, KeyGuard


@dataclass(frozen=True)
class Shown:
    """Everything the learner sees of a grading, checked."""

    explanation: str
    links: list[ReferenceLink]
    details: FeedbackDetails
    feedback: str | None
    reasoning: str | None
    # That what would answer another open item of the round is held back: said once beside the
    # feedback, never inside the explanation (the page shows it once per round).
    note: str | None = None


@dataclass(frozen=True)
class Explained:
    shown: Shown
    cache_entry: tuple[str, dict[str, Any]] | None  # (variant, explanation) to store, on a cache miss
    # What the learner may read once the round's other items are answered, kept with the attempt
    # (recording.py) so the history can show it then: the ids of the items open at answer time and
    # the unchecked output. None when no other item was open (nothing could be held back).
    withheld: dict[str, Any] | None = None


def unguarded_fields(shown: Shown) -> dict[str, Any]:
    """The learner-visible fields of a grading as stored with the attempt (AttemptView's names)."""
    return {
        "explanation": shown.explanation,
        "reference_links": [link.model_dump(mode="json") for link in shown.links],
        "details": shown.details.model_dump(mode="json"),
        "feedback": shown.feedback,
        "grader_reasoning": shown.reasoning,
        "held_back_note": shown.note,
    }


def cache_variant(item: GradingItem) -> str:
    """The explanation cache's sort key: the outcome, the prompt version and a digest of what the
    explanation is about, so a reused question id can never be served another question's text.
    A wrong choice adds the option picked (another wrong option needs another "why yours is
    wrong"): at most one entry per option per question per prompt version."""
    content = json.dumps([item.question_type, item.stem, item.choices, item.correct_answer], ensure_ascii=False)
    digest = hashlib.sha256(content.encode()).hexdigest()[:16]
    variant = f"{'correct' if item.is_correct else 'incorrect'}#{PROMPT_VERSION}#{digest}"
    if item.question_type == "multiple_choice" and not item.is_correct:
        picked = picked_option(item)
        variant += f"#picked-{'none' if picked is None else picked}"
    return variant


def _generated(item: GradingItem) -> Explanation:
    """The provider's explanation (the offline explainer's if the model fails or there is no time
    for it), citing only the item's sources: a link the model made up is dropped here."""
    provider = get_provider()
    if provider.name != "offline" and not budget.call_fits(LLMSettings.from_environment()):
        logger.warning("no time left for the model's explanation, using the offline explainer")
        return explain_offline(item)
    try:
        explanation = provider.explain(item)
    except LLMError as error:
        logger.warning("explanation failed, using the offline explainer", extra={"reason": str(error)})
        return explain_offline(item)
    return explanation.model_copy(
        update={
            "why_yours_is_wrong": None if item.is_correct else explanation.why_yours_is_wrong,
            "reference_links": cited(item.sources, explanation.reference_links),
        }
    )


def keyed(item: GradingItem) -> KeyedItem:
    return KeyedItem(
        question_type=item.question_type,
        stem=item.stem or "",
        choices=tuple(item.choices),
        correct_answer=item.correct_answer,
        correct_keywords=tuple(item.correct_keywords),
        reference_answer=item.reference_answer,
        explanation=item.reference_explanation,
    )


def _why_wrong(item: GradingItem, details: FeedbackDetails, guard: KeyGuard, named: str | None) -> str | None:
    """Why the pick is wrong as the learner may read it now: a model's reason that named the pick
    throughout (held back while the round is open) is replaced by the offline reason, whose first
    sentence says why the pick does not fit without naming it; a wrong pick is never left with
    nothing."""
    checked = guard.naming(details.why_yours_is_wrong, named)
    if checked or item.is_correct or item.question_type != "multiple_choice":
        return checked
    return guard.naming(offline_parts(item)[1], named)


def _checked(
    explanation: Explanation, item: GradingItem, guard: KeyGuard, grade: Grade, next_round: NextRound | None = None
) -> tuple[str, list[ReferenceLink], FeedbackDetails]:
    """The explanation as the learner may see it: its prose, links and parts, each checked
    against the unanswered items' keys."""
    needs_review = grade.needs_review
    points = grade.short_answer.points if grade.short_answer else None
    named = picked_concept(item)  # a wrong pick's concept: held back while the round is open (KeyGuard.naming)
    links = guard.links(cited(item.sources, explanation.reference_links))
    details = details_of(
        item, explanation, links, needs_review, score=grade.score, points=points, next_round=next_round
    )
    details = details.model_copy(
        update={
            "score_reason": guard.optional_text(details.score_reason),
            "why_correct": guard.optional_text(details.why_correct),
            "why_yours_is_wrong": _why_wrong(item, details, guard, named),
            "next_steps": [guard.text(step) for step in details.next_steps],
        }
    )
    checked = explanation.model_copy(update={"explanation": guard.naming(explanation.explanation, named)})
    terms = topic_terms(study_terms(item), item.reference_explanation, None, item.category)
    # Padded again after the check: what it holds back must not leave the text under the minimum.
    prose = guard.naming(compose(details, item, checked, terms, needs_review=needs_review), named)
    text = padded(guard.explanation(prose or ""), details.language, terms)
    # The note that something may be held back (guard.note) is no part of the text: it is its own
    # field, said once per round by the page, never beside a paragraph nor after every answer.
    return text, links, details


def explain(
    item: GradingItem,
    grade: Grade,
    unanswered: list[KeyedItem],
    cached: dict[str, Any] | None,
    cacheable: bool,
    *,
    next_round: NextRound | None = None,
) -> Explained:
    """The checked explanation, feedback line and grader's reasoning of a graded `item`;
    `next_round`: the next round's difficulty the advice states (none: the advice by the result alone)."""
    if cacheable and cached:
        metrics.add_metric(name="ExplanationCacheHits", unit="Count", value=1)
        explanation, entry = Explanation.model_validate(cached), None
    else:
        explanation = _generated(item)
        entry = (cache_variant(item), explanation.model_dump(mode="json")) if cacheable else None
    guard = KeyGuard(keyed(item), unanswered, on_page=quoted_from_page(item))
    said = feedback_line(grade.score, language(item), non_answer=item.non_answer)
    if grade.note:
        said = f"{grade.note} {said or ''}".strip()
    feedback = guard.optional_text(said)
    said_reasoning = grade.short_answer.reasoning if grade.short_answer else None
    reasoning = guard.optional_text(said_reasoning)
    text, links, details = _checked(explanation, item, guard, grade, next_round)
    withheld = guard.withheld.sentences + guard.withheld.links
    if withheld:
        logger.info("key material of unanswered items withheld", extra={"question_type": item.question_type})
        metrics.add_metric(name="KeyMaterialWithheld", unit="Count", value=withheld)
    kept: dict[str, Any] | None = None
    if unanswered:
        # The same composition with nothing to protect: what the history delivers once every item
        # open now is answered or closed. Kept for every answer given while another item is open,
        # not only when something was held back: the moment the history completes an explanation
        # would otherwise tell which later item it touched.
        full = _checked(explanation, item, KeyGuard(guard.own, []), grade, next_round)
        unguarded = unguarded_fields(Shown(*full, feedback=said, reasoning=said_reasoning))
        kept = {"withheld_for": sorted(item.item_id for item in unanswered if item.item_id), "unguarded": unguarded}
    return Explained(
        shown=Shown(text, links, details, feedback=feedback, reasoning=reasoning, note=guard.note()),
        cache_entry=entry,
        withheld=kept,
    )
