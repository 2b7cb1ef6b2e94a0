"""What calibration counts of a graded answer: its score, the guessing floor it was graded with and
the bank item it answered, and how finely statistics are stored. One rule for the refit
(slea.logic.jobs.calibration) and the stream fold (slea.logic.jobs.incremental_calibration), kept
apart from the refit so that the fold's cold start does not load it (its contracts, person fit,
the export reader: bench/cold_import.py)."""

from slea.dal.calibration_records import CalibrationAnswer, CalibrationItem
from slea.measurement.irt import guess_floor

DECIMALS = 4  # of every stored statistic: far below its standard error, and stable across runs


def answer_score(answer: CalibrationAnswer) -> float:
    """The answer's score in [0, 1]: a short answer's partial credit, else right or wrong."""
    if answer.score is not None:
        return min(max(float(answer.score) / 100.0, 0.0), 1.0)
    return 1.0 if answer.is_correct else 0.0


def answer_floor(answer: CalibrationAnswer, item: CalibrationItem | None = None) -> float:
    """The guessing floor the answer was graded with, else the item's (older attempts did not record one)."""
    if answer.guess_floor is not None:
        return float(answer.guess_floor)
    item_type = item.item_type if item is not None else None
    choices = len(item.choices) if item is not None else 0
    return guess_floor(str(item_type or answer.question_type or ""), choices or None)


def answered_item(answer: CalibrationAnswer) -> str | None:
    """The bank item the answer counts for: a drawn copy names it, an older attempt is its own."""
    return answer.item_id or answer.question_id or None
