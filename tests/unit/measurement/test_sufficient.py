"""The folded sums give the statistics the batch functions compute from the same responses at the
same abilities and difficulties: infit, outfit and facility as slea.measurement.calibration's,
lz as slea.measurement.person_fit's; and a reviewer's correction folded as a difference equals
the sums of the corrected responses."""

import random

import pytest

from slea.measurement import calibration
from slea.measurement.calibration import Response
from slea.measurement.items import ItemDifficulty
from slea.measurement.person_fit import Answered, person_fit
from slea.measurement.sufficient import ItemSums, LearnerSums, item_part, learner_part

FLOORS = (0.0, 0.25, 0.5)


def _responses(
    seed: int, learners: int = 40, items: int = 6
) -> tuple[list[Response], dict[str, float], dict[str, float]]:
    rng = random.Random(seed)
    thetas = {f"l{n}": rng.gauss(0.0, 1.0) for n in range(learners)}
    bs = {f"i{n}": rng.uniform(-2.0, 2.0) for n in range(items)}
    floors = {item: rng.choice(FLOORS) for item in bs}
    responses = []
    for learner, theta in thetas.items():
        for item, b in bs.items():
            if rng.random() < 0.7:
                floor = floors[item]
                # a short answer's partial credit now and then
                score = rng.choice((0.0, 1.0, 0.6)) if floor == 0.0 else float(rng.random() < 0.5 + 0.3 * (theta - b))
                responses.append(Response(item, learner, score, floor))
    return responses, thetas, bs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_item_sums_give_the_refits_infit_outfit_and_facility(seed):
    responses, thetas, bs = _responses(seed)
    abilities = {learner: (theta, 0.3) for learner, theta in thetas.items()}
    for item, b in bs.items():
        answers = [r for r in responses if r.item_id == item]
        rest = {answer: thetas[answer.learner] for answer in answers}
        batch = calibration._statistics(answers, abilities, rest, b, ItemDifficulty.from_label(5.5))
        sums = ItemSums()
        for answer in answers:
            sums += item_part(thetas[answer.learner], b, answer.floor, answer.score)
        assert sums.answers == batch.answers
        assert sums.facility == pytest.approx(batch.facility, abs=1e-12)
        assert sums.infit == pytest.approx(batch.infit, rel=1e-12)
        assert sums.outfit == pytest.approx(batch.outfit, rel=1e-12)


@pytest.mark.parametrize("seed", [4, 5])
def test_learner_sums_give_person_fits_lz(seed):
    responses, thetas, bs = _responses(seed, learners=12, items=20)
    checked = 0
    for learner, theta in thetas.items():
        answers = [r for r in responses if r.learner == learner]
        batch = person_fit(theta, [Answered(bs[a.item_id], a.floor, a.score) for a in answers])
        sums = LearnerSums()
        for answer in answers:
            sums += learner_part(theta, bs[answer.item_id], answer.floor, answer.score)
        if batch is None:
            assert sums.lz is None
            continue
        checked += 1
        assert sums.lz == pytest.approx(batch.lz, rel=1e-12)
    assert checked >= 10


def test_a_correction_folded_as_a_difference_equals_the_corrected_sums():
    theta, b, floor = 0.4, -0.2, 0.0
    first = item_part(theta, b, floor, 0.6) + item_part(1.0, b, floor, 1.0)
    corrected = first - item_part(theta, b, floor, 0.6) + item_part(theta, b, floor, 0.0)
    direct = item_part(theta, b, floor, 0.0) + item_part(1.0, b, floor, 1.0)
    for name in ("answers", "score", "expected", "variance", "squared", "standardised"):
        assert getattr(corrected, name) == pytest.approx(getattr(direct, name), abs=1e-12)
    learner = learner_part(theta, b, floor, 0.6) - learner_part(theta, b, floor, 0.6)
    assert learner.answers == 0
    assert learner.observed == pytest.approx(0.0, abs=1e-12)


def test_no_statistic_from_nothing_and_no_lz_below_person_fits_minimum():
    empty = ItemSums()
    assert empty.facility is None
    assert empty.infit is None
    assert empty.outfit is None
    nine = LearnerSums()
    for _ in range(9):
        nine += learner_part(0.0, 0.0, 0.25, 1.0)
    assert nine.lz is None
    assert (nine + learner_part(0.0, 0.0, 0.25, 0.0)).lz is not None
