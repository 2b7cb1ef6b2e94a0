"""Bulk accepts of attempts' grades, each attempt in a transaction of its own, and their revert.
A bulk is recorded once more under its own id (kind "bulk"), listing what it accepted."""

import uuid
from typing import Any

from slea.contracts.review import (
    AttemptReviewRequest,
    BulkAccepted,
    BulkAcceptRequest,
    BulkAcceptResult,
    BulkReverted,
    UndoRequest,
)
from slea.dal import review, review_writes
from slea.dal.attempts import StoredAttempt
from slea.dal.review import ReviewRecord
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_removals
from slea.logic.review.grades import provisional, review_attempt
from slea.logic.review.transactions import attempt_audit, commit_reviewed
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DomainError, NotFound
from slea.platform.observability import logger, tracer

_BULK_STATUS = {"ATTEMPT_NOT_FOUND": "not_found", "OWN_ATTEMPT": "own_attempt"}


def _record_bulk(bulk_id: str, action: str, reviewer: str, name: str | None, **record: Any) -> None:
    """The bulk's own audit record (its before, after, note ...), committed on its own."""
    commit_reviewed(
        [
            review.audit_record(
                {
                    "target_id": bulk_id,
                    "target_kind": "bulk",
                    "action": action,
                    "who": reviewer,
                    "who_name": name or reviewer,
                    "at": utc_now(),
                    **record,
                    "bulk_id": bulk_id,
                }
            )
        ],
        f"bulk accept {bulk_id}",
    )


@tracer.capture_method
def bulk_accept(request: BulkAcceptRequest, reviewer: str, name: str | None = None) -> BulkAccepted:
    """Accept each attempt's grade as POST /review/attempts/{id} does (one transaction each: an
    attempt is accepted wholly or not at all). An attempt already reviewed is reported and left
    as it is, so sending the same ids again changes nothing. The bulk is recorded under its own
    id, listing what it accepted, so POST /review/bulk/{bulk_id}/revert can undo it."""
    results: list[BulkAcceptResult] = []
    provisional_ids: list[str] = []  # what a revert puts back in the queue
    bulk_id = uuid.uuid4().hex
    accept = AttemptReviewRequest(action="accept", note=request.note)
    for attempt_id in request.attempt_ids:
        stored = review.attempt_by_id(attempt_id)
        if stored is not None and stored.reviewed:
            results.append(BulkAcceptResult(attempt_id=attempt_id, status="already_reviewed", score=stored.score))
            continue
        try:
            done = review_attempt(
                attempt_id, reviewer, accept, name, attempt=stored, first_review=True, bulk_id=bulk_id
            )
        except DomainError as error:
            current = review.attempt_by_id(attempt_id) if error.code == "REVIEW_CONFLICT" else None
            if current is not None and current.reviewed:  # another reviewer was first
                results.append(BulkAcceptResult(attempt_id=attempt_id, status="already_reviewed", score=current.score))
                continue
            status = _BULK_STATUS.get(error.code, "conflict")
            results.append(BulkAcceptResult(attempt_id=attempt_id, status=status, message=error.message))
            continue
        results.append(BulkAcceptResult(attempt_id=attempt_id, status="accepted", score=done.score))
        if stored is not None and provisional(stored):
            provisional_ids.append(attempt_id)
    accepted = [result.attempt_id for result in results if result.status == "accepted"]
    if accepted:
        after = {"accepted": accepted, "provisional": provisional_ids}
        _record_bulk(bulk_id, "bulk_accept", reviewer, name, before={}, after=after, note=request.note, changed=False)
    logger.info("grades accepted in bulk", extra={"asked": len(results), "accepted": len(accepted)})
    return BulkAccepted(results=results, accepted=len(accepted), bulk_id=bulk_id if accepted else None)


@tracer.capture_method
def revert_bulk(bulk_id: str, reviewer: str, request: UndoRequest, name: str | None = None) -> BulkReverted:
    """Undo a bulk accept: each attempt it accepted is unreviewed again (a provisional one back in
    the queue), unless a reviewer has acted on it since (then it is left as it is and kept).
    Each reverted attempt gets its own audit record; the bulk's record notes the revert."""
    records = review.review_records(bulk_id)
    bulk = next((record for record in records if record.action == "bulk_accept"), None)
    if bulk is None:
        raise NotFound("BULK_NOT_FOUND", f"bulk accept {bulk_id} not found")
    if any(record.action == "revert_bulk" for record in records):
        raise Conflict("BULK_REVERTED", f"bulk accept {bulk_id} was already reverted")
    reverted: list[str] = []
    kept: list[str] = []
    for attempt_id in bulk.accepted:
        attempt = review.attempt_by_id(attempt_id)
        if attempt is None or attempt.review_action != "accept" or attempt.proposal:
            kept.append(attempt_id)
            continue
        try:
            _revert_accept(attempt, bulk, bulk_id=bulk_id, reviewer=reviewer, name=name, note=request.note)
        except Conflict:
            kept.append(attempt_id)
            continue
        reverted.append(attempt_id)
    before = {"accepted": list(bulk.accepted)}
    after = {"reverted": reverted, "kept": kept}
    _record_bulk(bulk_id, "revert_bulk", reviewer, name, before=before, after=after, note=request.note)
    return BulkReverted(bulk_id=bulk_id, reverted=reverted, kept=kept)


def _revert_accept(
    attempt: StoredAttempt, bulk: ReviewRecord, *, bulk_id: str, reviewer: str, name: str | None, note: str | None
) -> None:
    """One attempt the bulk `bulk` accepted unreviewed again, in its own transaction; Conflict if
    it changed since it was read."""
    now = utc_now()
    was_provisional = attempt.attempt_id in bulk.provisional
    # Waiting again: counted again in its ability's pending_review, if the accept took it off.
    pending = ability_recording.pending_change(attempt, reopening=True) if was_provisional else 0
    stamp = review_writes.Stamp(reviewer, name or reviewer, now, "revert_accept")
    items = [
        review_writes.revert_accept(
            attempt,
            bulk.who or "",
            requeue_at=(attempt.graded_at or now) if was_provisional else None,
            restore_pending=bool(pending),
        ),
        attempt_audit(
            attempt,
            stamp,
            {"score": attempt.score, "reviewed": True},
            {"score": attempt.score, "reviewed": False, "needs_review": was_provisional},
            note,
            changed=False,
            bulk_id=bulk_id,
        ),
        review.count("reviewed", "accepted", by=-1),
        *exemplar_removals(attempt),  # the undone accept no longer grades other answers
        *ability_recording.rescore_items(attempt, ability_recording.counted_of(attempt), now, pending=pending),
    ]
    commit_reviewed(items, f"attempt {attempt.attempt_id}")
