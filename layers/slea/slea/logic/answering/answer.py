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
from dataclasses import replace
from typing import NamedTuple

from slea.contracts.profile import normalised_user_id
from slea.contracts.scoring import AnswerRequest, ScoreAnswerInput, ScoreAnswerOutput
from slea.dal import answer_reads, questions
from slea.dal.answer_reads import AnswerReads
from slea.dal.question_records import StoredQuestion
from slea.dal.reference_prints import prints_in
from slea.dal.sessions import StoredSession
from slea.logic.answering import ability_update, explaining, grading, recording, rules
from slea.logic.answering.context import AnswerContext, GradeNotRecordedError, in_session, prepare, read, session_of
from slea.logic.answering.grades import Grade, OtherPrints, ShortAnswerReads
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


def _owner_check(session_id: str, user_id: str, session: StoredSession | None) -> None:
    if session is None:
        raise NotFound("SESSION_NOT_FOUND", f"session {session_id} not found")
    if normalised_user_id(session.user_id) != normalised_user_id(user_id):
        raise Forbidden("FORBIDDEN", f"session {session_id} belongs to another user")


class _Graded(NamedTuple):
    """A grading: the output, what the learner is shown (with the cache entry and what the key-leak
    guard held back, for the recording transaction), the grade behind it and the learner's prior
    if the advice read it. (A named tuple: a quarter of a dataclass's cost at import.)"""

    output: ScoreAnswerOutput
    explained: explaining.Explained
    grade: Grade
    prior: tuple[float, float] | None = None


def _short_answer_reads(context: AnswerContext, *, recorded: bool) -> ShortAnswerReads | None:
    """What a short answer is compared with, read with the context: the session's other items,
    the reviewed answers and review groups of its bank item, the reference prints of its
    category's items. A grading recorded nowhere joins no review group."""
    if context.request.question_type != "short_answer":
        return None
    records, item_id = context.records, context.exemplar_item_id
    prints = records.reference_prints
    return ShortAnswerReads(
        question_id=context.request.question_id,
        session=context.session,
        exemplars=records.exemplars,
        prints=None if prints is None else OtherPrints(prints_in(prints), context.own_items),
        group=(item_id, context.attempt_key) if recorded and item_id is not None else None,
    )


def _next_round(context: AnswerContext, grade: Grade) -> tuple[NextRound | None, tuple[float, float] | None]:
    """The next round's difficulty beside this item's, from the learner's estimate once this
    answer is counted as the recording will count it (target.next_round: the planner's rule), so
    the advice says what the next round will do; and the learner's prior if it was read for it (a
    first answer in the category: the recording uses it too). None when the answer updates no
    ability (no category, the learner model unreadable) or the item has no label."""
    label = context.request.difficulty or (context.stored.difficulty if context.stored else None)
    counted = ability_update.counted_score(grade.score, grade.needs_review, grade.probability, flagged=grade.flagged)
    evidence = ability_update.evidence_of(
        context.request, context.stored, counted, provisional=grade.needs_review, cap=grade.score
    )
    if evidence is None or context.ability_unreadable or label is None:
        return None, None
    prior = None
    if not ability_update.has_posterior(context.records.ability):  # a first answer in the category
        prior = ability_update.profile_prior(evidence.user_id)
    estimate = ability_update.estimate_after(
        evidence, label, ability=context.records.ability, bank_item=context.bank_item, prior=prior
    )
    return next_round(estimate.theta, int(label)), prior


def _graded(context: AnswerContext, attempt_id: str, *, recorded: bool = True) -> _Graded:
    """Grade and explain (no storage: the cache entry read with the context, any new one and what
    the key-leak guard held back returned for the recording transaction). A grading recorded
    nowhere advises nothing about a next round (it moves no ability)."""
    grade = grading.grade(context.item, _short_answer_reads(context, recorded=recorded))
    item = grading.graded_item(context.item, grade)
    advice, prior = _next_round(context, grade) if recorded else (None, None)
    explained = explaining.explain(
        item, grade, context.unanswered, context.records.explanation, context.cacheable, next_round=advice
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
        keyword_matches=item.keyword_matches,
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
    return _Graded(output, explained, grade, prior)


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
    graded = _graded(context, attempt_id)
    output = graded.output
    try:
        outcome = recording.record(
            context,
            output,
            graded.grade,
            claim_question=claim_question,
            explanation=graded.explained.cache_entry,
            withheld=graded.explained.withheld,
            prior=graded.prior,
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
    left = context.records.session is not None and bool(context.records.session.closed_at)
    bank_item = context.records.bank_item if context.bank_item_id else None  # read with the rest
    refused = rules.refusal(stored, context.attempt_key, session, session_closed=left, bank_item=bank_item)
    if refused is not None:
        raise refused
    rate_limits.take(user_id, "answer")  # every new answer, before any model call
    return _grade_and_record(context, claim_question=True)


def _session_only(session_id: str) -> StoredSession | None:
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
    context = replace(context, item=context.item.model_copy(update={"shown_texts": shown_texts}), unanswered=[])
    return _graded(context, attempt_id=str(uuid.uuid4()), recorded=False).output
