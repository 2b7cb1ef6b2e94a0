"""bench/api_ability.py on one simulated learner through the local HTTP API (the full run, 40
learners, prints coverage and RMSE beside their targets): the endpoint is read after 10 and 20
answers, its history has one point per answer, and the figures are computed as documented."""

import pytest

from bench import api_ability


@pytest.fixture(scope="module")
def one_learner():
    return api_ability.measure(learners=1, seed=5)


def test_the_ability_endpoint_is_read_after_10_and_20_answers(one_learner):
    assert set(one_learner["after"]) == {"10", "20"}
    assert one_learner["after"]["10"]["answers_counted"] == [10]
    assert one_learner["after"]["20"]["answers_counted"] == [20]
    assert one_learner["after"]["20"]["mean_se"] < one_learner["after"]["10"]["mean_se"]  # it sharpens


def test_the_history_has_one_point_per_answer(one_learner):
    assert one_learner["after"]["10"]["one_point_per_answer"] is True
    assert one_learner["after"]["20"]["one_point_per_answer"] is True


def test_the_figures_are_printed_beside_their_targets(one_learner):
    rows = {row["figure"]: row for row in one_learner["targets"]}
    assert set(rows) == {
        "95% coverage after 10, through the API",
        "95% coverage after 20, through the API",
        "theta RMSE after 20, through the API",
    }
    assert rows["theta RMSE after 20, through the API"]["target"] == "<= 0.5"


def test_coverage_and_rmse_are_computed_against_the_true_ability():
    results = [
        {"theta": 0.0, "10": _seen(0.7, 0.3), "20": _seen(0.1, 0.2)},  # 0.7 > 1.96 x 0.3 = 0.588: out
        {"theta": 1.0, "10": _seen(1.2, 0.3), "20": _seen(0.7, 0.2)},  # in; after 20: 0.3 < 0.392, in
    ]
    summary = api_ability.summarise(results, 2, 0, 1.0)
    assert summary["after"]["10"]["coverage"] == 0.5
    assert summary["after"]["20"]["coverage"] == 1.0
    assert summary["after"]["20"]["rmse"] == pytest.approx(((0.1**2 + 0.3**2) / 2) ** 0.5, abs=1e-3)
    assert summary["after"]["10"]["bias"] == pytest.approx(0.45)


def test_the_wilson_interval_is_the_known_one():
    assert api_ability.wilson(57, 60) == (0.863, 0.983)
    assert api_ability.wilson(0, 0) == (0.0, 1.0)


def _seen(theta, se):
    return {"theta": theta, "se": se, "answers": 10, "points": 10, "numbered": True}
