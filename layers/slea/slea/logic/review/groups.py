"""Review groups: the open short answers of a bank item that lean alike (the grader's probability
moved by the item's reviewed answers) or that are worded alike (grouped as they were graded,
slea.logic.answering.exemplars.review_group), listed so a reviewer confirms or splits each group in
one action.

GET /review/groups reads a page of the queue as GET /review/queue does (same filters, same
cursor) and gathers its attempts by group, largest first. POST /review/groups/{group_id} grades
every open member with one score: each member is updated and audited as a review of its own
(ability re-scored, exemplar stored, the audit record naming the group), so one member's
conflict never undoes another's; members in `exclude` are split off and stay in the queue. The
group action is recorded once more under the group's id, listing the members it reviewed, so
POST /review/groups/{group_id}/revert can undo it member by member."""

from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.review import (
    AttemptReviewRequest,
    GroupMemberResult,
    GroupReverted,
    GroupReviewed,
    GroupReviewRequest,
    QueueView,
    ReviewEntry,
    ReviewGroup,
    ReviewGroups,
    UndoRequest,
)
from slea.dal import review
from slea.logic.review.grades import review_attempt
from slea.logic.review.queue import review_queue, same_user
from slea.logic.review.undo import latest_review, undo_review
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DomainError, NotFound
from slea.platform.observability import logger, tracer


@tracer.capture_method
def review_groups(limit: int, cursor: str | None, reviewer: str, view: QueueView) -> ReviewGroups:
    """A page of the queue's provisional grades, by group (an attempt graded before groups existed
    is a group of its own, named by its attempt id)."""
    page = review_queue(limit, cursor, reviewer, view.model_copy(update={"source": "grade"}))
    grouped: dict[str, list[ReviewEntry]] = {}
    for entry in page.entries:
        if entry.attempt is None:
            continue
        grouped.setdefault(entry.attempt.group_id or entry.entry_id, []).append(entry)
    groups = [ReviewGroup(group_id=key, size=len(members), entries=members) for key, members in grouped.items()]
    groups.sort(key=lambda group: -group.size)  # stable: equal sizes keep the queue's order
    return ReviewGroups(groups=groups, open=page.open, next_cursor=page.next_cursor)


@tracer.capture_method
def review_group(group_id: str, reviewer: str, request: GroupReviewRequest, name: str | None = None) -> GroupReviewed:
    members = review.group_members(group_id)
    if not members:
        raise NotFound("GROUP_NOT_FOUND", f"review group {group_id} has no answer waiting")
    excluded = set(request.exclude)
    results: list[GroupMemberResult] = []
    for member in members:
        attempt_id = str(member.attempt_id)
        if attempt_id in excluded:
            results.append(GroupMemberResult(attempt_id=attempt_id, status="excluded"))
            continue
        if same_user(member.user_id, reviewer):
            results.append(GroupMemberResult(attempt_id=attempt_id, status="own_attempt"))
            continue
        action = "accept" if member.score == request.score else "override"
        graded = AttemptReviewRequest(action=action, score=request.score, note=request.note)
        try:
            done = review_attempt(
                attempt_id, reviewer, graded, name, attempt=member, first_review=True, group_id=group_id
            )
        except DomainError as error:
            status = "already_reviewed" if error.code in {"REVIEW_CONFLICT", "ALREADY_REVIEWED"} else "conflict"
            results.append(GroupMemberResult(attempt_id=attempt_id, status=status, message=error.message))
            continue
        results.append(GroupMemberResult(attempt_id=attempt_id, status="reviewed", score=done.score))
    reviewed = sum(result.status == "reviewed" for result in results)
    if reviewed:
        _record_group(
            group_id,
            "group_grade",
            reviewer,
            name,
            request.note,
            {"score": request.score, "reviewed": [r.attempt_id for r in results if r.status == "reviewed"]},
        )
    logger.info("review group graded", extra={"group_id": group_id, "members": len(members), "reviewed": reviewed})
    return GroupReviewed(
        group_id=group_id,
        score=request.score,
        is_correct=request.score >= HIGH_SCORE_THRESHOLD,
        reviewed=reviewed,
        results=results,
    )


def _record_group(  # noqa: PLR0917 - the record's parts
    group_id: str, action: str, reviewer: str, name: str | None, note: str | None, after: dict[str, Any]
) -> None:
    review.commit(
        [
            review.audit_record(
                {
                    "target_id": group_id,
                    "target_kind": "group",
                    "action": action,
                    "who": reviewer,
                    "who_name": name or reviewer,
                    "at": utc_now(),
                    "before": {},
                    "after": after,
                    "note": note,
                    "group_id": group_id,
                }
            )
        ]
    )


@tracer.capture_method
def revert_group(group_id: str, reviewer: str, request: UndoRequest, name: str | None = None) -> GroupReverted:
    """Undo the group's latest group grade: each member it reviewed back as it was (a provisional
    grade back in the queue, its ability re-scored, its exemplar taken away), each in its own
    transaction as a bulk revert does; a member reviewed since is kept and reported."""
    records = review.review_records(group_id)
    latest = next((r for r in reversed(records) if r.action in ("group_grade", "revert_group")), None)
    if latest is None:
        raise NotFound("GROUP_GRADE_NOT_FOUND", f"review group {group_id} was never graded in one action")
    if latest.action == "revert_group":
        raise Conflict("GROUP_REVERTED", f"the latest grade of review group {group_id} was already reverted")
    reverted: list[str] = []
    kept: list[str] = []
    for attempt_id in latest.reviewed:
        attempt = review.attempt_by_id(attempt_id)
        record = latest_review(attempt_id, ("accept", "override"))
        if attempt is None or record is None or record.group_id != group_id:
            kept.append(attempt_id)
            continue
        try:
            undo_review(attempt, record, reviewer, name, request.note, group_id=group_id)
        except DomainError:  # reviewed again since, or changed while this ran
            kept.append(attempt_id)
            continue
        reverted.append(attempt_id)
    _record_group(
        group_id,
        "revert_group",
        reviewer,
        name,
        request.note,
        {"reverted": reverted, "kept": kept, "undid_at": latest.at},
    )
    logger.info("group grade reverted", extra={"group_id": group_id, "reverted": len(reverted), "kept": len(kept)})
    return GroupReverted(group_id=group_id, reverted=reverted, kept=kept)
