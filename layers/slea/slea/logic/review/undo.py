"""Undoing a review of an attempt (an accept, an override or a confirmed proposal): the attempt,
its ability, the question's correct count and the exemplar the review stored, all as the review
found them, in one transaction with the undo's audit record. A review group's grade is undone
member by member through `undo_review` (slea.logic.review.groups)."""

from slea.contracts.review import AttemptReviewed, UndoRequest
from slea.dal import review, review_writes
from slea.dal.attempts import StoredAttempt
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_restores
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.logic.review.transactions import attempt_audit, commit_rescored, correct_count_items, refresh_stats_flag
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, Forbidden, NotFound
from slea.platform.observability import logger, tracer

# One review of one attempt (an accept too: it made a provisional grade final); a group's reviews
# are undone by the group, a bulk accept's by the bulk.
_UNDOABLE = ("override", "confirm", "accept")


def latest_review(attempt_id: str, actions: tuple[str, ...]) -> review.ReviewRecord | None:
    """The attempt's latest review of one of `actions`, unless an undo came after it."""
    for record in reversed(review.review_records(attempt_id)):
        if record.action == "undo_review":
            return None
        if record.action in actions:
            return record
    return None


@tracer.capture_method
def undo_attempt_review(
    attempt_id: str, reviewer: str, request: UndoRequest, reviewer_name: str | None = None
) -> AttemptReviewed:
    """Undo the attempt's latest accept, override (or confirmed proposal): its score, state and review
    fields as they were, its ability re-scored back, the exemplar that review stored taken away.
    Refused if the attempt changed since. A confirmed change to a final grade is undone only by
    one of the two reviewers who made it: either could have refused it in the first place, so
    the undo gives no one reviewer a power over a final grade they did not have."""
    attempt = review.attempt_by_id(attempt_id)
    if attempt is None:
        raise NotFound("ATTEMPT_NOT_FOUND", f"attempt {attempt_id} not found")
    if same_user(attempt.user_id, reviewer):
        raise Forbidden("OWN_ATTEMPT", f"attempt {attempt_id} is your own: another reviewer must review it")
    record = latest_review(attempt_id, _UNDOABLE)
    if record is None:
        raise Conflict("NOTHING_TO_UNDO", f"attempt {attempt_id} has no review to undo")
    if record.action == "confirm" and not (same_user(record.who, reviewer) or same_user(record.proposed_by, reviewer)):
        raise Forbidden("NOT_YOUR_CHANGE", f"the change to attempt {attempt_id} is undone by the reviewers who made it")
    return undo_review(attempt, record, reviewer, reviewer_name, request.note)


def undo_review(
    attempt: StoredAttempt,
    record: review.ReviewRecord,
    reviewer: str,
    reviewer_name: str | None,
    note: str | None,
    *,
    group_id: str | None = None,
) -> AttemptReviewed:
    """Put the attempt back as the review `record` found it, in one transaction with its audit
    record, the counters, the question's correct count, the ability and the exemplar; Conflict
    (ATTEMPT_CHANGED) if the attempt is no longer as that review left it."""
    attempt_id = str(attempt.attempt_id)
    current = (attempt.score, attempt.is_correct)
    after = (record.after_score if record.after_score is not None else -1, record.after_correct)
    if (
        attempt.reviewed_at != record.at
        or attempt.review_action != record.action
        or current != after
        or attempt.proposal
    ):
        raise Conflict("ATTEMPT_CHANGED", f"attempt {attempt_id} was reviewed again since: undo that first")
    now, before = utc_now(), review_writes.grade_before(record)
    reviewed = before.reviewed
    reopening = before.needs_review and not reviewed  # a provisional grade again: back in the queue
    # ... and waiting again in its ability's pending_review, if the review took it off
    pending = ability_recording.pending_change(attempt, reopening=True) if reopening else 0
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, "undo_review")
    items = [
        review_writes.undo_grade(
            attempt,
            record,
            before,
            now_counted=ability_recording.counted_of(attempt),
            requeue_at=(attempt.graded_at or now) if reopening else None,
            restore_pending=bool(pending),
        ),
        *correct_count_items(attempt, current[1], before.is_correct),
        attempt_audit(
            attempt,
            stamp,
            {"score": current[0], "is_correct": current[1], "reviewed": True},
            {
                "score": before.score,
                "is_correct": before.is_correct,
                "needs_review": before.needs_review,
                "reviewed": reviewed,
                "undid": record.action,
                "undid_at": record.at,
            },
            note,
            changed=True,
            **({"group_id": group_id} if group_id else {}),
        ),
        review.count("reviewed", "accepted" if record.action == "accept" else "overridden", by=-1),
        *exemplar_restores(attempt, previous_verdict=(before.score, before.is_correct) if reviewed else None),
    ]
    commit_rescored(items, attempt, before.counted, pending)
    if before.is_correct != current[1] and attempt.question_id:
        refresh_stats_flag(attempt.question_id)
    logger.info("review undone", extra={"attempt_id": attempt_id, "undid": record.action})
    return AttemptReviewed(
        attempt_id=attempt_id,
        action="undo",
        status="undone",
        score=before.score,
        is_correct=before.is_correct,
        previous_score=current[0],
        reviewed_by=reviewer,
        reviewed_by_name=stamp.by_name,
        reviewed_at=now,
    )
