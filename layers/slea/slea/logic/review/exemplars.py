"""A reviewed short answer becomes an exemplar of its bank item: later answers that say the same
thing are graded as the reviewer graded it (slea.logic.answering.exemplars). Written in the
review's own transaction, so an exemplar exists exactly when its review does."""

from typing import Any

from slea.dal.exemplars import exemplar_write


def exemplar_writes(attempt: dict[str, Any], score: int, is_correct: bool) -> list[dict[str, Any]]:
    """The transaction items that store the reviewed attempt as an exemplar (none for a choice, or
    for an attempt recorded before exemplars were kept: it does not name its bank item)."""
    item_id = attempt.get("exemplar_item")
    if attempt.get("question_type") != "short_answer" or not item_id or not attempt.get("user_answer"):
        return []
    exemplar = {
        "id": attempt["attempt_id"],
        "text": attempt["user_answer"],
        "correct": is_correct,
        "score": score,
        # The grader's evidence beside the text: propagation asks an answer's to be near it.
        "probability": attempt.get("grader_probability"),
    }
    return [exemplar_write(str(item_id), exemplar)]
