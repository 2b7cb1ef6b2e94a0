"""The calibration job's rules that need no storage: scores, guessing floors of older attempts, when
a flag is raised again, and the scale benchmark's refit measurement."""

import sys

import pytest

from slea.dal.calibration_records import calibration_answer, calibration_item
from slea.logic.jobs.answer_rules import answer_floor, answer_score
from slea.logic.jobs.calibration import _reasons_to_raise
from slea.measurement.calibration import ItemStatistics
from slea_local import REPO_ROOT


def statistics(answers, flags):
    return ItemStatistics(
        b=0.0, se=0.2, answers=answers, facility=0.5, discrimination=0.0, infit=1.6, outfit=1.9, flags=flags
    )


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [
        ({"score": 65}, 0.65),
        ({"score": 100, "is_correct": True}, 1.0),
        ({"is_correct": True}, 1.0),
        ({}, 0.0),
        ({"score": 140}, 1.0),
    ],
)
def test_a_score_is_partial_credit_in_zero_to_one(attempt, expected):
    assert answer_score(calibration_answer(attempt)) == expected


def test_an_older_attempt_takes_its_floor_from_the_bank_item():
    multiple_choice = calibration_item(
        {"question_id": "i", "item_type": "multiple_choice", "choices": ["A) a", "B) b", "C) c", "D) d"]}
    )
    assert answer_floor(calibration_answer({}), multiple_choice) == pytest.approx(0.25)
    assert answer_floor(calibration_answer({"question_type": "true_false"})) == pytest.approx(0.5)
    assert answer_floor(calibration_answer({"question_type": "short_answer"})) == 0.0
    assert answer_floor(calibration_answer({"guess_floor": 0.2}), multiple_choice) == 0.2


def test_a_reason_is_raised_once_per_body_of_evidence_and_never_on_a_retired_item():
    assert _reasons_to_raise(calibration_item({}), statistics(40, ["misfit", "label_far"])) == ["label_far", "misfit"]
    seen = calibration_item({"calibration_flags": {"misfit": 40}})
    assert _reasons_to_raise(seen, statistics(79, ["misfit"])) == []
    assert _reasons_to_raise(seen, statistics(80, ["misfit"])) == ["misfit"]
    assert _reasons_to_raise(seen, statistics(50, ["misfit", "label_far"])) == ["label_far"]
    assert _reasons_to_raise(calibration_item({"status": "retired"}), statistics(40, ["misfit"])) == []


def test_the_scale_benchmark_measures_the_refit():
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    import calibration_scale

    result = calibration_scale.measure_refit(400)
    assert result["attempts"] == 400
    assert result["attempts_per_second"] > 0
