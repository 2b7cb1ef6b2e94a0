"""The human review loop: one queue of provisional grades and doubtful questions, the
reviewer's actions on them, and how often reviewers agree with the automatic grader.

Every action is recorded with who, when, before, after and the reviewer's note, in the same
transaction that applies it (slea.dal.review). The grading path is not imported here."""

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.review import (
    AttemptReviewed,
    AttemptReviewRequest,
    AuditRecord,
    AuditRecords,
    BulkAccepted,
    BulkAcceptRequest,
    BulkAcceptResult,
    QuestionReviewed,
    QuestionReviewRequest,
    ReviewStats,
)
from slea.dal import review, sessions
from slea.dal.questions import bank_key
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_writes
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DomainError, Forbidden, Invalid, NotFound
from slea.platform.observability import logger, metrics, tracer

QUEUE_FIELDS = "REMOVE review_state, queued_at"
# Longest reviewer display name kept with an action (a token's `name` or `email` claim).
REVIEWER_NAME_MAX = 128
_SPACES = re.compile(r"\s+")


def display_name(claims: Mapping[str, Any] | None, subject: str) -> str:
    """The name to record with a reviewer's action: the token's `name`, else its `email`, else its
    user name (a Cognito access token, which the web app sends, carries only `username`), else the
    subject. Control and format characters (bidirectional overrides among them) are dropped and
    the name bounded, so a claim cannot reorder or flood what other reviewers read."""
    for claim in ("name", "email", "cognito:username", "username"):
        value = (claims or {}).get(claim)
        if isinstance(value, str):
            kept = "".join(c for c in value if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
            cleaned = _SPACES.sub(" ", kept).strip()[:REVIEWER_NAME_MAX]
            if cleaned:
                return cleaned
    return subject


# ---------------------------------------------------------------- attempts
def _commit(items: list[dict[str, Any]], target: str) -> None:
    try:
        review.commit(items)
    except review.ReviewConflictError as error:
        raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error


@tracer.capture_method
def review_attempt(
    attempt_id: str,
    reviewer: str,
    request: AttemptReviewRequest,
    reviewer_name: str | None = None,
    *,
    attempt: dict[str, Any] | None = None,
    first_review: bool = False,
    group_id: str | None = None,
) -> AttemptReviewed:
    """Accept keeps the grade; override corrects the score, `is_correct` (pass mark 80, as Tool 6),
    the question's correct count and the learner's ability (the response as first graded out, the
    corrected one in). Either way the attempt leaves the queue. `first_review`: only if no review
    has been applied yet (bulk accept: two reviewers accepting at once count it once)."""
    attempt = attempt or review.attempt_by_id(attempt_id)  # bulk_accept has read it
    if attempt is None:
        raise NotFound("ATTEMPT_NOT_FOUND", f"attempt {attempt_id} not found")
    if same_user(attempt.get("user_id"), reviewer):
        raise Forbidden("OWN_ATTEMPT", f"attempt {attempt_id} is your own: another reviewer must review it")
    now, previous, was_correct = utc_now(), int(attempt["score"]), bool(attempt["is_correct"])
    score = previous if request.action == "accept" else int(request.score or 0)
    is_correct = was_correct if request.action == "accept" else score >= HIGH_SCORE_THRESHOLD
    values = {
        ":score": score,
        ":correct": is_correct,
        ":previous": previous,
        ":was_correct": was_correct,
        ":true": True,
        ":false": False,
        ":by": reviewer,
        ":by_name": reviewer_name or reviewer,
        ":at": now,
        ":action": request.action,
    }
    items = [
        review.update(
            review.ATTEMPTS_TABLE,
            {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
            "SET score = :score, is_correct = :correct, original_score = if_not_exists(original_score, :previous), "
            "reviewed = :true, needs_review = :false, reviewed_by = :by, reviewed_by_name = :by_name, "
            "reviewed_at = :at, review_action = :action " + QUEUE_FIELDS,
            # The grade the reviewer saw is still the grade: two reviews never both apply.
            "score = :previous AND is_correct = :was_correct"
            + (" AND (attribute_not_exists(reviewed) OR reviewed = :false)" if first_review else ""),
            values,
        )
    ]
    if is_correct != was_correct and review.get_question(attempt["question_id"]) is not None:
        items.append(
            review.update(
                review.QUESTIONS_TABLE,
                {"question_id": attempt["question_id"]},
                "ADD correct_count :change",
                "attribute_exists(question_id)",
                {":change": 1 if is_correct else -1},
            )
        )
    items.append(
        review.audit_record(
            {
                "target_id": attempt_id,
                "target_kind": "attempt",
                "action": request.action,
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {"score": previous, "is_correct": was_correct, "needs_review": attempt.get("needs_review")},
                "after": {"score": score, "is_correct": is_correct, "needs_review": False},
                "note": request.note,
                **({"group_id": group_id} if group_id else {}),  # one action graded the whole group
            }
        )
    )
    items.append(review.count("reviewed", "accepted" if request.action == "accept" else "overridden"))
    items.extend(exemplar_writes(attempt, score, is_correct))
    _commit_rescored(items, attempt, score)
    if request.action == "accept":
        metrics.add_metric(name="GradesAccepted", unit="Count", value=1)
    else:
        metrics.add_metric(name="GradesOverridden", unit="Count", value=1)
    if is_correct != was_correct:
        _refresh_stats_flag(attempt["question_id"])
    return AttemptReviewed(
        attempt_id=attempt_id,
        action=request.action,
        score=score,
        is_correct=is_correct,
        previous_score=previous,
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


_BULK_STATUS = {"ATTEMPT_NOT_FOUND": "not_found", "OWN_ATTEMPT": "own_attempt"}


@tracer.capture_method
def bulk_accept(request: BulkAcceptRequest, reviewer: str, name: str | None = None) -> BulkAccepted:
    """Accept each attempt's grade as POST /review/attempts/{id} does (one transaction each: an
    attempt is accepted wholly or not at all). An attempt already reviewed is reported and left
    as it is, so sending the same ids again changes nothing."""
    results: list[BulkAcceptResult] = []
    accept = AttemptReviewRequest(action="accept", note=request.note)
    for attempt_id in request.attempt_ids:
        stored = review.attempt_by_id(attempt_id)
        if stored is not None and stored.get("reviewed"):
            results.append(BulkAcceptResult(attempt_id=attempt_id, status="already_reviewed", score=stored["score"]))
            continue
        try:
            done = review_attempt(attempt_id, reviewer, accept, name, attempt=stored, first_review=True)
        except DomainError as error:
            current = review.attempt_by_id(attempt_id) if error.code == "REVIEW_CONFLICT" else None
            if current is not None and current.get("reviewed"):  # another reviewer was first
                results.append(
                    BulkAcceptResult(attempt_id=attempt_id, status="already_reviewed", score=current["score"])
                )
                continue
            status = _BULK_STATUS.get(error.code, "conflict")
            results.append(BulkAcceptResult(attempt_id=attempt_id, status=status, message=error.message))
            continue
        results.append(BulkAcceptResult(attempt_id=attempt_id, status="accepted", score=done.score))
    accepted = sum(result.status == "accepted" for result in results)
    logger.info("grades accepted in bulk", extra={"asked": len(results), "accepted": accepted})
    return BulkAccepted(results=results, accepted=accepted)


def _commit_rescored(items: list[dict[str, Any]], attempt: dict[str, Any], score: int) -> None:
    """Commit the review with the learner's ability re-scored in the same transaction.
    The ability's write is conditioned on the version read: if the learner answered meanwhile,
    the grade the reviewer saw is unchanged and only the ability moved, so it is read again and
    the re-scoring redone; a changed grade is the reviewer's Conflict."""
    target = f"attempt {attempt['attempt_id']}"
    for _ in range(ability_recording.CONFLICT_ATTEMPTS):
        # The history point sorts with the answers' (graded_at's precision).
        rescored = ability_recording.rescore_items(attempt, score, utc_now("milliseconds"))
        try:
            review.commit(items + rescored)
            return
        except review.ReviewConflictError as error:
            current = review.attempt_by_id(str(attempt["attempt_id"])) if rescored else None
            if current is None or (current["score"], current["is_correct"]) != (
                attempt["score"],
                attempt["is_correct"],
            ):
                raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error
            metrics.add_metric(name="AbilityUpdateConflicts", unit="Count", value=1)
    raise Conflict("REVIEW_CONFLICT", f"{target}: the learner's ability kept changing; retry")


def _refresh_stats_flag(question_id: str) -> None:
    """The corrected counts may change the question's statistics flag (best effort, as after
    grading). Imported here: the grading module is a fifth of the API's cold start."""
    from slea.logic.answering.recording import update_stats_flag  # noqa: PLC0415

    update_stats_flag(question_id)


# ---------------------------------------------------------------- questions
def _field_of(error: ValidationError) -> str:
    problem = error.errors()[0]
    location = ".".join(str(part) for part in problem.get("loc", ()))
    field = location or problem["type"]
    return {"correct_key": "correct_answer"}.get(field, field)


def _edited(stored: dict[str, Any], request: QuestionReviewRequest) -> dict[str, Any]:
    """The question's new stem, choices and key, validated as Tool 5 validates a question."""
    from slea.contracts.questions import SaveQuestionInput  # noqa: PLC0415 - edits are rare

    if request.changes_nothing():
        raise Invalid("VALIDATION_ERROR", "stem: edit needs stem, choices, correct_answer or correct_keywords")
    key = stored.get("answer_schema") or {}
    candidate = {
        "item_type": stored["item_type"],
        "stem": request.stem if request.stem is not None else stored["stem"],
        "choices": request.choices if request.choices is not None else stored.get("choices"),
        "correct_key": request.correct_answer if request.correct_answer is not None else key.get("correct_key"),
        "correct_keywords": request.correct_keywords
        if request.correct_keywords is not None
        else key.get("correct_keywords"),
        "round_id": stored.get("round_id") or stored["question_id"],
    }
    try:
        checked = SaveQuestionInput.model_validate(candidate)
    except ValidationError as error:
        field = _field_of(error)
        raise Invalid("VALIDATION_ERROR", f"{field}: {error.errors()[0]['msg']}") from error
    answer = {**key}
    if checked.item_type == "short_answer":
        answer["correct_keywords"] = checked.correct_keywords
    else:
        answer["correct_key"] = checked.correct_key
    return {"stem": checked.stem, "choices": checked.choices, "answer_schema": answer}


def _snapshot(stored: dict[str, Any]) -> dict[str, Any]:
    key = stored.get("answer_schema") or {}
    return {
        "status": stored.get("status", "active"),
        "stem": stored.get("stem"),
        "choices": stored.get("choices"),
        "correct_answer": key.get("correct_key"),
        "correct_keywords": key.get("correct_keywords"),
        "review_reasons": stored.get("review_reasons") or [],
    }


@tracer.capture_method
def review_question(
    question_id: str, reviewer: str, request: QuestionReviewRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Accept (it stays as it is), retire (hidden from learners who have not answered it, its
    templates deactivated, its stem avoided by later rounds) or edit it; it leaves the queue."""
    stored = review.get_question(question_id)
    if stored is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found")
    # A reviewer who edits (or accepts) an item of their own session could key it to their answer;
    # one who wrote an item does not approve it.
    if same_user(stored.get("authored_by"), reviewer) or (
        stored.get("session_id") and same_user(sessions.owner_of(str(stored["session_id"])), reviewer)
    ):
        raise Forbidden("OWN_QUESTION", f"question {question_id} is your own item: another reviewer must review it")
    retired = stored.get("status") == "retired"
    if retired and request.action != "accept":
        raise Conflict("QUESTION_RETIRED", f"question {question_id} is retired")
    now = utc_now()
    values: dict[str, Any] = {
        ":by": reviewer,
        ":by_name": reviewer_name or reviewer,
        ":at": now,
        ":action": request.action,
    }
    names: dict[str, str] = {}
    condition = "attribute_exists(question_id)"
    if request.action != "accept":  # `status` is a DynamoDB reserved word
        names, values[":retired"] = {"#status": "status"}, "retired"
        condition += " AND (attribute_not_exists(#status) OR #status <> :retired)"
    setting = "reviewed_by = :by, reviewed_by_name = :by_name, reviewed_at = :at, review_action = :action"
    after = _snapshot(stored) | {"review_reasons": []}
    extra: list[dict[str, Any]] = []
    removing = "review_reasons"
    if request.action == "retire":
        setting += ", #status = :retired, retired_at = :at, retired_category = :category"
        removing += ", bank_key"  # out of the question bank's index: no round draws it again
        values[":category"] = stored.get("category") or "general"
        after["status"] = "retired"
        extra = [review.deactivate_template(tid) for tid in review.templates_with_stem(str(stored.get("stem", "")))]
        after["templates_deactivated"] = len(extra)
    if request.action != "retire" and not retired and stored.get("item_id") == question_id:
        # A bank item a reviewer has approved (a revise-band or an author's item, or one queued
        # for its statistics) may be drawn by later rounds; copies keep to the session they serve.
        setting += ", bank_key = :bank_key"
        values[":bank_key"] = bank_key(str(stored.get("category") or "general"), str(stored.get("language") or "en"))
    if request.action == "edit":
        edited = _edited(stored, request)
        setting += ", stem = :stem, choices = :choices, answer_schema = :answer, edited_at = :at"
        values |= {":stem": edited["stem"], ":choices": edited["choices"], ":answer": edited["answer_schema"]}
        if edited["choices"] is None:  # a true/false or short-answer question has no choices
            setting = setting.replace(", choices = :choices", "")
            values.pop(":choices")
        after |= {
            "stem": edited["stem"],
            "choices": edited["choices"],
            "correct_answer": edited["answer_schema"].get("correct_key"),
            "correct_keywords": edited["answer_schema"].get("correct_keywords"),
        }
    items = [
        review.update(
            review.QUESTIONS_TABLE,
            {"question_id": question_id},
            f"SET {setting} {QUEUE_FIELDS}, {removing}",
            condition,
            values,
            names=names,
        ),
        *extra,
        review.audit_record(
            {
                "target_id": question_id,
                "target_kind": "question",
                "action": request.action,
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": _snapshot(stored),
                "after": after,
                "note": request.note,
            }
        ),
        review.count(
            {"accept": "questions_accepted", "retire": "questions_retired", "edit": "questions_edited"}[request.action]
        ),
    ]
    _commit(items, f"question {question_id}")
    logger.info("question reviewed", extra={"question_id": question_id, "action": request.action})
    return QuestionReviewed(
        question_id=question_id,
        action=request.action,
        status="retired" if retired or request.action == "retire" else "active",
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


# ---------------------------------------------------------------- the record
@tracer.capture_method
def review_stats() -> ReviewStats:
    counted = review.counters()
    accepted, overridden = counted.get("accepted", 0), counted.get("overridden", 0)
    reviewed = accepted + overridden
    return ReviewStats(
        reviewed=reviewed,
        accepted=accepted,
        overridden=overridden,
        agreement=round(accepted / reviewed, 4) if reviewed else None,
        questions_retired=counted.get("questions_retired", 0),
        questions_edited=counted.get("questions_edited", 0),
        questions_accepted=counted.get("questions_accepted", 0),
        open=review.count_open(),
    )


def _record(stored: dict[str, Any]) -> AuditRecord:
    return AuditRecord.model_validate({**stored, "audit_id": stored["audit_key"]})


@tracer.capture_method
def recent_audit(limit: int) -> AuditRecords:
    """Every reviewer's latest actions, newest first."""
    return AuditRecords(records=[_record(stored) for stored in review.recent_audit_records(limit)])


@tracer.capture_method
def audit(target_id: str) -> AuditRecords:
    return AuditRecords(records=[_record(stored) for stored in review.audit_records(target_id)])
