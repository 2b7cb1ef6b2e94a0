"""bench/local_answers.py on a small run: the figures are there, every answer is recorded, and the
local transactions copied items, never a table (the full run, 10,000 answers, prints the ratio)."""

import pytest

from bench import local_answers


@pytest.fixture(scope="module")
def quick():
    return local_answers.measure(answers=12)


def test_every_answer_is_recorded(quick):
    assert quick["recorded"] == 12
    assert quick["attempts_stored"] == 12 + 2  # and the two warm-up answers


def test_recording_copies_a_few_items_per_answer_and_no_table(quick):
    assert quick["tables_copied"] == 0
    assert 0 < quick["items_copied"] <= 3 * (12 + 2)  # the question's counters, a learner's items


def test_the_figures_are_printed_beside_their_target(quick):
    assert list(quick["per_answer_ms"]) == ["1-12"]
    assert quick["per_answer_ms"]["1-12"]["mean_ms"] > 0
    assert quick["ratio_last_to_first_100"] == 1.0
    assert quick["met"] is True
    assert list(quick["per_answer_cpu_ms"]) == ["1-12"]
    assert quick["cpu_ratio_last_to_first_100"] == 1.0
    assert set(quick["peak_rss_mb_after"]) == {"12"}


def test_windows_are_the_hundred_answers_before_each_checkpoint():
    assert local_answers._checkpoints(10_000) == [100, 1_000, 5_000, 10_000]
    assert local_answers._checkpoints(300) == [100, 300]
    ends = [(end, len(chunk)) for end, chunk in local_answers._windows([0.0] * 1_000, [100, 1_000])]
    assert ends == [(100, 100), (1_000, 100)]
