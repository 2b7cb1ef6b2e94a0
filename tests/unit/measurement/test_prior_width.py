"""The profile prior's width: the self-assessment narrows the population's spread and never widens
it, so the reported 95% interval holds the ability about 95% of the time, not nearly always."""

import math
import random
import statistics

import pytest

from slea.measurement import irt, learner


def test_the_profile_priors_together_make_up_the_population() -> None:
    # The law of total variance: the variance between the self-level means plus the prior's own
    # variance is the population's (1). A prior of SD 1.2 made up a population of variance 1.9.
    shares = learner.SELF_LEVEL_SHARE
    assert sum(shares.values()) == pytest.approx(1.0)
    means = {level: learner.prior_from_profile(level, 0, 0)[0] for level in shares}
    centre = sum(shares[level] * means[level] for level in shares)
    between = sum(shares[level] * (means[level] - centre) ** 2 for level in shares)
    within = statistics.fmean([learner.prior_from_profile(level, 0, 0)[1] ** 2 for level in shares])
    assert between + within == pytest.approx(learner.POPULATION_PRIOR[1] ** 2)
    assert learner.POPULATION_PRIOR[1] > learner.PRIOR_SD  # a self-assessment only narrows it


def _coverage(answers: int, learners: int, seed: int) -> tuple[float, float]:
    """Learners of known ability theta ~ N(0, 1) who place themselves from theta plus noise of the
    same size (the lowest quarter beginners, the highest advanced); `answers` right-or-wrong
    answers to items at their current estimate. (share of 95% intervals holding theta, RMSE)."""
    rng = random.Random(seed)
    thetas = [rng.gauss(0.0, 1.0) for _ in range(learners)]
    felt = [theta + rng.gauss(0.0, 1.0) for theta in thetas]
    low, high = statistics.quantiles(felt, n=4)[0], statistics.quantiles(felt, n=4)[2]
    covered, errors = [], []
    for theta, feeling in zip(thetas, felt, strict=True):
        level = "beginner" if feeling < low else "advanced" if feeling > high else "intermediate"
        posterior = learner.Posterior.prior(*learner.prior_from_profile(level, 0, 0))
        for _ in range(answers):
            b = posterior.estimate().theta
            posterior = posterior.updated(b, 0.0, float(rng.random() < irt.p_correct(theta, b)))
        estimate = posterior.estimate()
        covered.append(abs(estimate.theta - theta) <= 1.96 * estimate.se)
        errors.append(estimate.theta - theta)
    return statistics.fmean(covered), math.sqrt(statistics.fmean(e * e for e in errors))


@pytest.mark.parametrize("answers", [5, 10])
def test_the_95_percent_interval_holds_the_ability_about_95_percent_of_the_time(answers: int) -> None:
    # 1,500 learners over three seeds: the share's own standard error is about 0.006. With the
    # prior of SD 1.2 it was 0.974 after 5 and 10 answers: too wide to be honest.
    shares = [_coverage(answers, 500, seed)[0] for seed in (1, 2, 3)]
    assert 0.93 <= statistics.fmean(shares) <= 0.97, shares
