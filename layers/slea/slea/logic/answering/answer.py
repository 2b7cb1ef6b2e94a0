"""Answering a question: one trip down and back.

    read (context.py: one Query, one BatchGetItem) → the rules (rules.py) and the rate limit →
    grade (grading.py: pure for a choice) → explain (explaining.py: cache, provider, key-leak
    guard, composition) → record (recording.py: one transaction)

`answer_question` is the HTTP API's and the MCP server's use case (the caller must own the
session; one answer per question). `grade_answer` is Tool 6 invoked directly with the
specification's parameters (the caller's answer key is used as given). Both are retry-safe: the
same answer to the same question by the same learner is graded and counted once, and a retry
returns the recorded grading. docs/architecture.md counts the AWS calls of each.
"""

import uuid
from typing import Any

from slea.contracts.profile import normalised_user_id
from slea.contracts.scoring import AnswerRequest, ScoreAnswerInput, ScoreAnswerOutput
from slea.dal import answer_reads, questions
from slea.dal.answer_reads import AnswerReads
from slea.dal.question_records import StoredQuestion
from slea.dal.reference_prints import prints_in
from slea.logic.answering import ability_update, explaining, grading, recording, rules
from slea.logic.answering.context import AnswerContext, GradeNotRecordedError, in_session, prepare, read, session_of
from slea.logic.rounds.target import next_round
from slea.measurement.scale import NextRound
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError, Forbidden, NotFound
from slea.platform.observability import logger, metrics, tracer
from slea.security import ids, rate_limits

__all__ = ["GradeNotRecordedError", "answer_question", "grade_answer", "grade_without_recording"]


def _request_for(session_id: str, user_id: str, answer: AnswerRequest, stored: StoredQuestion) -> ScoreAnswerInput:
    """The learner's answer with the key looked up server-side."""
    key = stored.answer_schema
    return ScoreAnswerInput(
        session_id=session_id,
        user_id=user_id,
        question_id=answer.question_id,
        question_type=stored.item_type,
        user_answer=answer.user_answer,
        correct_answer=key.correct_key,
        correct_keywords=None if key.correct_keywords is None else list(key.correct_keywords),
        difficulty=stored.difficulty,
        category=stored.category,
        choices=None if stored.choices is None else list(stored.choices),
        reference_answer=key.reference_answer,
    )


def _owner_check(session_id: str, user_id: str, session: dict[str, Any] | None) -> None:
    if session is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(str(session.get("user_id", ""))) != normalised_user_id(user_id):
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")


def _exemplars(context: AnswerContext) -> list[Any]:
    """The reviewed answers of the item, read with the context (short answers only: the grading
    modules stay unloaded for a choice)."""
    if context.records.exemplars is None:
        return []
    from slea.logic.answering.exemplars import stored  # noqa: PLC0415

    return list(stored(context.records.exemplars))


def _prints(context: AnswerContext) -> grading.OtherPrints | None:
    """The reference prints of the category's other items, read with the context (short answers)."""
    if context.records.reference_prints is None:
        return None
    return grading.OtherPrints(prints_in(context.records.reference_prints), context.own_items)


def _group(context: AnswerContext, grade: grading.Grade) -> None:
    """A short answer sent to a reviewer joins a review group of its bank item (the groups' faces
    were read with the exemplars), so one reviewer action can grade the answers saying one thing."""
    item_id = context.exemplar_item_id
    if not grade.needs_review or grade.short_answer is None or item_id is None:
        return
    from slea.grading.answer_groups import Graded  # noqa: PLC0415
    from slea.logic.answering.exemplars import review_group  # noqa: PLC0415

    flagged = bool(grade.short_answer.flags)
    graded = Graded(context.request.user_answer, grade.probability, flagged)
    context.review_group, context.group_face = review_group(
        context.records.exemplars, item_id, context.attempt_key, graded
    )


def _next_round(context: AnswerContext, grade: grading.Grade) -> NextRound | None:
    """The next round's difficulty beside this item's, from the learner's estimate once this
    answer is counted as the recording will count it (target.next_round: the planner's rule), so
    the advice says what the next round will do. None when the answer updates no ability (no
    category, the learner model unreadable) or the item has no label."""
    label = context.request.difficulty or (context.stored.difficulty if context.stored else None)
    flagged = bool(grade.short_answer and grade.short_answer.flags)
    counted = ability_update.counted_score(grade.score, grade.needs_review, grade.probability, flagged=flagged)
    evidence = ability_update.evidence_of(
        context.request, context.stored, counted, provisional=grade.needs_review, cap=grade.score
    )
    if evidence is None or context.ability_unreadable or label is None:
        return None
    if not ability_update.has_posterior(context.records.ability):  # a first answer in the category
        context.prior = ability_update.profile_prior(evidence.user_id)
    estimate = ability_update.estimate_after(
        evidence, label, ability=context.records.ability, bank_item=context.bank_item, prior=context.prior
    )
    return next_round(estimate.theta, int(label))


def _graded(
    context: AnswerContext, attempt_id: str, *, recorded: bool = True
) -> tuple[ScoreAnswerOutput, explaining.Explained]:
    """Grade and explain (no storage: the cache entry read with the context, any new one and what
    the key-leak guard held back returned for the recording transaction). A grading recorded
    nowhere advises nothing about a next round (it moves no ability)."""
    grade = grading.grade(context.item, context.other_references, _exemplars(context), _prints(context))
    context.grader_probability = grade.probability
    context.grader_flagged = bool(grade.short_answer and grade.short_answer.flags)
    if recorded:  # a grading recorded nowhere joins no review group
        _group(context, grade)
    explained = explaining.explain(
        context.item,
        grade,
        context.unanswered,
        context.records.explanation,
        context.cacheable,
        next_round=_next_round(context, grade) if recorded else None,
    )
    metrics.add_metric(name="AnswersGraded", unit="Count", value=1)
    if grade.needs_review:
        metrics.add_metric(name="AnswersNeedingReview", unit="Count", value=1)
    request, shown = context.request, explained.shown
    output = ScoreAnswerOutput(
        attempt_id=attempt_id,
        session_id=request.session_id,
        question_id=request.question_id,
        user_id=request.user_id,
        is_correct=grade.is_correct,
        score=grade.score,
        explanation=shown.explanation,
        keyword_matches=context.item.keyword_matches,
        feedback=shown.feedback,
        graded_at=utc_now("milliseconds"),
        reference_links=shown.links,
        needs_review=grade.needs_review,
        confidence=round(grade.confidence, 2),
        rubric_points=grade.short_answer.points if grade.short_answer else None,
        grader_reasoning=shown.reasoning,
        details=shown.details,
        held_back_note=shown.note,
    )
    return output, explained


def _recorded(context: AnswerContext) -> ScoreAnswerOutput | None:
    attempt = context.records.attempt
    if attempt is None:
        return None
    metrics.add_metric(name="GradingsReturnedFromRecord", unit="Count", value=1)
    return ScoreAnswerOutput.model_validate(attempt)


def _grade_and_record(context: AnswerContext, *, claim_question: bool) -> ScoreAnswerOutput:
    request = context.request
    # The attempt key holds a digest of the answer key (it dedupes retries of the same grading);
    # the learner-visible id is keyed under the secret, so it cannot be tried against candidate keys.
    attempt_id = ids.keyed_uuid("attempt", request.session_id, context.attempt_key)
    output, explained = _graded(context, attempt_id)
    try:
        outcome = recording.record(
            context,
            output,
            claim_question=claim_question,
            explanation=explained.cache_entry,
            withheld=explained.withheld,
        )
    except DataAccessError as error:
        logger.error("attempt not recorded", extra={"attempt_id": attempt_id, "reason": str(error)})
        metrics.add_metric(name="AttemptsNotRecorded", unit="Count", value=1)
        raise GradeNotRecordedError(str(error)) from error
    if (refused := rules.refusal_of_outcome(outcome, request.question_id)) is not None:
        raise refused
    if outcome == "already_recorded":  # a concurrent retry won the race: its grading stands
        stored = answer_reads.read(AnswerReads(attempt_key=(request.session_id, context.attempt_key))).attempt
        return ScoreAnswerOutput.model_validate(stored) if stored else output
    return output


@tracer.capture_method
def answer_question(session_id: str, user_id: str, answer: AnswerRequest) -> ScoreAnswerOutput:
    """A learner's answer to a question of their session, graded with the key looked up here."""
    session = session_of(session_id)
    stored = in_session(session, answer.question_id)
    if stored is None:  # the owner is checked first: a stranger learns nothing of another's session
        _owner_check(session_id, user_id, _session_only(session_id))
        raise NotFound("QUESTION_NOT_FOUND", f"question {answer.question_id} not found in session {session_id}")
    context = read(prepare(_request_for(session_id, user_id, answer, stored), stored, session), session_id)
    _owner_check(session_id, user_id, context.records.session)
    if (recorded := _recorded(context)) is not None:  # a retry: the grading as it was
        return recorded
    left = bool((context.records.session or {}).get("closed_at"))
    bank_item = context.records.bank_item if context.bank_item_id else None  # read with the rest
    refused = rules.refusal(stored, context.attempt_key, session, session_closed=left, bank_item=bank_item)
    if refused is not None:
        raise refused
    rate_limits.take(user_id, "answer")  # every new answer, before any model call
    return _grade_and_record(context, claim_question=True)


def _session_only(session_id: str) -> dict[str, Any] | None:
    return answer_reads.read(AnswerReads(session_id=session_id)).session


@tracer.capture_method
def grade_answer(request: ScoreAnswerInput) -> ScoreAnswerOutput:
    """Tool 6 invoked directly: the question's stored context, if it was saved by Tool 5, informs
    the grader and explainer; the caller's answer key is used as given."""
    try:
        stored = questions.get_question(request.question_id)
    except DataAccessError as error:
        logger.warning("stored question unavailable, grading without its context", extra={"reason": str(error)})
        stored = None
    context = prepare(request, stored, session_of(stored.session_id if stored else None))
    try:
        context = read(context)
    except DataAccessError as error:
        raise GradeNotRecordedError(str(error)) from error
    if (recorded := _recorded(context)) is not None:
        return recorded
    return _grade_and_record(context, claim_question=False)


def grade_without_recording(
    request: ScoreAnswerInput, stored: StoredQuestion | None, shown_texts: list[str]
) -> ScoreAnswerOutput:
    """The grading alone, read from and recorded nowhere (so under an id of its own): for a
    reviewer's regrade and for the grading benchmark."""
    context = prepare(request, stored, [])
    context.item.shown_texts = shown_texts
    context.unanswered = []
    return _graded(context, attempt_id=str(uuid.uuid4()), recorded=False)[0]
