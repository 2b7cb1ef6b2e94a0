"""Placement against two fixed rounds, on simulated learners of known ability (docs/benchmarks.md).

Everything measured runs slea.measurement itself: the adaptive loop (cat.py: select, estimate,
stop), the learners' priors (learner.prior_from_profile), the items' online difficulty steps
(items.online_step, as every answer applies them) and the level bands (scale.level_of).

The world: a bank of BANK_SIZE items of one category whose labels (1-10) are the generator's,
true b = label_to_b(label) + N(0, 0.7) (an LLM's label error); half multiple choice (4 options),
a fifth true/false, the rest short answers, every answer right with probability
P = floor + (1 - floor) sigmoid(theta - b) (the model's own form). `--tenths` grades short answers
in tenths half the time (Binomial(10, P) / 10), as bench/cat_simulation.py does: such a score
carries more information than the likelihood's single response credits it with, so the 95% range
is then conservative (docs/benchmarks.md). The bank is being calibrated: every answer moves its
item's b online, starting from the label's prior. Learners: theta ~ N(0, 1); a self-assessment
(beginner / intermediate / advanced) from theta + N(0, 1) gives the prior
(learner.prior_from_profile); `--misstated` makes a third of them state a level two bands off
(their prior is then 1.5+ logits from the truth).

Three tests of each learner, each on its own copy of the bank (the same learners, in the same order):
- placement: the PLACEMENT policy (the most informative items, the least shown of the
  near-equally good first, items shown to more than 25% of learners skipped; stop at SE 0.5 or
  25 items; a fifth of the prior the population's);
- fixed: two practice rounds of ten (70% success target, round 2 re-aimed at the estimate after
  round 1), the practice policy over the same loop;
- placement at 20: the placement policy run to exactly twenty items (the fixed rounds' length).

Figures: items used (median, mean), theta RMSE, the 95% credible interval's coverage, exact level
and within-one-level rates, the maximum item exposure (the share of learners shown the item), and
the RMSE for learners whose prior misses their ability by 1.5 logits or more.

    python bench/placement_simulation.py [--learners N] [--seed S] [--misstated] [--tenths]
"""

import argparse
import math
import random
import statistics
from dataclasses import dataclass, replace

from slea.logic.sessions.placement import SHORT_ANSWER_INFORMATION
from slea.measurement import cat, irt, items, learner, scale

BANK_SIZE = 600
LABEL_SD = scale.LABEL_B_SD
MIN_EXPOSURE_BASE = 20  # an exposure rate is not judged before this many learners (as the product)
LEVELS = [word for word, _ in scale.LEVELS]
SELF_LEVELS = ("beginner", "intermediate", "advanced")


@dataclass
class BankItem:
    item_id: str
    item_type: str
    floor: float
    true_b: float
    belief: items.ItemDifficulty
    shown: int = 0


def make_bank(rng: random.Random) -> list[BankItem]:
    bank = []
    for index in range(BANK_SIZE):
        label = rng.randint(1, 10)
        item_type = rng.choices(["multiple_choice", "true_false", "short_answer"], [5, 2, 3])[0]
        bank.append(
            BankItem(
                item_id=f"item-{index:04}",
                item_type=item_type,
                floor=irt.guess_floor(item_type, 4),
                true_b=scale.label_to_b(label) + rng.gauss(0, LABEL_SD),
                belief=items.ItemDifficulty.from_label(label),
            )
        )
    return bank


@dataclass(frozen=True)
class Learner:
    theta: float
    prior: tuple[float, float]


def make_learners(rng: random.Random, count: int, misstated: bool) -> list[Learner]:
    found = []
    for index in range(count):
        theta = rng.gauss(0, 1)
        said = theta + rng.gauss(0, 1)
        level = "beginner" if said < -0.5 else "advanced" if said > 0.5 else "intermediate"
        if misstated and index % 3 == 0:  # states a level two bands off
            level = "advanced" if theta < 0 else "beginner"
        found.append(Learner(theta, learner.prior_from_profile(level, 2, 0)))
    return found


TENTHS = False  # --tenths: short answers graded in tenths half the time


def answer(rng: random.Random, theta: float, item: BankItem) -> float:
    p = irt.p_correct(theta, item.true_b, item.floor)
    if TENTHS and item.item_type == "short_answer" and rng.random() < 0.5:
        return sum(rng.random() < p for _ in range(10)) / 10
    return 1.0 if rng.random() < p else 0.0


def loop_items(bank: list[BankItem], excluded: set[str], learners_so_far: int) -> list[cat.Item]:
    base = max(learners_so_far + 1, MIN_EXPOSURE_BASE)  # the share once this learner is shown it
    return [
        cat.Item(
            item.item_id,
            item.belief.b,
            item.floor,
            item.belief.se,
            (item.shown + 1) / base,
            SHORT_ANSWER_INFORMATION if item.item_type == "short_answer" else 1.0,
        )
        for item in bank
        if item.item_id not in excluded
    ]


def give(rng: random.Random, who: Learner, item: BankItem, posterior: learner.Posterior) -> learner.Posterior:
    """One answer: the learner's posterior and the item's online difficulty both learn from it."""
    score = answer(rng, who.theta, item)
    known = posterior.estimate()
    after = cat.estimate(posterior, [cat.Response(item.belief.b, item.floor, score, item.belief.se)])
    delta_b, delta_precision = items.online_step(item.belief, known.theta, item.floor, score, known.se)
    item.belief = replace(item.belief, b=item.belief.b + delta_b, precision=item.belief.precision + delta_precision)
    item.shown += 1
    return after


def adaptive(rng, who, bank, learners_so_far, policy):
    by_id = {item.item_id: item for item in bank}
    posterior, given, used = cat.initialise(who.prior, policy.prior_doubt), 0, set()
    while True:
        pool = loop_items(bank, used, learners_so_far)
        if cat.stop(posterior, given, policy.stop, exhausted=not pool) is not None:
            return posterior, given
        pick = cat.select(pool, posterior.estimate(), policy, rng)
        if pick is None:
            return posterior, given
        used.add(pick.item_id)
        posterior = give(rng, who, by_id[pick.item_id], posterior)
        given += 1


def fixed_rounds(rng, who, bank, learners_so_far, *, rounds=2, length=10):
    by_id = {item.item_id: item for item in bank}
    posterior, used = cat.initialise(who.prior), set()
    policy = cat.practice(0.7, length)
    for _ in range(rounds):
        chosen = cat.select_batch(loop_items(bank, used, learners_so_far), posterior.estimate(), policy, rng, length)
        for pick in chosen:  # a round is laid out before it is answered
            used.add(pick.item_id)
        for pick in chosen:
            posterior = give(rng, who, by_id[pick.item_id], posterior)
    return posterior, len(used)


@dataclass
class Outcome:
    errors: list[float]
    lengths: list[int]
    covered: list[bool]
    exact: list[bool]
    near: list[bool]
    misstated_errors: list[float]
    exposure: float


def run(method, learners, seed):
    rng = random.Random(seed)
    bank = make_bank(random.Random(seed))
    outcome = Outcome([], [], [], [], [], [], 0.0)
    for index, who in enumerate(learners):
        posterior, given = method(rng, who, bank, index)
        guess = posterior.estimate()
        low, high = cat.interval(posterior)
        said, true = LEVELS.index(scale.level_of(guess.theta)), LEVELS.index(scale.level_of(who.theta))
        outcome.errors.append(guess.theta - who.theta)
        outcome.lengths.append(given)
        outcome.covered.append(low <= who.theta <= high)
        outcome.exact.append(said == true)
        outcome.near.append(abs(said - true) <= 1)
        if abs(who.prior[0] - who.theta) >= 1.5:
            outcome.misstated_errors.append(guess.theta - who.theta)
    outcome.exposure = max(item.shown for item in bank) / len(learners)
    return outcome


def rmse(errors):
    return math.sqrt(statistics.mean(error * error for error in errors)) if errors else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--misstated", action="store_true", help="a third of the learners state a level two bands off")
    parser.add_argument("--tenths", action="store_true", help="short answers graded in tenths half the time")
    args = parser.parse_args()
    global TENTHS  # noqa: PLW0603 - the answer model of this run
    TENTHS = args.tenths
    learners = make_learners(random.Random(args.seed + 1), args.learners, args.misstated)
    at_twenty = replace(cat.PLACEMENT, stop=cat.StopRule(se_target=None, max_items=20, min_items=20))
    methods = {
        "placement (SE 0.5, max 25)": lambda rng, who, bank, n: adaptive(rng, who, bank, n, cat.PLACEMENT),
        "two fixed rounds of 10": fixed_rounds,
        "placement at 20 items": lambda rng, who, bank, n: adaptive(rng, who, bank, n, at_twenty),
    }
    world = (", a third misstating their level" if args.misstated else "") + (", tenths" if args.tenths else "")
    print(f"{args.learners} learners, seed {args.seed}, bank of {BANK_SIZE}{world}")
    print(
        "| test | items (median / mean) | RMSE | 95% coverage | exact level | within one | max exposure "
        "| RMSE, prior off by 1.5+ (n) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, method in methods.items():
        found = run(method, learners, args.seed)
        print(
            f"| {name} | {statistics.median(found.lengths):.0f} / {statistics.mean(found.lengths):.1f} "
            f"| {rmse(found.errors):.3f} | {statistics.mean(found.covered):.3f} | {statistics.mean(found.exact):.3f} "
            f"| {statistics.mean(found.near):.3f} | {found.exposure:.3f} "
            f"| {rmse(found.misstated_errors):.3f} ({len(found.misstated_errors)}) |"
        )


if __name__ == "__main__":
    main()
