"""What every review shares: its transaction committed (an attempt's with the learner's ability
re-scored in it), the audit record of an action on an attempt, and the question's correct count
a changed verdict moves. The writes themselves are named in slea.dal.review_writes."""

import re
from collections.abc import Mapping
from typing import Any

from slea.dal import review, review_writes, sessions
from slea.dal.attempts import StoredAttempt
from slea.logic.answering import ability_update as ability_recording
from slea.logic.answering.stats_flags import update_stats_flag
from slea.platform.clock import utc_now
from slea.platform.errors import Conflict
from slea.platform.observability import metrics

STEM_SHOWN = 160  # characters of an item's stem kept with an audit record
_SPACES = re.compile(r"\s+")


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


def commit_rescored(items: list[dict[str, Any]], attempt: StoredAttempt, score: int, pending: int = 0) -> None:
    """Commit the review with the learner's ability re-scored in the same transaction (and
    `pending` added to its pending_review: ability_update.pending_change).
    The ability's write is conditioned on the version read: if the learner answered meanwhile,
    the grade the reviewer saw is unchanged and only the ability moved, so it is read again and
    the re-scoring redone; a changed grade is the reviewer's Conflict."""
    target = f"attempt {attempt.attempt_id}"
    for _ in range(ability_recording.CONFLICT_ATTEMPTS):
        # The history point sorts with the answers' (graded_at's precision).
        rescored = ability_recording.rescore_items(attempt, score, utc_now("milliseconds"), pending=pending)
        try:
            review.commit(items + rescored)
            return
        except review.ReviewConflictError as error:
            current = review.attempt_by_id(str(attempt.attempt_id)) if rescored else None
            if current is None or (
                current.score,
                current.is_correct,
                ability_recording.counted_of(current),
            ) != (attempt.score, attempt.is_correct, ability_recording.counted_of(attempt)):
                raise Conflict("REVIEW_CONFLICT", f"{target} changed while it was reviewed; reload it") from error
            metrics.add_metric(name="AbilityUpdateConflicts", unit="Count", value=1)
    raise Conflict("REVIEW_CONFLICT", f"{target}: the learner's ability kept changing; retry")


def short_stem(stem: Any) -> str | None:
    text = _SPACES.sub(" ", stem).strip() if isinstance(stem, str) else ""
    return (text[: STEM_SHOWN - 1] + "…" if len(text) > STEM_SHOWN else text) or None


def _attempt_context(attempt: StoredAttempt) -> dict[str, Any]:
    """What an audit row shows of an attempt: its question, learner and session. The attempt kept
    the stem the learner saw; only an older attempt without it costs a read of the question."""
    stem = attempt.question_stem
    if not stem and attempt.question_id:
        question = review.get_question(attempt.question_id)
        stem = question.stem if question is not None else None
    return {
        "stem": short_stem(stem),
        "question_id": attempt.question_id,
        "session_id": attempt.session_id or None,
        "learner_id": attempt.user_id,
        "learner_name": sessions.owner_name(attempt.session_id) if attempt.session_id else None,
    }


def audit_item(
    target: tuple[str, str],
    stamp: review_writes.Stamp,
    change: tuple[dict[str, Any], dict[str, Any]],
    note: str | None,
    *,
    fields: Mapping[str, Any],
    shown: Mapping[str, Any],
) -> dict[str, Any]:
    """The audit record, as a transaction item, of the action `stamp` names (by whom, when) on
    `target` (its id and kind), from `change`'s before to its after, with `fields` (changed,
    bulk_id, group_id ...) and what the trail shows of the target (`shown`, which wins)."""
    target_id, target_kind = target
    before, after = change
    return review.audit_record(
        {
            "target_id": target_id,
            "target_kind": target_kind,
            "action": stamp.action,
            "who": stamp.by,
            "who_name": stamp.by_name,
            "at": stamp.at,
            "before": before,
            "after": after,
            "note": note,
            **fields,
            **shown,
        }
    )


def attempt_audit(
    attempt: StoredAttempt,
    stamp: review_writes.Stamp,
    before: dict[str, Any],
    after: dict[str, Any],
    note: str | None,
    **fields: Any,
) -> dict[str, Any]:
    """The audit record of the action on `attempt` that `stamp` names, with what the trail shows
    of the attempt and `fields`, as a transaction item."""
    target = (str(attempt.attempt_id), "attempt")
    return audit_item(target, stamp, (before, after), note, fields=fields, shown=_attempt_context(attempt))


def review_state(attempt: StoredAttempt) -> dict[str, Any]:
    """The attempt's review fields as a review found them, kept in its audit record so that
    undoing the review restores them (None: the attempt had no such field)."""
    return {
        "review": review_writes.review_fields(attempt),
        "counted": ability_recording.counted_of(attempt),
        "had_original_score": attempt.original_score is not None,
    }


def correct_count_items(attempt: StoredAttempt, was_correct: bool, is_correct: bool) -> list[dict[str, Any]]:
    """The question's correct_count moved with the attempt's verdict, if the verdict changed and
    the question is still stored."""
    question_id = attempt.question_id
    if is_correct == was_correct or not question_id or review.get_question(question_id) is None:
        return []
    return [review_writes.adjust_correct_count(question_id, now_correct=is_correct)]


def refresh_stats_flag(question_id: str) -> None:
    """The corrected counts may change the question's statistics flag (best effort, as after
    grading)."""
    update_stats_flag(question_id)
