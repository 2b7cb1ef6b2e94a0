"""The learner's EAP estimate (slea.measurement.learner) against an independent implementation and
against hand computations.

Reference: girth 0.8.0 (MIT, numpy + scipy; a dev dependency only, never in the layer): its
`ability_eap` (Rasch: discrimination 1, answers 0/1) and `ability_3pl_eap` (a guessing floor),
with our prior as its ability distribution and its Gauss-Legendre quadrature on our grid's bounds
[-5, 5]. Our grid is 81 equally spaced points with equal weights, girth's 61 Legendre nodes: both
integrate the smooth posterior to far better than the TOLERANCE (1e-3 logits; the estimates are
reported to 2 decimals). Where the posterior reaches the end of the grid (more than END_WEIGHT of
it on an end point: here, long all-right or all-wrong patterns), our equal weights at the two end
points count them a little more than an exact integral over [-5, 5] does (girth and scipy agree on that integral): up to
0.008 logits in these patterns, so EDGE_TOLERANCE applies there (half weights at the ends, the
trapezoid rule, would remove it: reported to the core's owner).
girth returns no standard error, so the SE is checked against scipy.integrate.quad of the same
posterior (mean and variance as plain integrals).
"""

import math
import random

import numpy as np
import pytest
from girth import ability_3pl_eap, ability_eap
from scipy import integrate
from scipy.stats import norm

from slea.measurement.irt import p_correct
from slea.measurement.learner import GRID_MAX, GRID_MIN, Posterior

TOLERANCE = 1e-3
EDGE_TOLERANCE = 1e-2
END_WEIGHT = 1e-4  # an end point's share of the posterior above which the end rule shows
PATTERNS = 40


def _posterior(prior: tuple[float, float], answers: list[tuple[float, float, float]]) -> Posterior:
    posterior = Posterior.prior(*prior)
    for b, floor, score in answers:
        posterior = posterior.updated(b, floor, score)
    return posterior


def _ours(prior: tuple[float, float], answers: list[tuple[float, float, float]]) -> tuple[float, float]:
    estimate = _posterior(prior, answers).estimate()
    return estimate.theta, estimate.se


def _tolerance(prior: tuple[float, float], answers: list[tuple[float, float, float]]) -> float:
    weights = [math.exp(value) for value in _posterior(prior, answers).log_weights]
    at_the_ends = max(weights[0], weights[-1]) / sum(weights)
    return TOLERANCE if at_the_ends < END_WEIGHT else EDGE_TOLERANCE


def _girth_options(prior: tuple[float, float]) -> dict[str, object]:
    mean, sd = prior
    return {
        "distribution": lambda theta: norm.pdf(theta, mean, sd),
        "quadrature_bounds": (GRID_MIN, GRID_MAX),
        "quadrature_n": 61,
    }


def _quad(prior: tuple[float, float], answers: list[tuple[float, float, float]]) -> tuple[float, float]:
    """Posterior mean and SD by adaptive quadrature over the grid's range: the definition, written out."""
    mean, sd = prior

    def density(theta: float) -> float:
        value = norm.pdf(theta, mean, sd)
        for b, floor, score in answers:
            p = p_correct(theta, b, floor)
            value *= p**score * (1.0 - p) ** (1.0 - score)
        return value

    points = sorted({b for b, _, _ in answers})
    mass = integrate.quad(density, GRID_MIN, GRID_MAX, points=points, epsabs=1e-13)[0]
    first = integrate.quad(lambda t: t * density(t), GRID_MIN, GRID_MAX, points=points, epsabs=1e-13)[0] / mass
    second = integrate.quad(lambda t: (t - first) ** 2 * density(t), GRID_MIN, GRID_MAX, points=points, epsabs=1e-13)[0]
    return first, math.sqrt(second / mass)


def _random_patterns(rng: random.Random, floor: float) -> list[list[tuple[float, float, float]]]:
    """Response patterns of 1 to 25 answers to items spread over the scale, all-right and
    all-wrong patterns among them (where maximum likelihood has no finite estimate)."""
    patterns = []
    for number in range(PATTERNS):
        length = rng.randint(1, 25)
        bs = [round(rng.uniform(-3.0, 3.0), 2) for _ in range(length)]
        if number == 0:
            scores = [1.0] * length
        elif number == 1:
            scores = [0.0] * length
        else:
            scores = [float(rng.random() < 0.5) for _ in range(length)]
        patterns.append([(b, floor, score) for b, score in zip(bs, scores, strict=True)])
    return patterns


@pytest.mark.parametrize("prior", [(0.0, 1.0), (0.75, 1.2), (-1.0, 1.2)])
def test_rasch_eap_matches_girth_on_random_patterns(prior):
    rng = random.Random(19)
    for answers in _random_patterns(rng, floor=0.0):
        dataset = np.array([[int(score)] * 2 for _, _, score in answers])  # [items, 2 identical people]
        difficulty = np.array([b for b, _, _ in answers])
        reference = ability_eap(dataset, difficulty, 1.0, options=_girth_options(prior))[0]
        theta, _ = _ours(prior, answers)
        assert theta == pytest.approx(reference, abs=_tolerance(prior, answers)), answers


@pytest.mark.parametrize("floor", [0.25, 0.5])
def test_eap_with_a_guessing_floor_matches_girths_3pl(floor):
    rng = random.Random(floor)
    prior = (0.0, 1.2)
    for answers in _random_patterns(rng, floor=floor):
        dataset = np.array([[int(score)] * 2 for _, _, score in answers])
        items = len(answers)
        reference = ability_3pl_eap(
            dataset,
            np.array([b for b, _, _ in answers]),
            np.ones(items),
            np.full(items, floor),
            options=_girth_options(prior),
        )[0]
        theta, _ = _ours(prior, answers)
        assert theta == pytest.approx(reference, abs=_tolerance(prior, answers)), answers


def test_estimate_and_se_match_plain_integration_with_partial_credit():
    rng = random.Random(7)
    for _ in range(15):
        answers = [
            (round(rng.uniform(-2.5, 2.5), 2), rng.choice([0.0, 0.25, 0.5]), rng.choice([0.0, 0.4, 0.75, 1.0]))
            for _ in range(rng.randint(1, 15))
        ]
        theta, se = _ours((0.0, 1.2), answers)
        expected_theta, expected_se = _quad((0.0, 1.2), answers)
        assert theta == pytest.approx(expected_theta, abs=_tolerance((0.0, 1.2), answers))
        assert se == pytest.approx(expected_se, abs=_tolerance((0.0, 1.2), answers))


def test_most_patterns_are_inside_the_grid_and_held_to_the_tight_tolerance():
    inside = 0
    for answers in _random_patterns(random.Random(19), floor=0.0):
        inside += _tolerance((0.0, 1.0), answers) == TOLERANCE
    assert inside >= PATTERNS - 3


def test_two_answers_by_hand():
    # Prior N(0, 1); right on an item at b = -1, wrong on one at b = +1 (no floor). The posterior
    # phi(t) sigmoid(t + 1) sigmoid(1 - t) is symmetric about 0, so the EAP is exactly 0; its
    # variance E[t^2 L] / E[L] (L the likelihood) is below the prior's 1: the answers informed it.
    theta, se = _ours((0.0, 1.0), [(-1.0, 0.0, 1.0), (1.0, 0.0, 0.0)])
    assert theta == pytest.approx(0.0, abs=1e-9)
    assert 0.7 < se < 1.0
    assert se == pytest.approx(_quad((0.0, 1.0), [(-1.0, 0.0, 1.0), (1.0, 0.0, 0.0)])[1], abs=TOLERANCE)

    # Two right answers at b = 0 on the grid, written out: w_k = phi(q_k) sigmoid(q_k)^2.
    grid = [GRID_MIN + k * (GRID_MAX - GRID_MIN) / 80 for k in range(81)]
    weights = [math.exp(-(q**2) / 2) / (1 + math.exp(-q)) ** 2 for q in grid]
    by_hand = sum(w * q for w, q in zip(weights, grid, strict=True)) / sum(weights)
    theta, se = _ours((0.0, 1.0), [(0.0, 0.0, 1.0), (0.0, 0.0, 1.0)])
    assert theta == pytest.approx(by_hand, abs=1e-6)
    assert 0.5 < theta < 1.0  # two successes at the average: above average, by well under a logit


def test_removing_an_answer_restores_the_estimate():
    answers = [(0.3, 0.25, 1.0), (-0.8, 0.0, 0.6), (1.4, 0.5, 0.0)]
    posterior = Posterior.prior(0.0, 1.2)
    for b, floor, score in answers:
        posterior = posterior.updated(b, floor, score)
    without_last = posterior.removed(*answers[-1]).estimate()
    assert without_last.theta == pytest.approx(_ours((0.0, 1.2), answers[:-1])[0], abs=1e-6)
    assert without_last.se == pytest.approx(_ours((0.0, 1.2), answers[:-1])[1], abs=1e-6)
