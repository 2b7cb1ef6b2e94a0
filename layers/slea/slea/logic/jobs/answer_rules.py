"""What calibration counts of a graded answer: its score, the guessing floor it was graded with and
the bank item it answered, and how finely statistics are stored. One rule for the refit
(slea.logic.jobs.calibration) and the stream fold (slea.logic.jobs.incremental_calibration), kept
apart from the refit so that the fold's cold start does not load it (its contracts, person fit,
the export reader: bench/cold_import.py)."""

from typing import Any

from slea.measurement.irt import guess_floor

DECIMALS = 4  # of every stored statistic: far below its standard error, and stable across runs


def answer_score(attempt: dict[str, Any]) -> float:
    """The answer's score in [0, 1]: a short answer's partial credit, else right or wrong."""
    score = attempt.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        return min(max(float(score) / 100.0, 0.0), 1.0)
    return 1.0 if attempt.get("is_correct") else 0.0


def answer_floor(attempt: dict[str, Any], item: dict[str, Any]) -> float:
    """The guessing floor the attempt was graded with, else the item's (older attempts did not record one)."""
    floor = attempt.get("guess_floor")
    if isinstance(floor, (int, float)) and not isinstance(floor, bool):
        return float(floor)
    choices = item.get("choices") or []
    return guess_floor(str(item.get("item_type") or attempt.get("question_type") or ""), len(choices) or None)


def answered_item(attempt: dict[str, Any]) -> str | None:
    """The bank item the attempt answered: a drawn copy names it, an older attempt is its own."""
    value = attempt.get("item_id") or attempt.get("question_id")
    return str(value) if value else None
