"""The human review loop: one queue of provisional grades and doubtful questions, the
reviewer's actions on them, and how often reviewers agree with the automatic grader.

Every action is recorded with who, when, before, after and the reviewer's note, in the same
transaction that applies it (slea.dal.review). The grading path is not imported here."""

import re
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.review import (
    AttemptAction,
    AttemptReviewed,
    AttemptReviewRequest,
    AuditRecord,
    AuditRecords,
    BulkAccepted,
    BulkAcceptRequest,
    BulkAcceptResult,
    BulkReverted,
    QuestionReviewed,
    QuestionReviewRequest,
    ReviewStats,
    UndoRequest,
)
from slea.dal import review, sessions
from slea.dal.questions import bank_key
from slea.logic.answering import ability_update as ability_recording
from slea.logic.review.exemplars import exemplar_removals, exemplar_restores, exemplar_writes
from slea.logic.review.queue import same_user  # the queue's listing is there
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict, DataAccessError, DomainError, Forbidden, Invalid, NotFound
from slea.platform.observability import logger, metrics, tracer
from slea.security import names

QUEUE_FIELDS = "REMOVE review_state, queued_at"
REVIEWER_NAME_MAX = names.NAME_MAX
display_name = names.display_name  # the reviewer's name recorded with an action
_SPACES = re.compile(r"\s+")


# ---------------------------------------------------------------- attempts
def _commit(items: list[dict[str, Any]], target: str) -> None:
    try:
        review.commit(items)
    except review.ReviewConflictError as error:
        raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error


def provisional(attempt: Mapping[str, Any]) -> bool:
    """A grade the grader was unsure of and no reviewer has settled: one reviewer may change it.
    Any other grade is final: changing it takes two reviewers (a proposal and a confirmation)."""
    return attempt.get("needs_review") is True and not attempt.get("reviewed")


STEM_SHOWN = 160  # characters of an item's stem kept with an audit record


def _short(stem: Any) -> str | None:
    text = _SPACES.sub(" ", stem).strip() if isinstance(stem, str) else ""
    return (text[: STEM_SHOWN - 1] + "…" if len(text) > STEM_SHOWN else text) or None


def _attempt_context(attempt: Mapping[str, Any]) -> dict[str, Any]:
    """What an audit row shows of an attempt: its question, learner and session. The attempt kept
    the stem the learner saw; only an older attempt without it costs a read of the question."""
    stem = attempt.get("question_stem")
    if not stem and attempt.get("question_id"):
        stem = (review.get_question(str(attempt["question_id"])) or {}).get("stem")
    return {
        "stem": _short(stem),
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
    counted (a provisional grade counted 0) to the reviewed score, and the attempt leaves the
    queue. `first_review`: only if no review has been applied yet (bulk accept: two reviewers
    accepting at once count it once).

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
    _commit_rescored(items, attempt, score)
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
    _commit(items, f"attempt {attempt_id}")
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
    _commit(items, f"attempt {attempt_id}")
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
        _commit(
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
        ]
        try:
            _commit(items, f"attempt {attempt_id}")
        except Conflict:
            kept.append(str(attempt_id))
            continue
        reverted.append(str(attempt_id))
    _commit(
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


_UNDOABLE = ("override", "confirm")  # one review of one attempt; a group's reviews are undone by the group


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
    """Undo the attempt's latest override (or confirmed proposal): its score, state and review
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
        raise Conflict("NOTHING_TO_UNDO", f"attempt {attempt_id} has no override to undo")
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
    if needs_review and not reviewed:  # a provisional grade again: back in the queue
        setting += ["review_state = :open", "queued_at = :queued"]
        values |= {":open": review.OPEN, ":queued": attempt.get("graded_at") or now}
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
    _commit_rescored(items, attempt, counted)
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
        templates = review.templates_with_stem(str(stored.get("stem", "")))
        extra = [review.deactivate_template(tid, question_id) for tid in templates]
        after["templates_deactivated"] = len(extra)
        after["template_ids"] = templates
        # A transaction holds 100 items: the review's own three, the templates, then the twins.
        with_it = _bank_items_of(stored)[: 97 - len(extra)]
        extra += [_retire_with(other, now, question_id) for other in with_it]
        after["retired_with"] = [str(other["question_id"]) for other in with_it]
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
    if request.action == "edit" and _bank_item_id(stored) != question_id:
        # The bank item this copy was drawn from gets the same question (the copy's choice order
        # and key together), so later draws serve the corrected item.
        extra.append(_edit_bank_item(_bank_item_id(stored), edited, now))
        after |= _edited_with(_bank_item_id(stored))
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
                "changed": request.action != "accept",
                "stem": _short(stored.get("stem")),
                "question_id": question_id,
                "session_id": stored.get("session_id") if "#" not in str(stored.get("session_id", "#")) else None,
            }
        ),
        review.count(
            {"accept": "questions_accepted", "retire": "questions_retired", "edit": "questions_edited"}[request.action]
        ),
    ]
    _commit(items, f"question {question_id}")
    _withdraw_copies(after.get("retired_with"), stored, now)  # a retirement: its copies in open rounds
    logger.info("question reviewed", extra={"question_id": question_id, "action": request.action})
    return QuestionReviewed(
        question_id=question_id,
        action=request.action,
        status="retired" if retired or request.action == "retire" else "active",
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


def _bank_item_id(stored: Mapping[str, Any]) -> str:
    return str(stored.get("item_id") or stored["question_id"])


def _bank_items_of(stored: dict[str, Any]) -> list[dict[str, Any]]:
    """What retiring `stored` retires with it: the bank item it was drawn from (if it is a copy)
    and the drawable bank items of its bank key with the same stem (its twins)."""
    question_id = str(stored["question_id"])
    found: dict[str, dict[str, Any]] = {}
    item_id = _bank_item_id(stored)
    if item_id != question_id:
        item = review.get_question(item_id)
        if item is not None and item.get("status") != "retired":
            found[item_id] = item
    twins = review.bank_twins(
        str(stored.get("category") or "general"), str(stored.get("language") or "en"), str(stored.get("stem", ""))
    )
    for twin in twins:
        if str(twin["question_id"]) != question_id:
            found.setdefault(str(twin["question_id"]), twin)
    return list(found.values())[: review.MAX_TEMPLATES_DEACTIVATED - 1]


def _retire_with(other: Mapping[str, Any], now: str, by_question: str) -> dict[str, Any]:
    return review.update(
        review.QUESTIONS_TABLE,
        {"question_id": other["question_id"]},
        "SET #status = :retired, retired_at = :at, retired_category = :category, retired_with = :by "
        f"{QUEUE_FIELDS}, review_reasons, bank_key",
        "attribute_exists(question_id)",
        {":retired": "retired", ":at": now, ":category": other.get("category") or "general", ":by": by_question},
        names={"#status": "status"},
    )


def _withdraw_copies(retired_with: list[str] | None, stored: dict[str, Any], now: str) -> int:
    """After `stored` was retired with the bank items `retired_with` (None: it was not retired),
    withdraw the copies of those items that learners were given and have not answered: each
    marked retired, so it is hidden from their round, refused if answered and not counted as
    skipped (logic/rounds). A copy answered meanwhile keeps its answer. After the retirement's
    own transaction (copies may be many, past a transaction's 100 items); a copy this misses is
    still refused when answered, the answer reading its bank item's status."""
    if retired_with is None:
        return 0
    question_id, withdrawn = str(stored["question_id"]), 0
    try:
        for item_id in sorted({_bank_item_id(stored), *retired_with}):
            for copy in review.open_copies(item_id):
                copy_id = str(copy["question_id"])
                if copy_id != question_id and review.withdraw_copy(copy_id, question_id, now):
                    withdrawn += 1
    except DataAccessError as error:
        # The retirement stands (committed): the copies left are refused when answered.
        logger.error("drawn copies not all withdrawn", extra={"question_id": question_id, "reason": str(error)})
    if withdrawn:
        logger.info("drawn copies withdrawn", extra={"question_id": question_id, "copies": withdrawn})
    return withdrawn


def _edited_with(item_id: str) -> dict[str, Any]:
    """What an edit's audit record keeps of the bank item it edits too: its id, and its text as
    it was (read once; edits are rare), so that undoing the edit restores it."""
    bank_item = review.get_question(item_id)
    return {"edited_with": [item_id]} | ({"edited_with_before": {item_id: _snapshot(bank_item)}} if bank_item else {})


def _edit_bank_item(item_id: str, edited: Mapping[str, Any], now: str) -> dict[str, Any]:
    setting = "SET stem = :stem, answer_schema = :answer, edited_at = :at"
    values: dict[str, Any] = {":stem": edited["stem"], ":answer": edited["answer_schema"], ":at": now}
    if edited["choices"] is not None:
        setting += ", choices = :choices"
        values[":choices"] = edited["choices"]
    return review.update(
        review.QUESTIONS_TABLE, {"question_id": item_id}, setting, "attribute_exists(question_id)", values
    )


def _restore_text(question: Mapping[str, Any], snapshot: Mapping[str, Any], edited_at: str, now: str) -> dict[str, Any]:
    """The transaction item that puts a question's stem, choices and key back as `snapshot`
    (an audit record's), if the edit made at `edited_at` is still its latest."""
    kept = {
        key: value
        for key, value in (question.get("answer_schema") or {}).items()
        if key not in {"correct_key", "correct_keywords"}
    }
    answer = kept | {
        key: value
        for key, value in (
            ("correct_key", snapshot.get("correct_answer")),
            ("correct_keywords", snapshot.get("correct_keywords")),
        )
        if value is not None
    }
    setting = "SET stem = :stem, answer_schema = :answer, edit_undone_at = :now"
    values: dict[str, Any] = {":stem": snapshot.get("stem"), ":answer": answer, ":now": now, ":edited": edited_at}
    if snapshot.get("choices") is not None:
        setting += ", choices = :choices"
        values[":choices"] = snapshot["choices"]
    return review.update(
        review.QUESTIONS_TABLE,
        {"question_id": question["question_id"]},
        f"{setting} REMOVE edited_at",
        "attribute_exists(question_id) AND edited_at = :edited",
        values,
    )


@tracer.capture_method
def revert_edit(
    question_id: str, reviewer: str, request: UndoRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Undo the question's latest edit: its stem, choices and key as the edit found them (kept in
    the edit's audit record), and so for the bank item the edit reached, if that record kept its
    earlier text. Refused if the question was edited again or retired since."""
    stored = review.get_question(question_id)
    if stored is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found")
    if same_user(stored.get("authored_by"), reviewer) or (
        stored.get("session_id") and same_user(sessions.owner_of(str(stored["session_id"])), reviewer)
    ):
        raise Forbidden("OWN_QUESTION", f"question {question_id} is your own item: another reviewer must review it")
    if stored.get("status") == "retired":
        raise Conflict("QUESTION_RETIRED", f"question {question_id} is retired")
    records = review.audit_records(question_id)
    edit = next((r for r in reversed(records) if r.get("action") in ("edit", "revert_edit")), None)
    if edit is None or edit.get("action") != "edit":
        raise Conflict("NOTHING_TO_UNDO", f"question {question_id} has no edit to undo")
    if stored.get("edited_at") != edit.get("at"):
        raise Conflict("QUESTION_CHANGED", f"question {question_id} was edited again since: undo that first")
    now, done = utc_now(), edit.get("after") or {}
    items = [_restore_text(stored, edit.get("before") or {}, str(edit["at"]), now)]
    restored_with: list[str] = []
    for item_id, snapshot in (done.get("edited_with_before") or {}).items():
        bank_item = review.get_question(str(item_id))
        if bank_item is not None and bank_item.get("edited_at") == edit.get("at"):  # not edited since
            items.append(_restore_text(bank_item, snapshot, str(edit["at"]), now))
            restored_with.append(str(item_id))
    items += [
        review.audit_record(
            {
                "target_id": question_id,
                "target_kind": "question",
                "action": "revert_edit",
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": _snapshot(stored),
                "after": {**(edit.get("before") or {}), "restored_with": restored_with, "undid_at": edit.get("at")},
                "note": request.note,
                "stem": _short(stored.get("stem")),
                "question_id": question_id,
            }
        ),
        review.count("questions_edited", by=-1),
    ]
    _commit(items, f"question {question_id}")
    return QuestionReviewed(
        question_id=question_id,
        action="revert_edit",
        status="active",
        reviewed_by=reviewer,
        reviewed_by_name=reviewer_name or reviewer,
        reviewed_at=now,
    )


@tracer.capture_method
def unretire_question(
    question_id: str, reviewer: str, request: UndoRequest, reviewer_name: str | None = None
) -> QuestionReviewed:
    """Undo a retirement: the question, and what its retirement retired with it (its bank item,
    its twins, the templates it deactivated), active again; audited like the retirement."""
    stored = review.get_question(question_id)
    if stored is None:
        raise NotFound("QUESTION_NOT_FOUND", f"question {question_id} not found")
    if stored.get("status") != "retired":
        raise Conflict("QUESTION_NOT_RETIRED", f"question {question_id} is not retired")
    if same_user(stored.get("authored_by"), reviewer) or (
        stored.get("session_id") and same_user(sessions.owner_of(str(stored["session_id"])), reviewer)
    ):
        raise Forbidden("OWN_QUESTION", f"question {question_id} is your own item: another reviewer must review it")
    retirement = next((r for r in reversed(review.audit_records(question_id)) if r.get("action") == "retire"), None)
    done = (retirement or {}).get("after") or {}
    now = utc_now()
    restored = [stored] + [q for q in map(review.get_question, done.get("retired_with") or []) if q is not None]
    items: list[dict[str, Any]] = []
    for question in restored:
        setting, values = "SET #status = :active, unretired_at = :at", {":active": "active", ":at": now}
        if _bank_item_id(question) == question["question_id"]:  # back in the bank
            setting += ", bank_key = :bank_key"
            values[":bank_key"] = bank_key(
                str(question.get("category") or "general"), str(question.get("language") or "en")
            )
        items.append(
            review.update(
                review.QUESTIONS_TABLE,
                {"question_id": question["question_id"]},
                f"{setting} REMOVE retired_at, retired_category, retired_with",
                "attribute_exists(question_id)",
                values,
                names={"#status": "status"},
            )
        )
    templates = [t for t in map(review.template, done.get("template_ids") or []) if t is not None]
    items += [review.reactivate_template(t, question_id) for t in templates if t.get("deactivated_by") == question_id]
    items += [
        review.audit_record(
            {
                "target_id": question_id,
                "target_kind": "question",
                "action": "unretire",
                "who": reviewer,
                "who_name": reviewer_name or reviewer,
                "at": now,
                "before": {"status": "retired"},
                "after": {
                    "status": "active",
                    "restored_with": [str(q["question_id"]) for q in restored[1:]],
                    "templates_reactivated": len(items) - len(restored),
                },
                "note": request.note,
                "stem": _short(stored.get("stem")),
                "question_id": question_id,
            }
        ),
        review.count("questions_retired", by=-1),
    ]
    _commit(items, f"question {question_id}")
    return QuestionReviewed(
        question_id=question_id,
        action="unretire",
        status="active",
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
        proposals=max(counted.get("proposals", 0), 0),
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
