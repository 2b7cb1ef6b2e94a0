"""The refit gives the values it gave before it was made faster.

`calibration_reference.json` holds what the straightforward implementation of the refit (one
likelihood evaluation per answer, grid point and EM round, four EM fits in the guarded refit)
computed on the dataset below; the faster implementation must agree to 1e-9 on every statistic,
flag, exclusion and person-fit value. The dataset takes every path of the guarded refit: partial
credit, three guessing floors, an item without a prior, learner priors, repeated answers (only
the first counts), new accounts (weighted by their answers), accounts whose patterns misfit
(excluded), and items flagged both ways, some flags confirmed without the most adverse answers
and some not.
"""

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from slea.measurement import calibration, irt
from slea.measurement.items import ItemDifficulty

REFERENCE = Path(__file__).with_name("calibration_reference.json")
TOLERANCE = 1e-9
FLOORS = (0.0, 0.25, 0.25, 0.5)


def dataset() -> tuple[list[calibration.Response], dict[str, ItemDifficulty], dict[str, tuple[float, float]]]:
    rng = random.Random(20261127)
    labels = {f"i{n:02d}": 1 + n % 10 for n in range(40)}
    truth = {item: ItemDifficulty.from_label(label).b + rng.gauss(0.0, 0.5) for item, label in labels.items()}
    truth["i07"] -= 3.0  # far from its label: label_far
    floors = {item: rng.choice(FLOORS) for item in labels}
    exposure = {item: min(1.0, rng.expovariate(4.0)) for item in labels}
    items = sorted(labels)
    responses: list[calibration.Response] = []
    learner_priors: dict[str, tuple[float, float]] = {}

    def answer(learner: str, item: str, theta: float) -> None:
        p = irt.p_correct(theta, truth[item], floors[item])
        if item in ("i13", "i26"):  # answers falling with ability: misfit
            p = irt.p_correct(-theta, truth[item], floors[item])
        score = float(rng.random() < p)
        if floors[item] == 0.0 and rng.random() < 0.3:  # a short answer's partial credit
            score = rng.choice((0.25, 0.5, 0.75))
        responses.append(calibration.Response(item, learner, score, floors[item], exposure=exposure[item]))

    for number in range(300):
        learner, theta = f"u{number:03d}", rng.gauss(0.0, 1.0)
        if number % 7 == 0:
            learner_priors[learner] = (rng.gauss(0.0, 0.5), 0.8)
        answered = rng.sample(items, 5 if number % 11 == 0 else 18)  # a few new accounts
        for item in answered:
            answer(learner, item, theta)
        for item in answered[:2]:  # asked again: only the first answer counts in the guarded refit
            answer(learner, item, theta)
    ranked = sorted(items, key=lambda item: truth[item])
    for number in range(10):  # wrong on an easy item and right on hard ones, as hostile accounts answer
        learner = f"h{number}"
        for item in ranked[3 : 4 + number % 4]:
            responses.append(calibration.Response(item, learner, 0.0, floors[item], exposure=exposure[item]))
        for item in ranked[-14:]:
            responses.append(calibration.Response(item, learner, 1.0, floors[item], exposure=exposure[item]))
    responses.append(calibration.Response("unlabelled", "u001", 1.0))  # no prior: a middle label's
    priors = {item: ItemDifficulty.from_label(label) for item, label in labels.items()}
    return responses, priors, learner_priors


def _statistics(statistics: calibration.ItemStatistics) -> dict[str, Any]:
    return {
        "b": statistics.b,
        "se": statistics.se,
        "answers": statistics.answers,
        "facility": statistics.facility,
        "discrimination": statistics.discrimination,
        "infit": statistics.infit,
        "outfit": statistics.outfit,
        "flags": sorted(statistics.flags),
    }


def computed() -> dict[str, Any]:
    responses, priors, learner_priors = dataset()
    guarded = calibration.calibrate_guarded(responses, priors, learner_priors)
    plain = calibration.calibrate(responses, priors, learner_priors)
    return {
        "plain": {item: _statistics(statistics) for item, statistics in sorted(plain.items())},
        "guarded": {item: _statistics(statistics) for item, statistics in sorted(guarded.items.items())},
        "excluded": sorted(guarded.excluded),
        "person_fit": {
            learner: {"lz": fit.lz, "answers": fit.answers, "exposure_z": fit.exposure_z}
            for learner, fit in sorted(guarded.person_fit.items())
        },
    }


def _close(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert sorted(expected) == sorted(actual), where
        for key in expected:
            _close(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert expected == actual, where
    elif isinstance(expected, float) and actual is not None:
        assert math.isclose(expected, actual, rel_tol=0.0, abs_tol=TOLERANCE), f"{where}: {expected} != {actual}"
    else:
        assert expected == actual, where


@pytest.fixture(scope="module")
def now() -> dict[str, Any]:
    return computed()


@pytest.mark.parametrize("part", ["plain", "guarded", "excluded", "person_fit"])
def test_the_refit_gives_the_reference_values(now: dict[str, Any], part: str) -> None:
    _close(json.loads(REFERENCE.read_text())[part], now[part], part)


def test_the_dataset_takes_every_path_of_the_guarded_refit(now: dict[str, Any]) -> None:
    """Without this the comparison above could pass on a dataset that never reaches a branch."""
    guarded, plain = now["guarded"], now["plain"]
    assert now["excluded"]  # person fit left some accounts out
    assert any(flags for flags in (item["flags"] for item in guarded.values()))  # flags confirmed
    dropped = [item for item in guarded if set(plain[item]["flags"]) - set(guarded[item]["flags"])]
    assert dropped  # and flags the guard did not confirm
    assert any(plain[item]["answers"] > guarded[item]["answers"] for item in plain)  # repeats dropped
    assert {"misfit", "label_far"} <= {flag for item in guarded.values() for flag in item["flags"]}
