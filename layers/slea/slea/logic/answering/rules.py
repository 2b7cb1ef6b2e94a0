"""The rules of answering a question, written once.

A learner answers a question once (the explanation shows the key, so a second try would measure
nothing), and never a retired one (a reviewer took it out: it measures nothing anyone trusts), nor
one counted as skipped (skipped on purpose, or its round was over, logic/rounds/skips.py: a late
answer could only raise the ability above the skip), nor one of a round the session has moved past
(a later round's questions are saved) or of a session the learner has left (closed when they moved
on: a new session, or round 1 of another one): what the key-leak guard held back there is then
shown in the history, and may give its key away. The same answer sent again is a retry and gets
its recorded grading back, even after retirement.

`refusal` predicts the rule from the question as read, so a doomed answer is refused before any
grading is spent on it; the recording transaction enforces it atomically (dal/attempts.py's
condition on the question), and `refusal_of_outcome` turns what the transaction refused into the
same refusal.
"""

from collections.abc import Callable, Iterable

from slea.dal.attempts import RecordOutcome
from slea.dal.question_records import StoredQuestion
from slea.platform.errors import Conflict

RETIRED = "retired"


def is_retry(question: StoredQuestion, attempt_key: str) -> bool:
    """The question was answered by this very attempt (same learner, answer and key)."""
    return question.answered_attempt_key == attempt_key


def already_answered(question_id: str) -> Conflict:
    return Conflict("ALREADY_ANSWERED", f"question {question_id} has already been answered")


def retired(question_id: str) -> Conflict:
    return Conflict("QUESTION_RETIRED", f"question {question_id} was retired by a reviewer")


def skipped(question_id: str) -> Conflict:
    return Conflict(
        "QUESTION_SKIPPED",
        f"question {question_id} was left unanswered when its round was over and was counted as skipped",
    )


def left_session() -> Conflict:
    return Conflict(
        "SESSION_CLOSED",
        "this session was closed when you moved on to another session: its open questions were counted as skipped",
    )


def round_over(question: StoredQuestion, session: Iterable[StoredQuestion]) -> bool:
    """A later round of the question's session has begun (its questions are saved)."""
    return any(other.round > question.round for other in session)


def closed(question: StoredQuestion, session: Iterable[StoredQuestion], session_closed: bool = False) -> bool:
    """`question` can no longer be answered: answered, retired, its round is over or its session
    closed."""
    answered = bool(question.answered_at) or bool(question.usage_count)
    return answered or session_closed or question.status == RETIRED or round_over(question, session)


def refusal(
    question: StoredQuestion,
    attempt_key: str,
    session: Iterable[StoredQuestion] = (),
    session_closed: bool = False,
    bank_item: StoredQuestion | None = None,
) -> Conflict | None:
    """Why a new answer to `question` (of `session`'s questions; `session_closed`: the session
    was closed; `bank_item`: the bank item a drawn copy stands for, as read with the answer)
    cannot be taken, or None (a retry is always taken). A copy whose bank item was retired is
    retired with it, even if withdrawing the copy itself has not reached it yet."""
    if is_retry(question, attempt_key):
        return None
    question_id = question.question_id
    # In this order: a skip was counted as wrong already (a late answer could only raise it).
    reasons: tuple[tuple[bool, Callable[[], Conflict]], ...] = (
        (bool(question.skipped_at), lambda: skipped(question_id)),
        (bool(question.answered_at), lambda: already_answered(question_id)),
        (question.status == RETIRED, lambda: retired(question_id)),
        (bank_item is not None and bank_item.status == RETIRED, lambda: retired(question_id)),
        (session_closed, left_session),
        (
            round_over(question, session),
            lambda: Conflict("ROUND_OVER", "this question's round is over: the session has moved on to a later round"),
        ),
    )
    return next((refused() for applies, refused in reasons if applies), None)


def refusal_of_outcome(outcome: RecordOutcome, question_id: str) -> Conflict | None:
    """The refusal the recording transaction reported (None: it did not refuse)."""
    if outcome == "retired":
        return retired(question_id)
    if outcome == "answered_differently":
        return already_answered(question_id)
    if outcome == "skipped":
        return skipped(question_id)
    return None
