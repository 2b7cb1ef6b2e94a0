"""The honest-cohort bench runs end to end on a small cohort: its draw log follows the bank draw's
own steps. A patch of a step whose signature had changed once failed every round drawn from the
bank, and the bench went on reporting a cohort that had answered nothing."""

import pytest

from bench import honest_cohort

pytestmark = pytest.mark.slow  # a local stack and a dozen rounds


def test_a_small_cohort_answers_every_round_and_draws_from_the_bank_once_it_holds_items():
    learners, rounds, count = 6, 2, 3
    result = honest_cohort.measure(learners, 3, rounds, count, 7)
    assert result["answers"] == learners * rounds * count
    assert result["drawn_from_bank_share_by_third"][-1] > 0
    assert sum(part["draws"] for part in result["short_draws_by_third"]) > 0  # the draw log saw them
