"""Tool 6: grade an answer and explain it (spec 000 Tool 6, 001 scoring rules), then record the
attempt and the question's statistics.

- MC: the answer names the keyed choice (its letter or its text, see contracts/answers.py), else
  an exact case-insensitive match; TF: true/false in any case. 100 or 0.
- SA: one LLM call on the 40/40/20 rubric (the answer passed as delimited data) plus keyword
  matches; is_correct at 80+; LLM failure -> 50 and not correct; an unusable answer from the
  model -> 50 with a note. A high score without keyword evidence, or a score in the uncertain
  middle (60-85), marks the attempt `needs_review`.
- Feedback: partial-credit encouragement at 70-79, constructive below 70, none at 80+; its fixed
  phrases in the question's language (slea/language/scoring_phrases.py).
- Explanation: in parts (`details`: the question, the learner's answer, the key, why, why the
  pick is wrong, next steps fitted to the result; slea/feedback/details.py) and in prose composed from
  them, >= 500 characters, no sentence twice, in a tone that fits the result and in the question's
  language. References are the concept's recorded sources only, none if it has none. MC/TF
  explanations are cached per (question, correct or not, and for a wrong choice the option picked),
  so a popular question costs at most one explanation call per option.
- What the learner is shown (explanation, feedback, the grader's reasoning, reference titles) is
  checked against the keys of the session's items they have not answered yet, cached or fresh,
  from either provider (slea/security/key_leaks.py); the attempt records the checked text.
- The learner model (issue 19): an answer of a learner in a category updates their ability and
  the item's difficulty in the same transaction as the attempt (slea.logic.answering.ability_update).
"""

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from slea.constants import DEFAULT_SCORING_LLM_SCORE, HIGH_SCORE_THRESHOLD, PARTIAL_CREDIT_RANGE, Language
from slea.contracts.answers import choice_index, truth_value
from slea.contracts.errors import utc_now
from slea.contracts.llm import Explanation, GradingItem, ShortAnswerGrade
from slea.contracts.scoring import FeedbackDetails, ReferenceLink, ScoreAnswerInput, ScoreAnswerOutput
from slea.dal import attempts, explanations, questions
from slea.feedback.details import compose, details_of, normalised_key, padded, picked_option
from slea.feedback.offline_explanation import explain_offline
from slea.feedback.references import cited, topic_terms
from slea.language.scoring_phrases import language_of, phrase
from slea.llm import budget
from slea.llm.prompts import PROMPT_VERSION
from slea.llm.provider import LLMError
from slea.llm.selection import get_provider
from slea.llm.settings import LLMSettings
from slea.logic.answering import ability_update as ability_recording
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer
from slea.security import ids
from slea.security.key_leaks import KeyedItem, KeyGuard, unanswered_items

RUBRIC_VERSION = "tool6-40/40/20-v2"
# Statistics worth a human look: enough answers and a facility index that is extreme, or at odds
# with the question's intended difficulty.
STATS_MIN_ANSWERS = 20


def _multiple_choice_correct(answer: str, key: str, choices: list[str]) -> bool:
    """The spec's exact case-insensitive match, or (when the choices are known) the same choice
    named by letter or by text."""
    if answer.strip().casefold() == key.strip().casefold():
        return True
    keyed = choice_index(key, choices) if choices else None
    return keyed is not None and choice_index(answer, choices) == keyed


def _language(item: GradingItem) -> Language:
    """The question's language, which every fixed phrase of its grading is written in."""
    return language_of(item.stem, item.reference_answer, *item.choices)


def _feedback(score: int, language: Language = "en") -> str | None:
    if score >= HIGH_SCORE_THRESHOLD:
        return None
    low, high = PARTIAL_CREDIT_RANGE
    return phrase(language, "partial" if low <= score <= high else "constructive")


def _short_answer_grade(item: GradingItem) -> tuple[ShortAnswerGrade, str | None]:
    """The grade and, when the model was unavailable, a note for the learner. The offline
    evidence is always computed: it gives the keyword matches and the form checks, and with a
    model it is the second opinion whose disagreement lowers the model's confidence.

    The grading modules are imported here, not at the top: multiple-choice and true/false answers
    (most of them) never need them, and loading them is a large part of this function's cold start."""
    from slea.grading.verdict import with_second_opinion  # noqa: PLC0415
    from slea.llm.offline.grading import as_short_answer_grade, grade_with_evidence  # noqa: PLC0415

    evidence = grade_with_evidence(item)
    item.keyword_matches = evidence.keyword_matches
    provider = get_provider()
    if provider.name != "offline" and not budget.call_fits(LLMSettings.from_environment()):
        logger.warning("no time left for the model's grading, using the offline grader")
        fallback = as_short_answer_grade(evidence)
        return fallback.model_copy(update={"confidence": min(fallback.confidence, 0.5), "final": False}), None
    try:
        graded = provider.grade_short_answer(item)
    except LLMError as error:
        logger.warning("short-answer grading failed, using the default score", extra={"reason": str(error)})
        note = phrase(_language(item), "grading_unavailable", reason=str(error))
        return ShortAnswerGrade(score=DEFAULT_SCORING_LLM_SCORE, reasoning=note, confidence=0.0), note
    if provider.name == "offline":
        return graded, None
    return with_second_opinion(graded, evidence), None


def _cache_variant(item: GradingItem) -> str:
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


def _explained(item: GradingItem) -> Explanation:
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


def _explain(item: GradingItem, question_id: str, cacheable: bool) -> Explanation:
    variant = _cache_variant(item)
    if cacheable:
        try:
            cached = explanations.get_explanation(question_id, variant)
        except DataAccessError as error:
            logger.warning("explanation cache unavailable", extra={"reason": str(error)})
            cached = None
        if cached:
            metrics.add_metric(name="ExplanationCacheHits", unit="Count", value=1)
            return Explanation.model_validate(cached)
    explanation = _explained(item)
    if cacheable:
        try:
            explanations.put_explanation(question_id, variant, explanation.model_dump(mode="json"))
        except DataAccessError as error:
            logger.warning("explanation not cached", extra={"reason": str(error)})
    return explanation


@dataclass(frozen=True)
class ShownExplanation:
    text: str
    links: list[ReferenceLink]
    details: FeedbackDetails


def _shown(explanation: Explanation, item: GradingItem, guard: KeyGuard, needs_review: bool) -> ShownExplanation:
    """The explanation as the learner may see it: in parts and in prose composed from them, each
    checked against the unanswered items' keys."""
    links = guard.links(cited(item.sources, explanation.reference_links))
    keys = frozenset(
        normalised_key(other.key_text) for other in guard.unanswered if other.question_type == "multiple_choice"
    )
    details = details_of(item, explanation, links, needs_review, keys)
    details = details.model_copy(
        update={
            "why_correct": guard.optional_text(details.why_correct),
            "why_yours_is_wrong": guard.optional_text(details.why_yours_is_wrong),
            "next_steps": [guard.text(step) for step in details.next_steps],
        }
    )
    checked = explanation.model_copy(update={"explanation": guard.text(explanation.explanation)})
    terms = topic_terms(item.correct_keywords, item.reference_explanation, None, item.category)
    # Padded again after the check: what it holds back must not leave the text under the minimum.
    text = padded(guard.explanation(compose(details, item, checked, terms, keys)), details.language, terms)
    return ShownExplanation(text=text, links=links, details=details)


def _stats_flag(counters: dict[str, Any]) -> str | None:
    usage, correct = int(counters.get("usage_count", 0)), int(counters.get("correct_count", 0))
    if usage < STATS_MIN_ANSWERS:
        return None
    rate, difficulty = correct / usage, int(counters.get("difficulty", 5))
    if rate > 0.95:
        return "too_easy"
    if rate < 0.05:
        return "too_hard"
    if (difficulty >= 8 and rate > 0.9) or (difficulty <= 3 and rate < 0.2):
        return "difficulty_mismatch"
    return None


class AlreadyAnsweredError(Exception):
    """The question was answered before with a different answer (HTTP API: one per question)."""


class QuestionRetiredError(AlreadyAnsweredError):
    """A reviewer retired the question before this answer could be recorded (HTTP API)."""


class GradeNotRecordedError(DataAccessError):
    """The grading could not be stored; nothing was recorded, so the request can be retried."""


@dataclass(frozen=True)
class SessionContext:
    """What the rest of the question's session means for one answer: the text the learner was
    shown (copying it into a short answer is no evidence) and the items they have not answered
    yet (whose keys nothing shown may give away)."""

    shown_texts: list[str] = field(default_factory=list)
    unanswered: list[KeyedItem] = field(default_factory=list)


def _keyed(item: GradingItem) -> KeyedItem:
    return KeyedItem(
        question_type=item.question_type,
        stem=item.stem or "",
        choices=tuple(item.choices),
        correct_answer=item.correct_answer,
        correct_keywords=tuple(item.correct_keywords),
        reference_answer=item.reference_answer,
        explanation=item.reference_explanation,
    )


def _grading_item(request: ScoreAnswerInput, stored: dict[str, Any], shown_texts: list[str]) -> GradingItem:
    answer_schema = stored.get("answer_schema") or {}
    return GradingItem(
        question_type=request.question_type,
        user_answer=request.user_answer,
        stem=stored.get("stem"),
        choices=request.choices or stored.get("choices") or [],
        correct_answer=request.correct_answer,
        correct_keywords=request.correct_keywords or [],
        reference_answer=request.reference_answer or answer_schema.get("reference_answer"),
        reference_explanation=answer_schema.get("explanation"),
        shown_texts=shown_texts,
        difficulty=request.difficulty,
        category=request.category or stored.get("category"),
        sources=answer_schema.get("sources") or [],
        choice_notes=answer_schema.get("choice_notes") or [],
    )


def grade_without_recording(
    request: ScoreAnswerInput, stored: dict[str, Any], shown_texts: list[str]
) -> ScoreAnswerOutput:
    """The grading alone, recorded nowhere (so under an id of its own): for regrading and for the
    grading benchmark."""
    return _grade(request, stored, SessionContext(shown_texts=shown_texts), attempt_id=str(uuid.uuid4()))


def _grade(
    request: ScoreAnswerInput, stored: dict[str, Any], context: SessionContext, attempt_id: str
) -> ScoreAnswerOutput:
    item = _grading_item(request, stored, context.shown_texts)
    needs_review, confidence, note, grade = False, 1.0, None, None
    if request.question_type == "short_answer":
        grade, note = _short_answer_grade(item)
        score, confidence = grade.score, grade.confidence
        needs_review = note is not None or bool(grade.flags) or not grade.final
        is_correct = score >= HIGH_SCORE_THRESHOLD and note is None
    else:
        answer_key = request.correct_answer or ""
        if request.question_type == "multiple_choice":
            is_correct = _multiple_choice_correct(request.user_answer, answer_key, item.choices)
        else:  # true/false in either language: True/False, 참/거짓, O/X
            expected = truth_value(answer_key)
            is_correct = expected is not None and truth_value(request.user_answer) == expected
        score = 100 if is_correct else 0
    item.is_correct = is_correct
    # Only stored MC/TF questions are cached: their content is known and fixed.
    cacheable = request.question_type != "short_answer" and bool(stored)
    guard = KeyGuard(_keyed(item), context.unanswered)
    explanation = _shown(_explain(item, request.question_id, cacheable=cacheable), item, guard, needs_review)
    feedback = _feedback(score, _language(item))
    if note:
        feedback = f"{note} {feedback or ''}".strip()
    feedback = guard.optional_text(feedback)
    reasoning = guard.optional_text(grade.reasoning) if grade else None
    withheld = guard.withheld.sentences + guard.withheld.links
    if withheld:
        logger.info("key material of unanswered items withheld", extra={"question_id": request.question_id})
        metrics.add_metric(name="KeyMaterialWithheld", unit="Count", value=withheld)
    metrics.add_metric(name="AnswersGraded", unit="Count", value=1)
    if needs_review:
        metrics.add_metric(name="AnswersNeedingReview", unit="Count", value=1)
    return ScoreAnswerOutput(
        attempt_id=attempt_id,
        session_id=request.session_id,
        question_id=request.question_id,
        user_id=request.user_id,
        is_correct=is_correct,
        score=score,
        explanation=explanation.text,
        keyword_matches=item.keyword_matches,
        feedback=feedback,
        graded_at=utc_now("milliseconds"),
        reference_links=explanation.links,
        needs_review=needs_review,
        confidence=round(confidence, 2),
        rubric_points=grade.points if grade else None,
        grader_reasoning=reasoning,
        details=explanation.details,
    )


def _attempt_item(
    output: ScoreAnswerOutput, request: ScoreAnswerInput, stored: dict[str, Any], key: str
) -> dict[str, Any]:
    """The whole grading (so a retry can return it as it was) plus what a regrade or a reviewer
    needs: the answer key, the reference answer, the rubric and prompt versions."""
    answer_schema = stored.get("answer_schema") or {}
    return {
        **output.model_dump(mode="json"),
        "attempt_key": key,
        "round": stored.get("round", 1),
        "difficulty": request.difficulty or stored.get("difficulty"),
        "question_type": request.question_type,
        # The learner's history shows the question and, for a choice, the option picked (issue 21).
        "question_stem": stored.get("stem"),
        "question_choices": stored.get("choices") or None,
        "user_answer": request.user_answer,
        "answer_key": {
            "correct_answer": request.correct_answer,
            "correct_keywords": request.correct_keywords,
            "reference_answer": request.reference_answer or answer_schema.get("reference_answer"),
        },
        "rubric_version": RUBRIC_VERSION,
        "prompt_version": PROMPT_VERSION,
        # A provisional grade waits in the review queue (the attempts table's sparse GSI).
        **({"review_state": "open", "queued_at": output.graded_at} if output.needs_review else {}),
    }


def _update_stats_flag(question_id: str) -> None:
    """Best effort: the flag is derived from the counts, so a failure here loses nothing."""
    try:
        counters = questions.get_question(question_id)
        flag = _stats_flag(counters) if counters else None
        if counters is not None and flag != counters.get("stats_flag"):
            questions.set_stats_flag(question_id, flag)
    except DataAccessError as error:
        logger.warning("statistics flag not updated", extra={"question_id": question_id, "reason": str(error)})


def _stored_output(session_id: str, key: str) -> ScoreAnswerOutput | None:
    attempt = attempts.get_attempt(session_id, key)
    return ScoreAnswerOutput.model_validate(attempt) if attempt else None


@tracer.capture_method
def score_and_explain(
    request: ScoreAnswerInput,
    stored: dict[str, Any] | None = None,
    *,
    one_answer_per_question: bool = False,
) -> ScoreAnswerOutput:
    """Grade `request` and record it. `stored` is the question as saved by Tool 5 (its stem,
    choices, reference answer and explanation inform the grader; its session's other items are
    the shown text and the unanswered keys, see SessionContext), if known.

    Retry-safe: the same answer to the same question (by the same user) is graded and counted
    once; a retry returns the recorded grading. With `one_answer_per_question` (the HTTP API),
    a different answer to an answered question raises AlreadyAnsweredError. If the record cannot
    be written, GradeNotRecordedError: nothing was recorded and the request can be retried."""
    stored = stored or {}
    key = attempts.attempt_key(request.question_id, request.identity())
    previous = _stored_output(request.session_id, key)
    if previous is not None:
        metrics.add_metric(name="GradingsReturnedFromRecord", unit="Count", value=1)
        return previous
    # The attempt key holds a digest of the answer key (it dedupes retries of the same grading);
    # the learner-visible id is keyed under the secret, so it cannot be tried against candidate keys.
    attempt_id = ids.keyed_uuid("attempt", request.session_id, key)
    output = _grade(request, stored, session_context(stored), attempt_id=attempt_id)
    try:
        outcome = _record(_attempt_item(output, request, stored, key), request, stored, one_answer_per_question)
    except DataAccessError as error:
        logger.error("attempt not recorded", extra={"attempt_id": output.attempt_id, "reason": str(error)})
        metrics.add_metric(name="AttemptsNotRecorded", unit="Count", value=1)
        raise GradeNotRecordedError(str(error)) from error
    if outcome == "retired":
        raise QuestionRetiredError(f"question {request.question_id} was retired by a reviewer")
    if outcome == "answered_differently":
        raise AlreadyAnsweredError(f"question {request.question_id} has already been answered")
    if outcome == "already_recorded":  # a concurrent retry won the race: its grading stands
        return _stored_output(request.session_id, key) or output
    if stored:
        _update_stats_flag(request.question_id)
    return output


def _record(
    attempt: dict[str, Any], request: ScoreAnswerInput, stored: dict[str, Any], one_answer_per_question: bool
) -> attempts.RecordOutcome:
    """Record the grading with what it teaches the learner model, in one transaction. Another
    answer of the same learner may update their ability first: the ability is then read again
    and the update redone on top of it, a few times; past that, the grade is recorded alone."""
    evidence = ability_recording.evidence_of(request, stored, int(attempt["score"]))
    label = request.difficulty or stored.get("difficulty")
    for _ in range(ability_recording.CONFLICT_ATTEMPTS):
        writes = ability_recording.writes_for_answer(
            evidence, stored, label, attempt["graded_at"], attempt["attempt_key"]
        )
        outcome = attempts.record_graded_answer(
            {**attempt, **writes.attempt_fields},
            count_on_question=bool(stored),
            claim_question=one_answer_per_question,
            learner=writes.learner_items,
            difficulty=writes.difficulty,
        )
        if outcome != "ability_changed":
            return outcome
        metrics.add_metric(name="AbilityUpdateConflicts", unit="Count", value=1)
    logger.error(
        "the ability kept changing, the grade is recorded without it", extra={"attempt_key": attempt["attempt_key"]}
    )
    skipped = ability_recording.skipped("conflict")
    return attempts.record_graded_answer(
        {**attempt, **skipped.attempt_fields}, count_on_question=bool(stored), claim_question=one_answer_per_question
    )


def session_context(stored: dict[str, Any]) -> SessionContext:
    """The question's session as one query gives it. If it cannot be read, nothing is graded
    (GradeNotRecordedError: the request can be retried): without the unanswered items' keys the
    explanation cannot be checked, and it is never shown unchecked."""
    if not stored.get("session_id"):
        return SessionContext()
    try:
        session = questions.session_questions(str(stored["session_id"]))
    except DataAccessError as error:
        logger.error("session questions unavailable, the answer is not graded", extra={"reason": str(error)})
        raise GradeNotRecordedError(str(error)) from error
    return SessionContext(
        shown_texts=_shown_to_learner(stored, session) if stored.get("item_type") == "short_answer" else [],
        unanswered=unanswered_items(session, answering=str(stored.get("question_id", ""))),
    )


def _shown_to_learner(stored: dict[str, Any], session: list[dict[str, Any]]) -> list[str]:
    """The stems and choices of the question's session, as GET /questions shows them: text the
    learner could paste, which is no evidence of knowing the answer."""
    texts: list[str] = []
    for question in session:
        if question.get("question_id") != stored.get("question_id"):
            texts.append(str(question.get("stem", "")))
        texts.extend(str(choice) for choice in question.get("choices") or [])
    return texts


def grade_answer(request: ScoreAnswerInput) -> ScoreAnswerOutput:
    """Direct invocation (the spec's signature): the question's stored context, if it was saved
    by Tool 5, informs the grader and explainer; the caller's answer key is used as given."""
    try:
        stored = questions.get_question(request.question_id)
    except DataAccessError as error:
        logger.warning("stored question unavailable, grading without its context", extra={"reason": str(error)})
        stored = None
    return score_and_explain(request, stored)
