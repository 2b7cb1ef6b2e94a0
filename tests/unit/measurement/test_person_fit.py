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
