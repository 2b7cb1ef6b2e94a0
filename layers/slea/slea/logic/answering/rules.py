"""The rules of answering a question, written once.

A learner answers a question once (the explanation shows the key, so a second try would measure
nothing), and never a retired one (a reviewer took it out: it measures nothing anyone trusts),
nor one counted as skipped (its round was over, logic/rounds/skips.py: a late answer could only
raise the ability above the skip, so it is refused). The same answer sent again is a retry and
gets its recorded grading back, even after retirement.

`refusal` predicts the rule from the question as read, so a doomed answer is refused before any
grading is spent on it; the recording transaction enforces it atomically (dal/attempts.py's
condition on the question), and `refusal_of_outcome` turns what the transaction refused into the
same refusal.
"""

from typing import Any

from slea.dal.attempts import RecordOutcome
from slea.platform.errors import Conflict

RETIRED = "retired"


def is_retry(question: dict[str, Any], attempt_key: str) -> bool:
    """The question was answered by this very attempt (same learner, answer and key)."""
    return question.get("answered_attempt_key") == attempt_key


def already_answered(question_id: str) -> Conflict:
    return Conflict("ALREADY_ANSWERED", f"question {question_id} has already been answered")


def retired(question_id: str) -> Conflict:
    return Conflict("QUESTION_RETIRED", f"question {question_id} was retired by a reviewer")


def skipped(question_id: str) -> Conflict:
    return Conflict(
        "QUESTION_SKIPPED",
        f"question {question_id} was left unanswered when its round was over and was counted as skipped",
    )


def refusal(question: dict[str, Any], attempt_key: str) -> Conflict | None:
    """Why a new answer to `question` cannot be taken, or None (a retry is always taken)."""
    if is_retry(question, attempt_key):
        return None
    if question.get("skipped_at"):  # counted as wrong already: a late answer could only raise it
        return skipped(str(question["question_id"]))
    if question.get("answered_at"):
        return already_answered(str(question["question_id"]))
    if question.get("status") == RETIRED:
        return retired(str(question["question_id"]))
    return None


def refusal_of_outcome(outcome: RecordOutcome, question_id: str) -> Conflict | None:
    """The refusal the recording transaction reported (None: it did not refuse)."""
    if outcome == "retired":
        return retired(question_id)
    if outcome == "answered_differently":
        return already_answered(question_id)
    if outcome == "skipped":
        return skipped(question_id)
    return None
