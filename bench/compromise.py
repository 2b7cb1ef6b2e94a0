"""How the compromised-item CUSUM (slea.measurement.compromise) behaves on simulated answers: how
often it rests a good item (false rests, ARL0 in quality-control terms) and how many key-holders'
answers a leaked item takes to rest (ARL1). Pure simulation, no API, a few seconds a setting.

Model: items of true difficulty b ~ N(0, 1), half multiple-choice (guessing floor 1/4), half
true/false (1/2); each labelled with an error ~ N(0, LABEL_B_SD = 0.7) (or exactly one logit off:
`label_off`), and moved after every answer by the product's online step (measurement.items) from
the answer's ability estimate. Honest learners: true ability ~ N(0, 1), answering as the model
says; the ability the fold scores them at is their true one plus noise ~ N(0, `--theta-sd`) (the
product's estimate after a round or two has a standard error of about 0.5). Key-holders: the same
abilities and estimates, always right on a leaked item. Every answer is a new learner's (the fold
counts one answer per learner and item).

Reported per setting (K, H, CAP; the product's unless `--grid` or given):
- honest: the share of items rested within 100 and within 200 honest answers, with label errors
  ~ N(0, 0.7) and with labels one logit off (either way);
- leaked after `--leak-after` honest answers: key-holders' answers until the item rests (median and
  90th percentile; 61: not within 60), and the share rested by the 5th key-holder (one party of
  five accounts) and by the 10th; `--key-share` < 1 mixes honest answers in between. Twice: with
  key-holders' ability estimates as honest learners' (`holder_bias` 0: a party answering well
  elsewhere too), and a logit lower (1: a party guessing on the items it holds no key for, as
  bench/collusion.py's later accounts do).

    python bench/compromise.py [--items 2000] [--grid] [--k 0.75 --h 4 --cap 3] [--leak-after 20]
                               [--key-share 1.0] [--theta-sd 0.5] [--seed 1]
"""

import argparse
import json
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.measurement import compromise, irt, items  # noqa: E402
from slea.measurement.scale import LABEL_B_SD  # noqa: E402

MAX_KEY_USES = 60


@dataclass(frozen=True)
class Setting:
    k: float
    h: float
    cap: float


class Item:
    def __init__(self, rng: random.Random, label_off: float | None = None) -> None:
        self.b_true = rng.gauss(0.0, 1.0)
        self.floor = 0.25 if rng.random() < 0.5 else 0.5
        error = rng.gauss(0.0, LABEL_B_SD) if label_off is None else rng.choice((-label_off, label_off))
        self.difficulty = items.ItemDifficulty(self.b_true + error, 1.0 / LABEL_B_SD**2)
        self.state = compromise.Cusum()

    def answer(self, theta: float, estimate: float, theta_sd: float, right: bool | None) -> bool:
        """One learner's answer (right as the model says unless `right` is given): True if it rests the item."""
        p_true = irt.p_correct(theta, self.b_true, self.floor)
        score = float(right if right is not None else random.random() < p_true)
        self.state = self.state.after(estimate, self.difficulty.b, self.difficulty.se, self.floor, score)
        delta_b, delta_precision = items.online_step(self.difficulty, estimate, self.floor, score, theta_sd)
        self.difficulty = items.ItemDifficulty(self.difficulty.b + delta_b, self.difficulty.precision + delta_precision)
        return self.state.compromised


def learner(rng: random.Random, theta_sd: float) -> tuple[float, float]:
    theta = rng.gauss(0.0, 1.0)
    return theta, theta + rng.gauss(0.0, theta_sd)


def honest_rests(rng: random.Random, count: int, theta_sd: float, label_off: float | None) -> dict:
    rested_100 = rested_200 = 0
    for _ in range(count):
        item = Item(rng, label_off)
        for answer in range(200):
            if item.answer(*learner(rng, theta_sd), theta_sd, None):
                rested_100 += answer < 100
                rested_200 += 1
                break
    return {"within_100": round(rested_100 / count, 4), "within_200": round(rested_200 / count, 4)}


def key_uses(rng: random.Random, count: int, arguments: argparse.Namespace, holder_bias: float) -> dict:
    theta_sd, leak_after, key_share = arguments.theta_sd, arguments.leak_after, arguments.key_share
    uses_to_rest: list[int] = []
    rested_before_leak = 0
    for _ in range(count):
        item = Item(rng)
        if any(item.answer(*learner(rng, theta_sd), theta_sd, None) for _ in range(leak_after)):
            rested_before_leak += 1
            continue
        uses = 0
        while uses < MAX_KEY_USES:
            holder = rng.random() < key_share
            uses += holder
            theta, estimate = learner(rng, theta_sd)
            if item.answer(theta, estimate - (holder_bias if holder else 0.0), theta_sd, True if holder else None):
                break
        uses_to_rest.append(uses if item.state.compromised else MAX_KEY_USES + 1)
    ordered = sorted(uses_to_rest)
    return {
        "median_uses": statistics.median(ordered),
        "p90_uses": ordered[int(0.9 * (len(ordered) - 1))],
        "rested_by_5": round(sum(u <= 5 for u in ordered) / len(ordered), 3),
        "rested_by_10": round(sum(u <= 10 for u in ordered) / len(ordered), 3),
        "rested_before_leak": rested_before_leak,
    }


def run(setting: Setting, arguments: argparse.Namespace) -> dict:
    rng = random.Random(arguments.seed)
    random.seed(arguments.seed)
    saved = compromise.K, compromise.H, compromise.CAP
    compromise.K, compromise.H, compromise.CAP = setting.k, setting.h, setting.cap  # read at each call
    leaked = {"leak_after": arguments.leak_after, "key_share": arguments.key_share}
    try:
        return {
            "k": setting.k,
            "h": setting.h,
            "cap": setting.cap,
            "false_rests": honest_rests(rng, arguments.items, arguments.theta_sd, None),
            "false_rests_label_off_1": honest_rests(rng, arguments.items, arguments.theta_sd, 1.0),
            "leaked": [
                leaked | {"holder_bias": bias} | key_uses(rng, arguments.items // 2, arguments, bias)
                for bias in (0.0, 1.0)
            ],
        }
    finally:
        compromise.K, compromise.H, compromise.CAP = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--grid", action="store_true", help="K in 0.5, 0.75, 1; H in 3, 4, 6; CAP in 2, 3")
    parser.add_argument("--k", type=float, default=compromise.K)
    parser.add_argument("--h", type=float, default=compromise.H)
    parser.add_argument("--cap", type=float, default=compromise.CAP)
    parser.add_argument("--leak-after", type=int, default=20)
    parser.add_argument("--key-share", type=float, default=1.0)
    parser.add_argument("--theta-sd", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    if arguments.grid:
        settings = [Setting(k, h, cap) for k in (0.5, 0.75, 1.0) for h in (3.0, 4.0, 6.0) for cap in (2.0, 3.0)]
    else:
        settings = [Setting(arguments.k, arguments.h, arguments.cap)]
    for setting in settings:
        print(json.dumps(run(setting, arguments)), flush=True)


if __name__ == "__main__":
    main()
