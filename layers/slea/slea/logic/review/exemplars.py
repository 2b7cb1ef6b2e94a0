"""A reviewed short answer becomes an exemplar of its bank item: later answers that say the same
thing are graded as the reviewer graded it (slea.logic.answering.exemplars). Written in the
review's own transaction, so an exemplar exists exactly when its review does, and an undone
review takes its exemplar away in the undo's transaction: a reverted verdict never grades
another answer."""

from typing import Any

from slea.dal import review
from slea.dal.attempts import StoredAttempt
from slea.dal.exemplars import exemplar_removal, exemplar_replace, exemplar_write, slot_holding


def exemplar_writes(attempt: StoredAttempt, score: int, is_correct: bool) -> list[dict[str, Any]]:
    """The transaction items that store the reviewed attempt as an exemplar (none for a choice, or
    for an attempt recorded before exemplars were kept: it does not name its bank item)."""
    item_id = attempt.exemplar_item
    if attempt.question_type != "short_answer" or not item_id or not attempt.user_answer:
        return []
    record = review.exemplar_record(item_id)  # which slot is free (dal/exemplars.py)
    exemplar = {
        "id": attempt.attempt_id,
        "text": attempt.user_answer,
        "correct": is_correct,
        "score": score,
        # The grader's evidence beside the text: propagation asks an answer's to be near it.
        "probability": attempt.grader_probability,
    }
    return [exemplar_write(item_id, exemplar, record)]


def exemplar_removals(attempt: StoredAttempt) -> list[dict[str, Any]]:
    """The transaction items that take away the exemplar the attempt's review stored (none if it
    stored none, or a later review of another answer has taken its slot since). One read of the
    exemplar item: the removal is conditioned on what was read, so a review that replaces it
    meanwhile makes the undo a conflict to retry, never a silent removal of the newer exemplar."""
    item_id = attempt.exemplar_item
    if attempt.question_type != "short_answer" or not item_id:
        return []
    attempt_id = str(attempt.attempt_id)
    slot = slot_holding(review.exemplar_record(item_id), attempt_id)
    if slot is None:
        return []
    return [exemplar_removal(item_id, attempt_id, slot)]


def exemplar_restores(attempt: StoredAttempt, previous_verdict: tuple[int, bool] | None) -> list[dict[str, Any]]:
    """What undoing the attempt's latest review does to its exemplar, if its slot still holds it:
    removed when the attempt was not reviewed before (`previous_verdict` None), else back to the
    earlier review's verdict (score, correct). Conditioned on what was read, as exemplar_removals."""
    if previous_verdict is None:
        return exemplar_removals(attempt)
    item_id = attempt.exemplar_item
    if attempt.question_type != "short_answer" or not item_id or not attempt.user_answer:
        return []
    attempt_id = str(attempt.attempt_id)
    record = review.exemplar_record(item_id)
    slot = slot_holding(record, attempt_id)
    if slot is None:
        return []
    score, correct = previous_verdict
    stored = dict((record or {})[slot])
    return [exemplar_replace(item_id, {**stored, "correct": correct, "score": score}, slot)]
