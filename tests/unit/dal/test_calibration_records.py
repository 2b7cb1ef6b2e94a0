"""The records calibration reads (slea.dal.calibration_records, dal.person_review.LearnerMark): an
absent field and a null one read alike, values are kept as read (the refit holds millions), and
the maps written back hold the keys they were read with."""

from slea.dal.calibration_records import (
    CalibrationAnswer,
    ItemCalibration,
    calibration_answer,
    calibration_item,
    calibration_map,
    streamed_answer,
)
from slea.dal.person_review import LearnerMark, _mark, _mark_map


def test_an_answer_keeps_its_values_as_read_and_reads_an_absent_field_as_a_null_one():
    user = "learner-" + "1" * 20
    read = {"user_id": user, "item_id": "bank-1", "score": 100, "is_correct": True, "graded_at": "t"}
    answer = calibration_answer(read)
    assert answer == CalibrationAnswer("bank-1", None, user, 100, True, None, None, "t", False, False)
    assert answer.user_id is user  # the read's shared string, not a copy
    assert answer.score is read["score"]
    nulls = dict.fromkeys(("item_id", "question_id", "user_id", "score", "guess_floor", "question_type"))
    assert calibration_answer(nulls) == calibration_answer({}) == CalibrationAnswer()
    # A grade that is not a number counts as none (the score then comes from `is_correct`).
    assert calibration_answer({"score": True}).score is None
    assert calibration_answer({"score": "80"}).score is None
    # graded_at as the refit ordered by it: absent is "", a stored null "None".
    assert calibration_answer({"graded_at": None}).graded_at == "None"


def test_a_streamed_answer_adds_the_estimates_it_was_expected_from():
    image = {"session_id": "s1", "attempt_key": "q1#a", "learner_theta": 0, "item_b": -0.5, "ability_category": "tech"}
    answer = streamed_answer(image)
    assert (answer.session_id, answer.attempt_key, answer.ability_category) == ("s1", "q1#a", "tech")
    assert (answer.learner_theta, answer.item_b, answer.item_b_se) == (0, -0.5, None)
    assert streamed_answer({"learner_theta": False}).learner_theta is None


def test_a_bank_item_and_its_calibration():
    stored = {
        "question_id": "item-1",
        "item_type": "multiple_choice",
        "choices": ["A) a", "B) b"],
        "difficulty": 7,
        "calibration": {"b": 1, "se": 0.3, "answers": 40, "flags": ["misfit"], "calibrated_at": "t", "kept": "x"},
        "calibration_flags": {"misfit": 40},
    }
    item = calibration_item(stored)
    assert (item.question_id, item.item_type, item.choices, item.difficulty) == (
        "item-1",
        "multiple_choice",
        ("A) a", "B) b"),
        7,
    )
    assert item.calibration == ItemCalibration(b=1.0, se=0.3, answers=40, flags=("misfit",), calibrated_at="t")
    assert item.calibration_flags == {"misfit": 40}
    assert calibration_item({"question_id": "item-2", "calibration": {}}).calibration is None  # never calibrated
    assert calibration_item({}).calibration_flags == {}


def test_the_calibration_map_written_holds_every_statistic_and_the_keys_it_was_read_with():
    read = calibration_item({"calibration": {"b": 1.2, "flags": ["label_far"], "kept": "x"}}).calibration
    assert read is not None
    assert calibration_map(read) == {
        "kept": "x",
        "b": 1.2,
        "se": None,
        "answers": None,
        "facility": None,
        "discrimination": None,
        "infit": None,
        "outfit": None,
        "exposure": None,
        "flags": ["label_far"],
        "calibrated_at": None,
    }
    computed = ItemCalibration(b=0.1, se=0.2, answers=3, facility=0.5, exposure=0.1, flags=("misfit",))
    assert set(calibration_map(computed)) == {
        "b",
        "se",
        "answers",
        "facility",
        "discrimination",
        "infit",
        "outfit",
        "exposure",
        "flags",
        "calibrated_at",
    }


def test_a_learners_mark_reads_back_as_written():
    mark = LearnerMark("why", -3.1, None, 40, ("general", "technical"), "t")
    stored = _mark_map(mark)
    assert stored == {
        "reason": "why",
        "lz": -3.1,
        "exposure_z": None,
        "answers": 40,
        "categories": ["general", "technical"],
        "flagged_at": "t",
    }
    assert _mark(stored) == mark
    assert _mark({**stored, "lz": -3, "exposure_z": 2}) == LearnerMark(
        "why", -3.0, 2.0, 40, ("general", "technical"), "t"
    )
