"""A round's slots laid out by information: every requested type keeps a slot, short answers keep
their share of the mix, the other choice slots go to the choice type that tells most."""

import pytest

from slea.logic.rounds.target import DEFAULT_MIX, slot_types
from slea.measurement import irt

MC, TF, SA = "multiple_choice", "true_false", "short_answer"


def test_four_options_tell_more_than_true_false_at_every_precision():
    # At the aimed difficulty for 70% success, at the estimate: the figures docs/measurement.md quotes.
    assert irt.aimed_information(0.7, 0.25) == pytest.approx(0.1543, abs=1e-4)
    assert irt.aimed_information(0.7, 0.5) == pytest.approx(0.0902, abs=1e-4)
    assert irt.aimed_information(0.7, 0.0) == pytest.approx(0.21, abs=1e-4)
    for rate in (0.5, 0.7, 0.8):
        for theta_se in (0.0, 0.3, 0.71, 1.2):
            assert irt.aimed_information(rate, 0.25, theta_se) > irt.aimed_information(rate, 0.5, theta_se)


def test_averaging_over_the_ability_matches_numerical_integration():
    """The 7-point Gauss-Hermite average against a fine grid over N(0, se^2)."""
    import math

    for floor in (0.0, 0.25, 0.5):
        b = irt.aimed_difficulty(0.0, 0.7, floor)
        grid = [-6 + 12 * index / 2400 for index in range(2401)]
        weights = [math.exp(-0.5 * x * x) for x in grid]
        exact = sum(w * irt.information(0.71 * x, b, floor) for w, x in zip(weights, grid, strict=True)) / sum(weights)
        assert irt.aimed_information(0.7, floor, 0.71) == pytest.approx(exact, rel=1e-3)
        # an uncertain ability makes an item aimed at the estimate tell less
        assert irt.aimed_information(0.7, floor, 0.71) < irt.aimed_information(0.7, floor)


def test_true_false_keeps_one_slot_and_four_options_take_the_rest():
    assert slot_types([MC, TF], 5, 0.7) == [MC, TF, MC, MC, MC]  # cycled before: MC, TF, MC, TF, MC
    assert slot_types([TF, MC], 6, 0.7, 0.71) == [TF, MC, MC, MC, MC, MC]
    assert slot_types([MC, TF], 1, 0.7) == [MC]  # a slot too few for every type: the cycle's first


def test_short_answers_keep_their_share_and_the_default_mix_stays_mixed():
    assert slot_types(None, 5, 0.7) == [MC, TF, SA, MC, MC]  # the default cycle, unchanged at 5
    ten = slot_types(None, 10, 0.7)
    assert ten.count(SA) == [DEFAULT_MIX[index % 4] for index in range(10)].count(SA) == 2
    assert (ten.count(TF), ten.count(MC)) == (1, 7)
    assert slot_types([MC, SA], 5, 0.7) == [MC, SA, MC, SA, MC]


def test_a_single_choice_type_or_one_type_is_never_changed():
    assert slot_types([TF, SA], 5, 0.7) == [TF, SA, TF, SA, TF]
    assert slot_types([TF], 4, 0.7) == [TF] * 4
    assert slot_types([SA], 3, 0.5) == [SA] * 3
