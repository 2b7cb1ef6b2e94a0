"""bench/calibration_growth.py on small sizes (the full run grows the history to 1M answers): what a
run of the stream fold reads and writes per new answer does not change as the history grows
tenfold, while the full Scan's reads grow with it; and the faked store keeps the real one's rules."""

import pytest

from bench import calibration_growth


@pytest.fixture(scope="module")
def rows():
    return calibration_growth.measure([2_000, 20_000], new=200)


def test_reads_and_writes_per_new_answer_stay_flat_as_history_grows_tenfold(rows):
    small, large = rows
    assert (small["history"], large["history"]) == (2_000, 20_000)
    assert small["records_read"] == large["records_read"]
    assert small["records_written"] == large["records_written"]
    # Per batch: an item's sums, the item, its category; and the item's compromise CUSUM, read
    # once per item and batch before its first answer there is folded.
    assert large["reads_per_new_answer"] <= 4
    assert large["full_scan_reads_per_new_answer"] == pytest.approx(
        10 * small["full_scan_reads_per_new_answer"], rel=0.1
    )


def test_every_new_answer_is_folded_once(rows):
    for row in rows:
        assert row["transactions"] == row["new_answers"]  # one folding transaction per answer


def test_the_fake_store_folds_an_answer_once_and_a_correction_against_the_recorded_score():
    from slea.logic.jobs.incremental_calibration import Answer, fold_of

    store = calibration_growth.FakeSums()
    answer = Answer("item-1", "learner-1", "technical", "s#k", 0.0, 0.0, 0.0, 0.25)
    first = fold_of(None, answer)
    assert store.apply(first, "t") == "folded"
    assert store.apply(first, "t") == "already_folded"
    corrected = fold_of(answer, Answer("item-1", "learner-1", "technical", "s#k", 1.0, 0.0, 0.0, 0.25))
    assert store.apply(corrected, "t") == "folded"
    assert store.apply(corrected, "t") == "already_folded"
    assert store.items["item-1"].score == pytest.approx(1.0)
