"""Person fit (lz and the key-exposure score test) and the guarded refit the calibration job runs."""

import importlib.util
import random

import pytest

from slea.measurement import calibration, irt
from slea.measurement.items import ItemDifficulty
from slea.measurement.person_fit import EXPOSURE_Z_FLAG, LZ_FLAG, MIN_ANSWERS, Answered, person_fit
from slea_local import REPO_ROOT


def _bench():
    spec = importlib.util.spec_from_file_location("person_fit_bench", REPO_ROOT / "bench" / "person_fit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DIFFICULTIES = [-2.0 + 0.2 * n for n in range(21)]


def test_a_pattern_the_model_expects_fits_and_its_reverse_does_not():
    expected = [Answered(b, 0.0, 1.0 if b < 0 else 0.0) for b in DIFFICULTIES]  # easy right, hard wrong
    reversed_ = [Answered(b, 0.0, 0.0 if b < 0 else 1.0) for b in DIFFICULTIES]  # easy wrong, hard right
    assert person_fit(0.0, expected).lz > 0  # more regular than the model even
    assert person_fit(0.0, reversed_).lz < LZ_FLAG
    assert person_fit(0.0, reversed_).flagged


def test_too_few_answers_give_no_statistic():
    assert person_fit(0.0, [Answered(0.0, 0.0, 1.0)] * (MIN_ANSWERS - 1)) is None


def test_success_on_exactly_the_exposed_items_is_flagged_whatever_their_difficulty():
    rng = random.Random(3)
    items = [(rng.gauss(0.0, 0.3), rng.random()) for _ in range(40)]  # one difficulty, varied exposure
    honest = [Answered(b, 0.25, float(rng.random() < irt.p_correct(0.0, b, 0.25)), e) for b, e in items]
    harvested = [Answered(b, 0.25, 1.0 if e > 0.5 else 0.0, e) for b, e in items]
    assert abs(person_fit(0.0, honest).exposure_z) < EXPOSURE_Z_FLAG
    assert not person_fit(0.0, honest).flagged
    assert person_fit(0.0, harvested).exposure_z > EXPOSURE_Z_FLAG
    assert person_fit(0.0, harvested).flagged


def test_a_learner_counts_once_per_item_in_the_guarded_refit():
    priors = {"i": ItemDifficulty.from_label(5)}
    responses = [calibration.Response("i", "u", 0.0), calibration.Response("i", "u", 1.0)]
    assert calibration.calibrate_guarded(responses, priors).items["i"].answers == 1


@pytest.mark.parametrize("hostile", [5, 10])
def test_a_handful_of_hostile_accounts_cannot_get_a_good_item_flagged(hostile):
    result = _bench().hostile_accounts(seed=7, hostile=hostile)
    assert result["guarded_flags"] == []
    assert result["honest_excluded"] <= 3


def test_the_attack_is_real_the_plain_refit_flags_the_item():
    """The test above could fail: ten accounts flag the good item when nothing guards the refit."""
    assert "label_far" in _bench().hostile_accounts(seed=7, hostile=10)["plain_flags"]


def test_person_fit_rates_on_a_small_run():
    rates = _bench().person_fit_rates(seed=1, honest=60, colluders=30, lengths=(40,))
    assert rates["40"]["false_alarm"] <= 0.05
    assert rates["40"]["hit"] >= 0.2


# An abandoned round: a first round answered as the model expects (right up to a difficulty, wrong
# beyond it), then a round of easier items left as "I don't know" (or unanswered) to the end.
FIRST_ROUND = [Answered(b, 0.0, 1.0 if b < 1.1 else 0.0) for b in [0.2, 0.4, 0.5, 0.7, 0.8, 1.0, 1.2, 1.3, 1.5]]
GIVEN_UP = [Answered(b, 0.0, 0.0) for b in [-0.6, -0.5, -0.4, -0.3, -0.2, -0.1]]


def test_an_abandoned_round_counted_as_wrong_would_read_as_key_sharing():
    # The trap the rule avoids: the given-up items scored as wrong answers look like "wrong on easy ones".
    assert person_fit(1.0, FIRST_ROUND + GIVEN_UP).flagged


def test_items_left_unanswered_or_declined_do_not_count_towards_the_misfit():
    left = [Answered(a.b, a.floor, a.score, answered=False) for a in GIVEN_UP]
    fit = person_fit(1.0, [*FIRST_ROUND, *left, Answered(0.9, 0.0, 1.0)])
    assert fit is not None
    assert not fit.flagged
    assert fit.answers == len(FIRST_ROUND) + 1  # only what was answered is counted
    # Unanswered items do not make up the minimum either.
    assert person_fit(1.0, [*FIRST_ROUND, *left]) is None


def test_a_real_aberrant_pattern_is_flagged_however_many_items_were_left_unanswered():
    aberrant = [Answered(b, 0.0, 0.0 if b < 0 else 1.0) for b in DIFFICULTIES]  # easy wrong, hard right
    left = [Answered(a.b, a.floor, a.score, answered=False) for a in GIVEN_UP]
    assert person_fit(0.0, [*aberrant, *left]).flagged


def test_the_guarded_refit_leaves_declined_answers_out_of_person_fit_only():
    """A learner whose last round is all "I don't know": not flagged, not excluded from the refit."""
    rng = random.Random(11)
    bank = {f"i{n}": -1.5 + 0.15 * n for n in range(20)}
    priors = {item: ItemDifficulty(b, 0.5) for item, b in bank.items()}
    responses = [
        calibration.Response(item, f"honest-{n}", float(rng.random() < irt.p_correct(theta, b, 0.0)))
        for n, theta in enumerate(rng.gauss(0.0, 1.0) for _ in range(60))
        for item, b in bank.items()
    ]
    harder = [item for item, b in bank.items() if b >= 0.3]
    easier = [item for item, b in bank.items() if b < -0.6]
    answered = [calibration.Response(item, "gave-up", 1.0) for item in harder[:4]] + [
        calibration.Response(item, "gave-up", 0.0) for item in harder[4:]
    ]
    declined = [calibration.Response(item, "gave-up", 0.0, answered=False) for item in easier]
    guarded = calibration.calibrate_guarded(responses + answered + declined, priors)
    assert "gave-up" not in guarded.excluded
    assert "gave-up" not in guarded.person_fit or not guarded.person_fit["gave-up"].flagged
    # Counted as wrong answers, the same round would have been flagged.
    counted = [calibration.Response(item, "gave-up", 0.0) for item in easier]
    assert "gave-up" in calibration.calibrate_guarded(responses + answered + counted, priors).excluded
