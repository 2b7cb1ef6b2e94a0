"""Person fit and the guarded refit against hostile accounts, on simulated learners, through the
product's own code (slea.measurement.person_fit, slea.measurement.calibration): no copy.

Two measurements:
1. Person fit's hits and false alarms. Honest learners (true ability ~ N(0, 1)) answer items near
   their ability as the model says. Colluders (true ability ~ N(-1, 0.5)) hold the keys of a share
   of the bank harvested by other accounts: they answer a keyed item right and the others as the
   model says at their true ability; an item's key is in their pool the likelier the more accounts
   it was shown to (its exposure). Each learner's ability is estimated from their answers (EAP,
   as the refit does) and person fit computed at it (lz, and the key-exposure score test);
   reported: the share of honest learners flagged (false
   alarms) and of colluders flagged (hits), per number of answers.
2. Hostile accounts against a good item. A bank calibrated from honest learners; then `--hostile`
   accounts each answer ANSWERS items chosen to make one easy, well-labelled item look hard (they
   fail it and the other easy items, and pass hard ones). Reported: how far the item's b moves and
   whether it is flagged, by the plain refit (calibrate) and by the guarded one the job runs
   (calibrate_guarded).

    python bench/person_fit.py [--seed 7] [--honest 400] [--colluders 100] [--hostile 5,10]
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "layers" / "slea")]

from slea.measurement import irt  # noqa: E402
from slea.measurement.calibration import Response, calibrate, calibrate_guarded  # noqa: E402
from slea.measurement.items import ItemDifficulty  # noqa: E402
from slea.measurement.learner import Posterior  # noqa: E402
from slea.measurement.person_fit import Answered, person_fit  # noqa: E402

FLOORS = (0.25, 0.25, 0.5, 0.0)  # multiple choice twice as often as true/false or a short answer
HARVEST_REACH = 4.0  # a colluder holds an item's key with probability 4 x its exposure (at most 1)


def _bank(rng: random.Random, size: int) -> dict[str, tuple[float, float, int]]:
    """item id -> (true b, floor, label): labels as the generator sets them, with its error."""
    bank = {}
    for number in range(size):
        label = rng.randint(1, 10)
        true_b = ItemDifficulty.from_label(label).b + rng.gauss(0.0, 0.5)
        bank[f"i{number}"] = (true_b, rng.choice(FLOORS), label)
    return bank


def _exposures(rng: random.Random, bank: dict[str, tuple[float, float, int]]) -> dict[str, float]:
    """The share of accounts each item's key has been shown to: most items little, some much."""
    return {item: min(1.0, rng.expovariate(4.0)) for item in bank}


def _answer(rng: random.Random, theta: float, b: float, floor: float) -> float:
    return 1.0 if rng.random() < irt.p_correct(theta, b, floor) else 0.0


def _near(rng: random.Random, bank: dict[str, tuple[float, float, int]], theta: float, count: int) -> list[str]:
    """`count` items around `theta`, as a round draws them (the nearest fifth, at random)."""
    ranked = sorted(bank, key=lambda item: abs(bank[item][0] - theta))
    return rng.sample(ranked[: max(count, len(ranked) // 5)], count)


def _estimate(answers: list[tuple[float, float, float]]) -> float:
    posterior = Posterior.from_stored(None)
    for b, floor, score in answers:
        posterior = posterior.updated(b, floor, score)
    return posterior.estimate().theta


def _flagged(answers: list[tuple[float, float, float, float]]) -> bool | None:
    theta = _estimate([(b, floor, score) for b, floor, score, _ in answers])
    fit = person_fit(theta, [Answered(b, floor, score, exposure) for b, floor, score, exposure in answers])
    return None if fit is None else fit.flagged


def person_fit_rates(seed: int, honest: int, colluders: int, lengths: tuple[int, ...]) -> dict[str, object]:
    rng = random.Random(seed)
    bank = _bank(rng, 400)
    exposure = _exposures(rng, bank)
    rates: dict[str, object] = {}
    for length in lengths:
        false_alarms = hits = 0
        for _ in range(honest):
            theta = rng.gauss(0.0, 1.0)
            items = _near(rng, bank, theta, length)
            answers = [
                (bank[i][0], bank[i][1], _answer(rng, theta, bank[i][0], bank[i][1]), exposure[i]) for i in items
            ]
            false_alarms += bool(_flagged(answers))
        for _ in range(colluders):
            theta = rng.gauss(-1.0, 0.5)
            # Served as the estimate they show: keyed answers make them look able, so harder items come.
            shown = theta + 1.5
            items = _near(rng, bank, shown, length)
            # A key that went round to many accounts is the likelier to be in the colluders' pool.
            answers = [
                (
                    bank[i][0],
                    bank[i][1],
                    1.0
                    if rng.random() < min(1.0, HARVEST_REACH * exposure[i])
                    else _answer(rng, theta, bank[i][0], bank[i][1]),
                    exposure[i],
                )
                for i in items
            ]
            hits += bool(_flagged(answers))
        rates[str(length)] = {"false_alarm": round(false_alarms / honest, 3), "hit": round(hits / colluders, 3)}
    return rates


def hostile_accounts(seed: int, hostile: int, answers_each: int = 15) -> dict[str, object]:
    """How far a few accounts move a good easy item, and whether they get it flagged."""
    rng = random.Random(seed)
    bank = _bank(rng, 60)
    priors = {item: ItemDifficulty.from_label(label) for item, (_, _, label) in bank.items()}
    responses = []
    for learner in range(150):
        theta = rng.gauss(0.0, 1.0)
        for item in _near(rng, bank, theta, 20):
            b, floor, _ = bank[item]
            responses.append(Response(item, f"honest{learner}", _answer(rng, theta, b, floor), floor))
    easy = sorted(bank, key=lambda item: bank[item][0])
    target = next(item for item in easy if abs(bank[item][0] - priors[item].b) < 0.3)
    hard = easy[-(answers_each - 1) :]
    attack = []
    for account in range(hostile):
        attack.append(Response(target, f"hostile{account}", 0.0, bank[target][1]))
        attack.extend(Response(item, f"hostile{account}", 1.0, bank[item][1]) for item in hard)
    before = calibrate(responses, priors)[target]
    plain = calibrate(responses + attack, priors)[target]
    guarded = calibrate_guarded(responses + attack, priors)
    kept = guarded.items[target]
    return {
        "hostile_accounts": hostile,
        "target_b_honest": round(before.b, 2),
        "plain_b_moved": round(plain.b - before.b, 2),
        "plain_flags": plain.flags,
        "guarded_b_moved": round(kept.b - before.b, 2),
        "guarded_flags": kept.flags,
        "hostile_excluded": sum(1 for learner in guarded.excluded if learner.startswith("hostile")),
        "honest_excluded": sum(1 for learner in guarded.excluded if learner.startswith("honest")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=1, help="repeat over this many seeds and report the spread")
    parser.add_argument("--honest", type=int, default=400)
    parser.add_argument("--colluders", type=int, default=100)
    parser.add_argument("--lengths", default="10,20,40")
    parser.add_argument("--hostile", default="5,10")
    arguments = parser.parse_args()
    lengths = tuple(int(n) for n in arguments.lengths.split(","))
    runs = [
        person_fit_rates(arguments.seed + n, arguments.honest, arguments.colluders, lengths)
        for n in range(arguments.seeds)
    ]
    for length in map(str, lengths):
        false_alarms = [run[length]["false_alarm"] for run in runs]  # type: ignore[index]
        hits = [run[length]["hit"] for run in runs]  # type: ignore[index]
        print(
            f"person fit after {length:>2} answers: false alarms {statistics.mean(false_alarms):.3f}, "
            f"hits {statistics.mean(hits):.3f} (over {len(runs)} seed(s))"
        )
    for count in (int(n) for n in arguments.hostile.split(",")):
        print(json.dumps(hostile_accounts(arguments.seed, count)))


if __name__ == "__main__":
    main()
