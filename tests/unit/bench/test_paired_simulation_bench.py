"""bench/paired_simulation.py on two small cohorts: both rules run on the same learners and the
paired difference is reported."""

import pytest

from bench import paired_simulation


def test_the_layout_is_compared_with_the_product_before_on_the_same_cohorts():
    result = paired_simulation.compare("types", cohorts=2, learners=20, default_mix=False)
    rmse = result["RMSE after 20, new bank"]
    assert set(rmse) == {"before", "now", "difference", "difference_se"}
    assert 0 <= rmse["now"]["cohorts_meeting_target"] <= 2
    # one true/false slot in five instead of two: more information, a smaller mean SE on every cohort
    se = result["mean SE after 20, new bank"]
    assert se["difference"] < 0


def test_the_simulated_worlds_self_levels_are_measured_not_assumed():
    levels = paired_simulation.world_self_levels()
    assert levels["beginner"][0] == pytest.approx(-0.84, abs=0.02)
    assert levels["advanced"][0] == pytest.approx(0.84, abs=0.02)
    assert levels["intermediate"][1] == pytest.approx(0.74, abs=0.02)
