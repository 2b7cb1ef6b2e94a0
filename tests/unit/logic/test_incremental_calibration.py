"""Which attempt records the stream fold counts (the refit's rules plus the estimates the answer was
expected from), what a change of a record folds, and the statistics map it writes (the refit's
shape, the refit's b, se, discrimination and flags kept)."""

import pytest

from slea.dal.calibration_records import calibration_item, streamed_answer
from slea.dal.calibration_sums import TouchedItem
from slea.logic.jobs import incremental_calibration
from slea.logic.jobs.incremental_calibration import Answer, fold_of, statistics
from slea.measurement.sufficient import item_part, learner_part

ATTEMPT = {
    "session_id": "s1",
    "attempt_key": "q1#abc",
    "question_id": "copy-1",
    "item_id": "item-1",
    "user_id": "learner-1",
    "score": 60,
    "is_correct": False,
    "question_type": "short_answer",
    "learner_theta": 0.4,
    "item_b": -0.25,
    "guess_floor": 0.0,
    "ability_category": "technical",
}


def answer_of(attempt):
    """The fold's answer of an attempt item (as `from_item` gives it)."""
    return incremental_calibration.answer_of(streamed_answer(attempt))


def test_an_answer_is_read_with_the_refits_score_item_and_floor():
    answer = answer_of(ATTEMPT)
    assert answer == Answer("item-1", "learner-1", "technical", "s1#q1#abc", 0.6, 0.4, -0.25, 0.0)
    older = {key: value for key, value in ATTEMPT.items() if key != "item_id"}  # its own bank item
    assert answer_of(older).item_id == "copy-1"
    assert answer_of({**ATTEMPT, "score": None, "is_correct": True}).score == 1.0


@pytest.mark.parametrize(
    "change",
    [
        {"skipped": True},  # a skip says nothing of the item (the refit's rule)
        {"learner_theta": None},  # recorded without its ability update: left to the full refit
        {"item_b": None},
        {"ability_category": None},
        {"user_id": None},
    ],
)
def test_attempts_the_fold_leaves_to_the_full_refit(change):
    assert answer_of({**ATTEMPT, **change}) is None


def test_a_new_answer_adds_its_parts_and_must_be_new():
    answer = answer_of(ATTEMPT)
    fold = fold_of(None, answer)
    assert fold.expected_score is None
    assert fold.score == 0.6
    assert fold.item == item_part(0.4, -0.25, 0.0, 0.6)
    assert fold.learner == learner_part(0.4, -0.25, 0.0, 0.6)


def test_a_correction_adds_the_difference_conditioned_on_the_old_score():
    old, new = answer_of(ATTEMPT), answer_of({**ATTEMPT, "score": 100, "is_correct": True})
    fold = fold_of(old, new)
    assert (fold.expected_score, fold.score) == (0.6, 1.0)
    expected = item_part(0.4, -0.25, 0.0, 1.0) - item_part(0.4, -0.25, 0.0, 0.6)
    assert fold.item == expected
    assert fold.item.answers == 0


def test_changes_that_fold_nothing_and_a_removal():
    answer = answer_of(ATTEMPT)
    assert fold_of(answer, answer_of({**ATTEMPT, "review_state": "reviewed"})) is None
    assert fold_of(None, None) is None
    removed = fold_of(answer, None)
    assert (removed.expected_score, removed.score) == (0.6, None)
    assert removed.item.answers == -1


def _touched(question):
    sums = item_part(0.0, 0.0, 0.25, 1.0) + item_part(0.5, 0.0, 0.25, 0.0)
    return TouchedItem(
        sums=sums, category_learners=4, question=None if question is None else calibration_item(question)
    )


def test_the_statistics_keep_the_refits_b_se_discrimination_and_flags():
    refit = {"b": 1.2, "se": 0.3, "discrimination": 0.41, "flags": ["label_far"], "answers": 40, "infit": 1.0}
    written = statistics(_touched({"question_id": "item-1", "calibration": refit}), "2026-11-27T00:00:00Z")
    assert (written.b, written.se, written.discrimination, written.flags) == (1.2, 0.3, 0.41, ("label_far",))
    assert written.answers == 2
    assert written.facility == 0.5
    assert written.exposure == 0.5  # 2 answers of the category's 4 learners
    assert written.calibrated_at == "2026-11-27T00:00:00Z"
    assert written.infit == round(_touched(None).sums.infit, 4)


def test_before_any_refit_b_is_the_online_difficulty_and_nothing_is_flagged():
    question = {"question_id": "item-1", "difficulty": 7, "difficulty_b": 0.9, "difficulty_precision": 4.0}
    written = statistics(_touched(question), "t")
    assert (written.b, written.se, written.flags, written.discrimination) == (0.9, 0.5, (), None)
