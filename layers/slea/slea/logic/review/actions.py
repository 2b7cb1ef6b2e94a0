"""The human review loop's actions on attempts: accept or override a grade, a second reviewer's
confirmation of a change to a final grade, bulk accepts, and their undo. Questions' actions are in
slea.logic.review.question_actions, the trail as reviewers read it in slea.logic.review.trail.

Every action is recorded with who, when, before, after and the reviewer's note, in the same
transaction that applies it (slea.dal.review). The grading path is not imported here."""

import re
import uuid
from collections.abc import Mapping
from typing import Any

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.review import (
    AttemptAction,
    AttemptReviewed,
    AttemptReviewRequest,
    BulkAccepted,
    BulkAcceptRequest,
    BulkAcceptResult,
    BulkReverted,
    UndoRequest,
)
from slea.dal import review, sessions
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_removals, exemplar_restores, exemplar_writes
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DomainError, Forbidden, NotFound
from slea.platform.observability import logger, metrics, tracer
from slea.security import names

QUEUE_FIELDS = "REMOVE review_state, queued_at"
REVIEWER_NAME_MAX = names.NAME_MAX
display_name = names.display_name  # the reviewer's name recorded with an action
_SPACES = re.compile(r"\s+")


# ---------------------------------------------------------------- attempts
def commit_reviewed(items: list[dict[str, Any]], target: str, refusals: Mapping[int, Conflict] | None = None) -> None:
    """Commit the review's transaction. `refusals`: the error to raise when the condition of the
    item at that position failed (a claim another item holds), rather than "it changed"."""
    try:
        review.commit(items)
    except review.ReviewConflictError as error:
        for position, refusal in (refusals or {}).items():
            if position in error.failed:
                raise refusal from error
        raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error


def provisional(attempt: Mapping[str, Any]) -> bool:
    """A grade the grader was unsure of and no reviewer has settled: one reviewer may change it.
    Any other grade is final: changing it takes two reviewers (a proposal and a confirmation)."""
    return attempt.get("needs_review") is True and not attempt.get("reviewed")


STEM_SHOWN = 160  # characters of an item's stem kept with an audit record


def short_stem(stem: Any) -> str | None:
    text = _SPACES.sub(" ", stem).strip() if isinstance(stem, str) else ""
    return (text[: STEM_SHOWN - 1] + "…" if len(text) > STEM_SHOWN else text) or None


def _attempt_context(attempt: Mapping[str, Any]) -> dict[str, Any]:
    """What an audit row shows of an attempt: its question, learner and session. The attempt kept
    the stem the learner saw; only an older attempt without it costs a read of the question."""
    stem = attempt.get("question_stem")
    if not stem and attempt.get("question_id"):
        stem = (review.get_question(str(attempt["question_id"])) or {}).get("stem")
    return {
        "stem": short_stem(stem),
        "question_id": attempt.get("question_id"),
        "session_id": attempt.get("session_id"),
        "learner_id": attempt.get("user_id"),
        "learner_name": sessions.owner_name(str(attempt["session_id"])) if attempt.get("session_id") else None,
    }


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
    if same_user(attempt.get("user_id"), reviewer):
        raise Forbidden("OWN_ATTEMPT", f"attempt {attempt_id} is your own: another reviewer must review it")
    if request.action in ("confirm", "reject"):
        return decide_proposal(attempt, reviewer, request, reviewer_name)
    if attempt.get("proposal"):
        raise Conflict("OVERRIDE_PROPOSED", f"attempt {attempt_id} has a proposed change: confirm or reject it")
    if request.action == "accept" and attempt.get("reviewed"):
        # A repeat (a second click, a retry, a second tab) neither counts nor records it again.
        raise Conflict("ALREADY_REVIEWED", f"attempt {attempt_id} was reviewed already: its grade stands")
    if request.action == "override" and not provisional(attempt):
        return propose_override(attempt, reviewer, request, reviewer_name)
    return _apply_grade(
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


def _apply_grade(  # noqa: PLR0917 - the review's parts, passed on by each kind of review
    attempt: dict[str, Any],
    reviewer: str,
    reviewer_name: str | None,
    action: AttemptAction,
    new_score: int | None,
    note: str | None,
    *,
    first_review: bool = False,
    bulk_id: str | None = None,
    group_id: str | None = None,
    proposal: Mapping[str, Any] | None = None,
) -> AttemptReviewed:
    """Apply a review: `new_score` None keeps the grade (accept). With `proposal`, the grade is a
    confirmed proposal: applied only if that proposal is still the one pending."""
    attempt_id = str(attempt["attempt_id"])
    now, previous, was_correct = utc_now(), int(attempt["score"]), bool(attempt["is_correct"])
    score = previous if new_score is None else new_score
    is_correct = was_correct if new_score is None else score >= HIGH_SCORE_THRESHOLD
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
        ":action": action,
        ":counted": ability_recording.counted_of(attempt),
    }
    setting = (
        "SET score = :score, is_correct = :correct, original_score = if_not_exists(original_score, :previous), "
        "reviewed = :true, needs_review = :false, reviewed_by = :by, reviewed_by_name = :by_name, "
        # The ability now counts the reviewed score (a provisional grade counted 0 until now).
        "reviewed_at = :at, review_action = :action, ability_score = :score"
    )
    pending = ability_recording.pending_change(attempt)
    if pending:  # no longer counted in the ability's pending_review (taken off with the re-scoring)
        setting += ", ability_pending = :false"
    if new_score is not None and note:  # the learner sees why their grade changed
        setting += ", review_note = :note"
        values[":note"] = note
    # The grade the reviewer saw is still the grade, and the ability still counts what was read:
    # two reviews (two accepts included) never both apply.
    condition = (
        "score = :previous AND is_correct = :was_correct "
        "AND (attribute_not_exists(ability_score) OR ability_score = :counted)"
    )
    if first_review:
        condition += " AND (attribute_not_exists(reviewed) OR reviewed = :false)"
    removing = QUEUE_FIELDS
    if proposal is not None:
        condition += " AND proposal.#at = :proposed_at"
        values[":proposed_at"] = proposal["at"]
        removing += ", proposal"
    else:
        condition += " AND attribute_not_exists(proposal)"
    items = [
        review.update(
            review.ATTEMPTS_TABLE,
            {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
            f"{setting} {removing}",
            condition,
            values,
            names={"#at": "at"} if proposal is not None else None,
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
    after: dict[str, Any] = {"score": score, "is_correct": is_correct, "needs_review": False}
    if proposal is not None:
        after |= {"proposed_by": proposal.get("by"), "proposed_by_name": proposal.get("by_name")}
    items.append(
        review.audit_record(
            {
                "target_id": attempt_id,
                "target_kind": "attempt",
                "action": action,
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {
                    "score": previous,
                    "is_correct": was_correct,
                    "needs_review": attempt.get("needs_review"),
                    **_review_state(attempt),  # what an undo puts back
                },
                "after": after,
                "note": note,
                "changed": score != previous or is_correct != was_correct,
                "bulk_id": bulk_id,
                **({"group_id": group_id} if group_id else {}),  # one action graded the whole group
                **_attempt_context(attempt),
            }
        )
    )
    counted = {"reviewed": 1, "accepted" if new_score is None else "overridden": 1}
    items.append(review.adjust(counted | ({"proposals": -1} if proposal is not None else {})))
    items.extend(exemplar_writes(attempt, score, is_correct))
    _commit_rescored(items, attempt, score, pending)
    if new_score is None:
        metrics.add_metric(name="GradesAccepted", unit="Count", value=1)
    else:
        metrics.add_metric(name="GradesOverridden", unit="Count", value=1)
    if is_correct != was_correct:
        _refresh_stats_flag(attempt["question_id"])
    return AttemptReviewed(
        attempt_id=attempt_id,
        action=action,
        score=score,
        is_correct=is_correct,
        previous_score=previous,
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


_REVIEW_FIELDS = ("reviewed", "reviewed_by", "reviewed_by_name", "reviewed_at", "review_action", "review_note")


def _review_state(attempt: dict[str, Any]) -> dict[str, Any]:
    """The attempt's review fields as a review found them, kept in its audit record so that
    undoing the review restores them (None: the attempt had no such field)."""
    return {
        "review": {field: attempt.get(field) for field in _REVIEW_FIELDS},
        "counted": ability_recording.counted_of(attempt),
        "had_original_score": "original_score" in attempt,
    }


def propose_override(
    attempt: dict[str, Any], reviewer: str, request: AttemptReviewRequest, reviewer_name: str | None = None
) -> AttemptReviewed:
    """A change to a final grade, recorded (and audited) but not applied: the attempt joins the
    queue for a different reviewer to confirm or reject. One proposal at a time."""
    attempt_id, now = str(attempt["attempt_id"]), utc_now()
    previous, was_correct = int(attempt["score"]), bool(attempt["is_correct"])
    proposal = {
        "score": int(request.score or 0),
        "by": reviewer,
        "by_name": reviewer_name or reviewer,
        "at": now,
        "note": request.note or "",
    }
    items = [
        review.update(
            review.ATTEMPTS_TABLE,
            {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
            "SET proposal = :proposal, review_state = :open, queued_at = :at",
            "score = :previous AND is_correct = :was_correct AND attribute_not_exists(proposal)",
            {
                ":proposal": proposal,
                ":open": review.OPEN,
                ":at": now,
                ":previous": previous,
                ":was_correct": was_correct,
            },
        ),
        review.audit_record(
            {
                "target_id": attempt_id,
                "target_kind": "attempt",
                "action": "propose_override",
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {"score": previous, "is_correct": was_correct},
                "after": {"proposed_score": proposal["score"], "applied": False},
                "note": request.note,
                **_attempt_context(attempt),
            }
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
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


def decide_proposal(
    attempt: dict[str, Any], reviewer: str, request: AttemptReviewRequest, reviewer_name: str | None = None
) -> AttemptReviewed:
    """A second reviewer confirms (applies, with the proposer's reason) or rejects a proposed
    change to a final grade; the reviewer who proposed it can do neither."""
    attempt_id = str(attempt["attempt_id"])
    proposal = attempt.get("proposal")
    if not isinstance(proposal, dict):
        raise Conflict("NO_PROPOSAL", f"attempt {attempt_id} has no proposed change to {request.action}")
    if same_user(proposal.get("by"), reviewer):
        raise Forbidden("OWN_PROPOSAL", f"you proposed this change to attempt {attempt_id}: another reviewer decides")
    if request.action == "confirm":
        note = str(proposal.get("note") or "") or request.note
        return _apply_grade(
            attempt, reviewer, reviewer_name, "confirm", int(proposal["score"]), note, proposal=proposal
        )
    now, previous = utc_now(), int(attempt["score"])
    items = [
        review.update(
            review.ATTEMPTS_TABLE,
            {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
            f"REMOVE proposal, {QUEUE_FIELDS.removeprefix('REMOVE ')}",
            "proposal.#at = :proposed_at",
            {":proposed_at": proposal["at"]},
            names={"#at": "at"},
        ),
        review.audit_record(
            {
                "target_id": attempt_id,
                "target_kind": "attempt",
                "action": "reject_override",
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {"score": previous, "proposed_score": proposal.get("score")},
                "after": {
                    "score": previous,
                    "proposed_by": proposal.get("by"),
                    "proposed_by_name": proposal.get("by_name"),
                },
                "note": request.note,
                "changed": False,
                **_attempt_context(attempt),
            }
        ),
        review.count("proposals", by=-1),
    ]
    commit_reviewed(items, f"attempt {attempt_id}")
    return AttemptReviewed(
        attempt_id=attempt_id,
        action="reject",
        status="rejected",
        score=previous,
        is_correct=bool(attempt["is_correct"]),
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
    as it is, so sending the same ids again changes nothing. The bulk is recorded under its own
    id, listing what it accepted, so POST /review/bulk/{bulk_id}/revert can undo it."""
    results: list[BulkAcceptResult] = []
    provisional_ids: list[str] = []  # what a revert puts back in the queue
    bulk_id = uuid.uuid4().hex
    accept = AttemptReviewRequest(action="accept", note=request.note)
    for attempt_id in request.attempt_ids:
        stored = review.attempt_by_id(attempt_id)
        if stored is not None and stored.get("reviewed"):
            results.append(BulkAcceptResult(attempt_id=attempt_id, status="already_reviewed", score=stored["score"]))
            continue
        try:
            done = review_attempt(
                attempt_id, reviewer, accept, name, attempt=stored, first_review=True, bulk_id=bulk_id
            )
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
        if stored is not None and provisional(stored):
            provisional_ids.append(attempt_id)
    accepted = [result.attempt_id for result in results if result.status == "accepted"]
    if accepted:
        commit_reviewed(
            [
                review.audit_record(
                    {
                        "target_id": bulk_id,
                        "target_kind": "bulk",
                        "action": "bulk_accept",
                        "who": reviewer,
                        "who_name": name or reviewer,
                        "at": utc_now(),
                        "before": {},
                        "after": {"accepted": accepted, "provisional": provisional_ids},
                        "note": request.note,
                        "changed": False,
                        "bulk_id": bulk_id,
                    }
                )
            ],
            f"bulk accept {bulk_id}",
        )
    logger.info("grades accepted in bulk", extra={"asked": len(results), "accepted": len(accepted)})
    return BulkAccepted(results=results, accepted=len(accepted), bulk_id=bulk_id if accepted else None)


@tracer.capture_method
def revert_bulk(bulk_id: str, reviewer: str, request: UndoRequest, name: str | None = None) -> BulkReverted:
    """Undo a bulk accept: each attempt it accepted is unreviewed again (a provisional one back in
    the queue), unless a reviewer has acted on it since (then it is left as it is and kept).
    Each reverted attempt gets its own audit record; the bulk's record notes the revert."""
    records = review.audit_records(bulk_id)
    bulk = next((record for record in records if record.get("action") == "bulk_accept"), None)
    if bulk is None:
        raise NotFound("BULK_NOT_FOUND", f"bulk accept {bulk_id} not found")
    if any(record.get("action") == "revert_bulk" for record in records):
        raise Conflict("BULK_REVERTED", f"bulk accept {bulk_id} was already reverted")
    reverted: list[str] = []
    kept: list[str] = []
    for attempt_id in (bulk.get("after") or {}).get("accepted") or []:
        attempt = review.attempt_by_id(str(attempt_id))
        if attempt is None or attempt.get("review_action") != "accept" or attempt.get("proposal"):
            kept.append(str(attempt_id))
            continue
        now = utc_now()
        was_provisional = attempt_id in ((bulk.get("after") or {}).get("provisional") or [])
        reopening = ", needs_review = :true, review_state = :open, queued_at = :queued" if was_provisional else ""
        # Waiting again: counted again in its ability's pending_review, if the accept took it off.
        pending = ability_recording.pending_change(attempt, reopening=True) if was_provisional else 0
        if pending:
            reopening += ", ability_pending = :true"
        items = [
            review.update(
                review.ATTEMPTS_TABLE,
                {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
                f"SET reviewed = :false{reopening} REMOVE reviewed_by, reviewed_by_name, reviewed_at, review_action",
                # Still as the bulk left it: accepted by that reviewer, at that grade.
                "review_action = :accept AND reviewed_by = :by AND score = :score",
                {":false": False, ":accept": "accept", ":by": bulk["who"], ":score": attempt["score"]}
                | (
                    {":true": True, ":open": review.OPEN, ":queued": attempt.get("graded_at") or now}
                    if was_provisional
                    else {}
                ),
            ),
            review.audit_record(
                {
                    "target_id": str(attempt_id),
                    "target_kind": "attempt",
                    "action": "revert_accept",
                    "who": reviewer,
                    "who_name": name or reviewer,
                    "at": now,
                    "before": {"score": attempt["score"], "reviewed": True},
                    "after": {"score": attempt["score"], "reviewed": False, "needs_review": was_provisional},
                    "note": request.note,
                    "changed": False,
                    "bulk_id": bulk_id,
                    **_attempt_context(attempt),
                }
            ),
            review.count("reviewed", "accepted", by=-1),
            *exemplar_removals(attempt),  # the undone accept no longer grades other answers
            *ability_recording.rescore_items(attempt, ability_recording.counted_of(attempt), now, pending=pending),
        ]
        try:
            commit_reviewed(items, f"attempt {attempt_id}")
        except Conflict:
            kept.append(str(attempt_id))
            continue
        reverted.append(str(attempt_id))
    commit_reviewed(
        [
            review.audit_record(
                {
                    "target_id": bulk_id,
                    "target_kind": "bulk",
                    "action": "revert_bulk",
                    "who": reviewer,
                    "who_name": name or reviewer,
                    "at": utc_now(),
                    "before": {"accepted": (bulk.get("after") or {}).get("accepted") or []},
                    "after": {"reverted": reverted, "kept": kept},
                    "note": request.note,
                    "bulk_id": bulk_id,
                }
            )
        ],
        f"bulk accept {bulk_id}",
    )
    return BulkReverted(bulk_id=bulk_id, reverted=reverted, kept=kept)


# One review of one attempt (an accept too: it made a provisional grade final); a group's reviews
# are undone by the group, a bulk accept's by the bulk.
_UNDOABLE = ("override", "confirm", "accept")


def latest_review(attempt_id: str, actions: tuple[str, ...]) -> dict[str, Any] | None:
    """The attempt's latest review of one of `actions`, unless an undo came after it."""
    for record in reversed(review.audit_records(attempt_id)):
        if record.get("action") == "undo_review":
            return None
        if record.get("action") in actions:
            return dict(record)
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
    if same_user(attempt.get("user_id"), reviewer):
        raise Forbidden("OWN_ATTEMPT", f"attempt {attempt_id} is your own: another reviewer must review it")
    record = latest_review(attempt_id, _UNDOABLE)
    if record is None:
        raise Conflict("NOTHING_TO_UNDO", f"attempt {attempt_id} has no review to undo")
    if record.get("action") == "confirm" and not (
        same_user(record.get("who"), reviewer) or same_user((record.get("after") or {}).get("proposed_by"), reviewer)
    ):
        raise Forbidden("NOT_YOUR_CHANGE", f"the change to attempt {attempt_id} is undone by the reviewers who made it")
    return undo_review(attempt, record, reviewer, reviewer_name, request.note)


def undo_review(
    attempt: dict[str, Any],
    record: Mapping[str, Any],
    reviewer: str,
    reviewer_name: str | None,
    note: str | None,
    *,
    group_id: str | None = None,
) -> AttemptReviewed:
    """Put the attempt back as the review `record` found it, in one transaction with its audit
    record, the counters, the question's correct count, the ability and the exemplar; Conflict
    (ATTEMPT_CHANGED) if the attempt is no longer as that review left it."""
    attempt_id = str(attempt["attempt_id"])
    before, after = record.get("before") or {}, record.get("after") or {}
    current = (int(attempt["score"]), bool(attempt["is_correct"]))
    if (
        attempt.get("reviewed_at") != record.get("at")
        or attempt.get("review_action") != record.get("action")
        or current != (int(after.get("score", -1)), bool(after.get("is_correct")))
        or attempt.get("proposal")
    ):
        raise Conflict("ATTEMPT_CHANGED", f"attempt {attempt_id} was reviewed again since: undo that first")
    now, score, is_correct = utc_now(), int(before["score"]), bool(before["is_correct"])
    needs_review = bool(before.get("needs_review"))
    previous = before.get("review") or {}
    reviewed = bool(previous.get("reviewed"))
    # Records written before they kept the counted score: a provisional grade counted 0.
    counted = int(before["counted"]) if "counted" in before else (0 if needs_review and not reviewed else score)
    values: dict[str, Any] = {
        ":score": score,
        ":correct": is_correct,
        ":needs": needs_review,
        ":counted": counted,
        ":reviewed": reviewed,
        ":at": record["at"],
        ":action": record["action"],
        ":now_score": current[0],
        ":now_counted": ability_recording.counted_of(attempt),
    }
    setting = [
        "score = :score",
        "is_correct = :correct",
        "needs_review = :needs",
        "ability_score = :counted",
        "reviewed = :reviewed",
    ]
    removing: list[str] = []
    for field in _REVIEW_FIELDS[1:]:
        if previous.get(field) is not None:
            setting.append(f"{field} = :{field}")
            values[f":{field}"] = previous[field]
        else:
            removing.append(field)
    if not before.get("had_original_score", True):
        removing.append("original_score")
    pending = 0
    if needs_review and not reviewed:  # a provisional grade again: back in the queue
        setting += ["review_state = :open", "queued_at = :queued"]
        values |= {":open": review.OPEN, ":queued": attempt.get("graded_at") or now}
        # ... and waiting again in its ability's pending_review, if the review took it off
        pending = ability_recording.pending_change(attempt, reopening=True)
        if pending:
            setting.append("ability_pending = :pending")
            values[":pending"] = True
    items = [
        review.update(
            review.ATTEMPTS_TABLE,
            {"session_id": attempt["session_id"], "attempt_key": attempt["attempt_key"]},
            f"SET {', '.join(setting)}" + (f" REMOVE {', '.join(removing)}" if removing else ""),
            # Still as that review left it: no later review, proposal or re-scoring in between.
            "reviewed_at = :at AND review_action = :action AND score = :now_score "
            "AND attribute_not_exists(proposal) "
            "AND (attribute_not_exists(ability_score) OR ability_score = :now_counted)",
            values,
        )
    ]
    if is_correct != current[1] and review.get_question(attempt["question_id"]) is not None:
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
                "action": "undo_review",
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {"score": current[0], "is_correct": current[1], "reviewed": True},
                "after": {
                    "score": score,
                    "is_correct": is_correct,
                    "needs_review": needs_review,
                    "reviewed": reviewed,
                    "undid": record["action"],
                    "undid_at": record["at"],
                },
                "note": note,
                "changed": True,
                **({"group_id": group_id} if group_id else {}),
                **_attempt_context(attempt),
            }
        )
    )
    undone = "accepted" if record["action"] == "accept" else "overridden"
    items.append(review.count("reviewed", undone, by=-1))
    items.extend(exemplar_restores(attempt, previous_verdict=(score, is_correct) if reviewed else None))
    _commit_rescored(items, attempt, counted, pending)
    if is_correct != current[1]:
        _refresh_stats_flag(attempt["question_id"])
    logger.info("review undone", extra={"attempt_id": attempt_id, "undid": record["action"]})
    return AttemptReviewed(
        attempt_id=attempt_id,
        action="undo",
        status="undone",
        score=score,
        is_correct=is_correct,
        previous_score=current[0],
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


def _commit_rescored(items: list[dict[str, Any]], attempt: dict[str, Any], score: int, pending: int = 0) -> None:
    """Commit the review with the learner's ability re-scored in the same transaction (and
    `pending` added to its pending_review: ability_update.pending_change).
    The ability's write is conditioned on the version read: if the learner answered meanwhile,
    the grade the reviewer saw is unchanged and only the ability moved, so it is read again and
    the re-scoring redone; a changed grade is the reviewer's Conflict."""
    target = f"attempt {attempt['attempt_id']}"
    for _ in range(ability_recording.CONFLICT_ATTEMPTS):
        # The history point sorts with the answers' (graded_at's precision).
        rescored = ability_recording.rescore_items(attempt, score, utc_now("milliseconds"), pending=pending)
        try:
            review.commit(items + rescored)
            return
        except review.ReviewConflictError as error:
            current = review.attempt_by_id(str(attempt["attempt_id"])) if rescored else None
            if current is None or (
                current["score"],
                current["is_correct"],
                ability_recording.counted_of(current),
            ) != (attempt["score"], attempt["is_correct"], ability_recording.counted_of(attempt)):
                raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error
            metrics.add_metric(name="AbilityUpdateConflicts", unit="Count", value=1)
    raise Conflict("REVIEW_CONFLICT", f"{target}: the learner's ability kept changing; retry")


def _refresh_stats_flag(question_id: str) -> None:
    """The corrected counts may change the question's statistics flag (best effort, as after
    grading). Imported here: the grading module is a fifth of the API's cold start."""
    from slea.logic.answering.recording import update_stats_flag  # noqa: PLC0415

    update_stats_flag(question_id)
