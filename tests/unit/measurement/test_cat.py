"""The adaptive loop's parts (measurement/cat.py): select, estimate, stop, and the level statement."""

import math
import random
import statistics

import pytest

from slea.measurement import cat, irt, learner, scale


def bank(size=300, seed=3):
    rng = random.Random(seed)
    items = []
    for index in range(size):
        floor = rng.choice([0.25, 0.25, 0.5, 0.0])
        items.append(cat.Item(f"i{index:03}", rng.gauss(0, 1.2), floor, b_se=rng.choice([0.2, 0.7])))
    return items


def test_placement_selects_among_the_most_informative_items():
    posterior = cat.initialise((1.0, 0.5))
    items = bank()
    best = cat.rank(items, posterior.estimate(), cat.PLACEMENT)[: cat.PLACEMENT.top]
    picks = {cat.select(items, posterior.estimate(), cat.PLACEMENT, random.Random(seed)).item_id for seed in range(50)}
    assert picks <= {item.item_id for item in best}
    assert len(picks) > 1  # randomesque: not every learner gets the same first item
    information = [
        cat.expected_information(item, 1.0, 0.5) for item in cat.rank(items, posterior.estimate(), cat.PLACEMENT)
    ]
    assert information == sorted(information, reverse=True)


def test_an_uncertain_difficulty_and_a_guessing_floor_tell_less():
    sure = cat.Item("a", 0.0, 0.0, b_se=0.0)
    unsure = cat.Item("b", 0.0, 0.0, b_se=0.7)
    guessable = cat.Item("c", 0.0, 0.25, b_se=0.0)
    assert cat.expected_information(sure, 0.0, 0.3) > cat.expected_information(unsure, 0.0, 0.3)
    assert cat.expected_information(sure, 0.0, 0.3) > cat.expected_information(guessable, 0.0, 0.3)


def test_items_shown_to_too_many_learners_are_not_selected():
    posterior = cat.initialise((0.0, 1.0))
    overexposed = [cat.Item(f"o{i}", 0.0, 0.0, exposure_rate=0.4) for i in range(5)]
    fresh = cat.Item("far", 2.5, 0.0, exposure_rate=0.0)
    assert cat.select([*overexposed, fresh], posterior.estimate(), cat.PLACEMENT, random.Random(1)) == fresh
    assert cat.select(overexposed, posterior.estimate(), cat.PLACEMENT, random.Random(1)) is None


def test_practice_ranks_by_distance_to_its_success_rate_target():
    policy = cat.practice(0.7, 3)
    posterior = cat.initialise((0.0, 0.3))
    target = irt.aimed_difficulty(posterior.estimate().theta, 0.7, 0.0)
    items = [cat.Item(f"p{i}", target + offset, 0.0) for i, offset in enumerate([1.5, 0.05, -0.8, 0.3])]
    assert [item.item_id for item in cat.rank(items, posterior.estimate(), policy)] == ["p1", "p3", "p2", "p0"]
    assert len(cat.select_batch(items, posterior.estimate(), policy, random.Random(0), 3)) == 3


def test_estimate_is_the_eap_update_in_turn():
    prior = cat.initialise((0.0, 1.0))
    responses = [cat.Response(0.0, 0.25, 1.0, 0.7), cat.Response(1.0, 0.0, 0.0)]
    expected = prior.updated(0.0, 0.25, 1.0, 0.7).updated(1.0, 0.0, 0.0)
    assert cat.estimate(prior, responses) == expected


def test_stop_rules():
    rule = cat.StopRule(se_target=0.5, classification=None, max_items=25)
    wide = cat.initialise((0.0, 1.0))
    narrow = cat.initialise((0.0, 0.4))
    assert cat.stop(wide, 3, rule) is None
    assert cat.stop(narrow, 3, rule) == "precise"
    assert cat.stop(narrow, 0, cat.StopRule(se_target=0.5, min_items=2)) is None  # the minimum first
    assert cat.stop(wide, 25, rule) == "max_items"
    assert cat.stop(wide, 3, rule, exhausted=True) == "no_items"
    far_from_a_cut = cat.initialise((-3.5, 0.6))  # the novice band holds nearly all of it
    classify = cat.StopRule(se_target=0.2, classification=0.95, max_items=25)
    assert cat.stop(far_from_a_cut, 5, classify) == "classified"
    assert cat.stop(cat.initialise((-1.5, 0.6)), 5, classify) is None  # on a cut: not settled


def test_items_to_stop_counts_down_and_never_passes_the_maximum():
    rule = cat.PLACEMENT.stop
    wide = cat.initialise((0.0, 1.0))
    assert cat.items_to_stop(wide, 0, rule, 0.13) == math.ceil((1 / 0.25 - 1) / 0.13)
    assert cat.items_to_stop(wide, 24, rule, 0.13) == 1
    assert cat.items_to_stop(cat.initialise((0.0, 0.4)), 5, rule, 0.13) == 0


def test_the_level_is_stated_with_how_sure_it_is():
    posterior = cat.initialise((-0.3, 0.45))  # intermediate, close to the beginner cut at -0.5
    said = cat.level_statement(posterior)
    assert said.level == "intermediate"
    assert said.runner_up == "beginner"
    assert 0.2 < said.runner_up_chance < 0.45
    assert math.isclose(sum(said.chances.values()), 1.0, abs_tol=1e-9)
    sure = cat.level_statement(cat.initialise((0.0, 0.1)))
    assert sure.runner_up is None
    assert sure.chance > 0.95
    assert cat.one_chance_in(0.26) == 4


def test_the_credible_interval_holds_the_estimate_and_matches_a_normal():
    posterior = cat.initialise((0.5, 0.4))
    low, high = cat.interval(posterior)
    assert low == pytest.approx(0.5 - 1.96 * 0.4, abs=0.05)
    assert high == pytest.approx(0.5 + 1.96 * 0.4, abs=0.05)


def test_placement_measures_simulated_learners_with_few_items_and_honest_ranges():
    """Learners of known ability over a bank whose difficulties are known only to their errors:
    the default stop (SE 0.5, at most 25 items) gives a median test well under 18 items, a 95%
    range that holds the truth about 95% of the time and a level within one band."""
    rng = random.Random(11)
    items = bank(400, seed=5)
    truth = {item.item_id: item.b + rng.gauss(0, item.b_se) for item in items}  # the real difficulty
    lengths, covered, near = [], [], []
    for _ in range(80):
        theta = rng.gauss(0, 1)
        posterior = cat.initialise((theta + rng.gauss(0, 0.7), learner.PRIOR_SD))
        left = list(items)
        given = 0
        while cat.stop(posterior, given, cat.PLACEMENT.stop, exhausted=not left) is None:
            item = cat.select(left, posterior.estimate(), cat.PLACEMENT, rng)
            left.remove(item)
            right = rng.random() < irt.p_correct(theta, truth[item.item_id], item.floor)
            posterior = cat.estimate(posterior, [cat.Response(item.b, item.floor, float(right), item.b_se)])
            given += 1
        low, high = cat.interval(posterior)
        lengths.append(given)
        covered.append(low <= theta <= high)
        bands = [word for word, _ in scale.LEVELS]
        near.append(
            abs(bands.index(scale.level_of(posterior.estimate().theta)) - bands.index(scale.level_of(theta))) <= 1
        )
    assert statistics.median(lengths) <= 18
    assert 0.85 <= statistics.mean(covered) <= 1.0
    assert statistics.mean(near) >= 0.97
