"""A reviewer's grade of an attempt: accept or override it, and a second reviewer's confirmation
(or rejection) of a proposed change to a final grade. Bulk accepts are in slea.logic.review.bulk,
undoing a review in slea.logic.review.undo, questions' actions in
slea.logic.review.question_actions, the trail as reviewers read it in slea.logic.review.trail.

Every action is recorded with who, when, before, after and the reviewer's note, in the same
transaction that applies it (slea.dal.review, its writes in slea.dal.review_writes). The grading
path is not imported here."""

from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.review import AttemptAction, AttemptReviewed, AttemptReviewRequest
from slea.dal import review, review_writes
from slea.dal.attempts import AttemptProposal, StoredAttempt
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_writes
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.logic.review.transactions import (
    attempt_audit,
    commit_rescored,
    commit_reviewed,
    correct_count_items,
    refresh_stats_flag,
    review_state,
)
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, Forbidden, NotFound
from slea.platform.observability import logger, metrics, tracer


def provisional(attempt: StoredAttempt) -> bool:
    """A grade the grader was unsure of and no reviewer has settled: one reviewer may change it.
    Any other grade is final: changing it takes two reviewers (a proposal and a confirmation)."""
    return attempt.needs_review is True and not attempt.reviewed


@tracer.capture_method
def review_attempt(
    attempt_id: str,
    reviewer: str,
    request: AttemptReviewRequest,
    reviewer_name: str | None = None,
    *,
    attempt: StoredAttempt | None = None,
    first_review: bool = False,
    group_id: str | None = None,
    bulk_id: str | None = None,
) -> AttemptReviewed:
    """Accept keeps the grade; override corrects the score, `is_correct` (pass mark 80, as Tool 6)
    and the question's correct count. Either way the learner's ability is re-scored from what it
    counted (a provisional grade: by the pending rule, ability_update.counted_score) to the
    reviewed score, its pending_review count loses the grade, and the attempt leaves the queue.
    `first_review`: only if no review has been applied yet (bulk accept: two reviewers accepting
    at once count it once).

    A final grade (not provisional) is not changed by one reviewer: their override is recorded
    as a proposal, and a different reviewer confirms (applies) or rejects it."""
    attempt = attempt or review.attempt_by_id(attempt_id)  # bulk_accept has read it
    if attempt is None:
        raise NotFound("ATTEMPT_NOT_FOUND", f"attempt {attempt_id} not found")
    if same_user(attempt.user_id, reviewer):
        raise Forbidden("OWN_ATTEMPT", f"attempt {attempt_id} is your own: another reviewer must review it")
    if request.action in ("confirm", "reject"):
        return decide_proposal(attempt, reviewer, request, reviewer_name)
    if attempt.proposal:
        raise Conflict("OVERRIDE_PROPOSED", f"attempt {attempt_id} has a proposed change: confirm or reject it")
    if request.action == "accept" and attempt.reviewed:
        # A repeat (a second click, a retry, a second tab) neither counts nor records it again.
        raise Conflict("ALREADY_REVIEWED", f"attempt {attempt_id} was reviewed already: its grade stands")
    if request.action == "override" and not provisional(attempt):
        return propose_override(attempt, reviewer, request, reviewer_name)
    return apply_grade(
        attempt,
        reviewer,
        reviewer_name,
        request.action,
        int(request.score or 0) if request.action == "override" else None,
        request.note,
        first_review=first_review,
        bulk_id=bulk_id,
        group_id=group_id,
    )


def apply_grade(  # noqa: PLR0917 - the review's parts, passed on by each kind of review
    attempt: StoredAttempt,
    reviewer: str,
    reviewer_name: str | None,
    action: AttemptAction,
    new_score: int | None,
    note: str | None,
    *,
    first_review: bool = False,
    bulk_id: str | None = None,
    group_id: str | None = None,
    proposal: AttemptProposal | None = None,
) -> AttemptReviewed:
    """Apply a review: `new_score` None keeps the grade (accept). With `proposal`, the grade is a
    confirmed proposal: applied only if that proposal is still the one pending."""
    now, previous, was_correct = utc_now(), attempt.score, attempt.is_correct
    score = previous if new_score is None else new_score
    is_correct = was_correct if new_score is None else score >= HIGH_SCORE_THRESHOLD
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, action)
    # No longer counted in the ability's pending_review (taken off with the re-scoring).
    pending = ability_recording.pending_change(attempt)
    items = [
        review_writes.apply_grade(
            attempt,
            stamp,
            score=score,
            is_correct=is_correct,
            counted=ability_recording.counted_of(attempt),
            note=note if new_score is not None else None,  # the learner sees why their grade changed
            clear_pending=bool(pending),
            first_review=first_review,
            proposed_at=proposal.at if proposal is not None else None,
        ),
        *correct_count_items(attempt, was_correct, is_correct),
    ]
    after: dict[str, Any] = {"score": score, "is_correct": is_correct, "needs_review": False}
    if proposal is not None:
        after |= {"proposed_by": proposal.by, "proposed_by_name": proposal.by_name}
    before = {"score": previous, "is_correct": was_correct, "needs_review": attempt.needs_review}
    items.append(
        attempt_audit(
            attempt,
            stamp,
            before | review_state(attempt),  # what an undo puts back
            after,
            note,
            changed=score != previous or is_correct != was_correct,
            bulk_id=bulk_id,
            **({"group_id": group_id} if group_id else {}),  # one action graded the whole group
        )
    )
    counted = {"reviewed": 1, "accepted" if new_score is None else "overridden": 1}
    items.append(review.adjust(counted | ({"proposals": -1} if proposal is not None else {})))
    items.extend(exemplar_writes(attempt, score, is_correct))
    commit_rescored(items, attempt, score, pending)
    metrics.add_metric(name="GradesAccepted" if new_score is None else "GradesOverridden", unit="Count", value=1)
    if is_correct != was_correct and attempt.question_id:
        refresh_stats_flag(attempt.question_id)
    return AttemptReviewed(
        attempt_id=str(attempt.attempt_id),
        action=action,
        score=score,
        is_correct=is_correct,
        previous_score=previous,
        reviewed_by=reviewer,
        reviewed_by_name=stamp.by_name,
        reviewed_at=now,
    )


def propose_override(
    attempt: StoredAttempt, reviewer: str, request: AttemptReviewRequest, reviewer_name: str | None = None
) -> AttemptReviewed:
    """A change to a final grade, recorded (and audited) but not applied: the attempt joins the
    queue for a different reviewer to confirm or reject. One proposal at a time."""
    attempt_id, now = str(attempt.attempt_id), utc_now()
    previous, was_correct = attempt.score, attempt.is_correct
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, "propose_override")
    proposal = AttemptProposal(int(request.score or 0), reviewer, stamp.by_name, now, request.note or "")
    items = [
        review_writes.propose_grade(attempt, proposal),
        attempt_audit(
            attempt,
            stamp,
            {"score": previous, "is_correct": was_correct},
            {"proposed_score": proposal.score, "applied": False},
            request.note,
        ),
        review.count("proposals"),
    ]
    commit_reviewed(items, f"attempt {attempt_id}")
    logger.info("override proposed", extra={"attempt_id": attempt_id})
    return AttemptReviewed(
        attempt_id=attempt_id,
        action="override",
        status="proposed",
        score=previous,
        is_correct=was_correct,
        previous_score=previous,
        reviewed_by=reviewer,
        reviewed_by_name=stamp.by_name,
        reviewed_at=now,
    )


def decide_proposal(
    attempt: StoredAttempt, reviewer: str, request: AttemptReviewRequest, reviewer_name: str | None = None
) -> AttemptReviewed:
    """A second reviewer confirms (applies, with the proposer's reason) or rejects a proposed
    change to a final grade; the reviewer who proposed it can do neither."""
    attempt_id = str(attempt.attempt_id)
    proposal = attempt.proposed_change
    if proposal is None:
        raise Conflict("NO_PROPOSAL", f"attempt {attempt_id} has no proposed change to {request.action}")
    if same_user(proposal.by, reviewer):
        raise Forbidden("OWN_PROPOSAL", f"you proposed this change to attempt {attempt_id}: another reviewer decides")
    if request.action == "confirm":
        note = proposal.note or request.note
        return apply_grade(attempt, reviewer, reviewer_name, "confirm", proposal.score, note, proposal=proposal)
    now, previous = utc_now(), attempt.score
    stamp = review_writes.Stamp(reviewer, reviewer_name or reviewer, now, "reject_override")
    items = [
        review_writes.reject_proposal(attempt, proposal.at),
        attempt_audit(
            attempt,
            stamp,
            {"score": previous, "proposed_score": proposal.score},
            {"score": previous, "proposed_by": proposal.by, "proposed_by_name": proposal.by_name},
            request.note,
            changed=False,
        ),
        review.count("proposals", by=-1),
    ]
    commit_reviewed(items, f"attempt {attempt_id}")
    return AttemptReviewed(
        attempt_id=attempt_id,
        action="reject",
        status="rejected",
        score=previous,
        is_correct=attempt.is_correct,
        previous_score=previous,
        reviewed_by=reviewer,
        reviewed_by_name=stamp.by_name,
        reviewed_at=now,
    )
