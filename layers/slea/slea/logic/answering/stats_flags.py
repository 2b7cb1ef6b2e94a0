"""A question's statistics flag: what its answer counts call for (recording.py sets it with
each answer; a reviewer's change of counts refreshes it). Apart from recording.py, so that the
reviewers' actions load the rule without the grading path."""

from slea.dal import questions
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger

# Statistics worth a human look: enough answers and a facility index that is extreme, or at odds
# with the question's intended difficulty.
STATS_MIN_ANSWERS = 20


def stats_flag(usage: int, correct: int, difficulty: int | None) -> str | None:
    """The flag a question's answer counts call for (`difficulty`: its label, 5 if it has none)."""
    if usage < STATS_MIN_ANSWERS:
        return None
    rate, difficulty = correct / usage, 5 if difficulty is None else difficulty
    if rate > 0.95:
        return "too_easy"
    if rate < 0.05:
        return "too_hard"
    if (difficulty >= 8 and rate > 0.9) or (difficulty <= 3 and rate < 0.2):
        return "difficulty_mismatch"
    return None


def update_stats_flag(question_id: str) -> None:
    """Best effort, outside an answer (a reviewer's change of counts): the flag is derived from
    the counts, so a failure here loses nothing."""
    try:
        counters = questions.get_question(question_id)
        flag = stats_flag(counters.usage_count, counters.correct_count, counters.difficulty) if counters else None
        if counters is not None and flag != counters.stats_flag:
            questions.set_stats_flag(question_id, flag)
    except DataAccessError as error:
        logger.warning("statistics flag not updated", extra={"question_id": question_id, "reason": str(error)})
