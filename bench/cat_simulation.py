"""Simulated learners of known ability through the real measurement code (docs/benchmarks.md).

Everything measured runs slea.measurement itself (Posterior, choose_items, online_step, calibrate,
the scale mappings) and, for the comparison, slea.logic.rounds.planning.decide_difficulty: no copy.

The world:
- learners: true ability theta ~ N(0, 1); a self-assessed level (beginner / intermediate /
  advanced) from theta plus N(0, 1) noise, which gives both methods their starting point (the
  heuristic's round-1 label, the EAP prior through prior_from_profile); one or two interests among
  TOPICS; rounds of ROUND_SIZE items, ANSWERS answers each;
- items: a label 1..10 from the generator, true b = label_to_b(label) + N(0, 0.7) (the error of an
  LLM's label); half multiple choice with 4 options (floor 1/4), a fifth true/false (floor 1/2),
  the rest short answers (floor 0) graded with partial credit;
- `--choice-only`: the API bench's world instead (bench/api_ability.py): multiple choice and
  true/false requested, laid out as the product lays them (four to one in rounds of five; three
  to two as cycled before, `--types cycled`); run it with `--learners 40` (cohort 1, on a new
  bank, is what the API bench measures);
- answers drawn from the model: P = floor + (1 - floor) sigmoid(theta - b); a short answer is
  graded all-or-nothing half the time (score 1 with probability P) and in tenths otherwise
  (Binomial(10, P) / 10), so its expected score is P either way;
- the bank (bank-first rounds): a round draws, among the bank's items in the
  learner's interests that this learner has not seen and whose difficulty is within NEAR_TARGET
  logits of the target for the learner's current estimate, ROUND_SIZE items with choose_items
  (randomesque among the best 5, exposure cap 0.25, success target 0.7); the shortfall is
  generated (one LLM call per round that has one), at the target difficulty's label, and joins the
  bank with its label prior. An item's exposure rate is the share of learners so far who were
  shown it, not judged before MIN_EXPOSURE_BASE learners (1 of the first 3 learners is not 33%).

The run: cohort 1 starts on an empty bank, its answers refine item difficulties online
(online_step, applied as the ADD deltas the store applies); calibrate() then refits every answered
item from cohort 1's responses. Cohort 2 (other learners) is then measured three ways on copies of
that bank, with the same learners and the same random stream per learner:
- heuristic: today's rule, decide_difficulty, every round generated at one label (round 1 from the
  profile; each later round from the previous round's share correct, as round 2 is today). The
  ability it implies is label_to_b of the label it would set next: the ability at which that
  label's items are answered right half the time (its "no change" band is 40-60% correct). It
  reports no error bar, so it has no coverage;
- labels only: the engine with every b from its label (SD 0.7) and never updated;
- calibrated: the engine with the calibrated b (and online steps from there on).

The posterior is told each item's b with its uncertainty, as the answer path tells it (the label's
SD, or the bank's online or calibrated SE); `--known-difficulty` takes every b as known instead
(the rule before), to measure what that changes. Generated items are written at the difficulty a
round aims at (irt.aimed_difficulty: the success rate, never past the type's most informative b).

Figures (each printed beside its target from the issue, PASS/MISS): theta RMSE, bias and the
coverage of theta +- 1.96 SE after 5, 10 and 20 answers; item-difficulty RMSE of the labels, of
the online steps and of the calibration, over the items cohort 1 answered (and over those with 30+
answers); the maximum exposure rate and Barrada's overlap rate T = (n/Q) S^2_r + Q/n (n items in
the bank, Q items per learner, S^2_r the variance of the exposure rates); LLM generation calls
per round by block of learners as the bank grows; the median CPU time of one posterior update and
of one selection (the thread's CPU time: on a shared machine, wall time also measures the other
processes).

Skipping (`--skipping`): the same learners over six rounds of ten items answer what they know
and, for what they do not, guess, answer wrong, or leave it: a skip counted as wrong (today) or
not counted (before); the figure is how far a skipper ends above the same learner answering wrong.

    python bench/cat_simulation.py [--learners N] [--seed S | --seeds S1 S2 ...] [--quick] [--skipping]
                                   [--choice-only] [--known-difficulty]
"""

import argparse
import copy
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.constants import HIGH_SCORE_THRESHOLD, SCORE_MAX, QuestionType  # noqa: E402
from slea.contracts.profile import UserProfile  # noqa: E402
from slea.dal.attempts import stored_attempt  # noqa: E402
from slea.logic.rounds.planning import decide_difficulty  # noqa: E402
from slea.logic.rounds.target import DEFAULT_MIX, slot_types  # noqa: E402
from slea.measurement import calibration, irt, scale, selection  # noqa: E402
from slea.measurement.items import ItemDifficulty, online_step  # noqa: E402
from slea.measurement.learner import PRIOR_SD, Estimate, Posterior, prior_from_profile  # noqa: E402

ROUND_SIZE = 5
ANSWERS = 20
CHECKPOINTS = (5, 10, 20)
SUCCESS_RATE = 0.7  # the practice default
PLACEMENT_SUCCESS_RATE = 0.5  # the placement setting: the most informative target
Z95 = 1.96
TOPICS = ("python", "cloud", "data", "security")
TYPE_MIX = (("multiple_choice", 0.5), ("true_false", 0.2), ("short_answer", 0.3))
# The API bench's world (bench/api_ability.py): only choice items, cohorts of 40 on a new bank.
# CHOICE_MIX is the 3:2 share cycled rounds of five gave them (`--types random` draws by it).
CHOICE_MIX = (("multiple_choice", 0.6), ("true_false", 0.4))
CHOICE_TYPES = ("multiple_choice", "true_false")  # what the API bench requests
CHOICES = 4
ALL_OR_NOTHING_SHARE = 0.5  # short answers graded full or nothing; the rest in tenths
SELF_ASSESSMENT_SD = 1.0
SELF_LEVEL_CUT = 0.8  # theta + noise below -cut: beginner; above +cut: advanced
NEAR_TARGET = 0.75  # logits (1.5 label steps) either side of the target: an item that "fits"
MIN_EXPOSURE_BASE = 20
WELL_ANSWERED = 30  # items with this many answers: the calibration's own regime
BLOCKS = 8  # learners split in this many blocks for generation calls per round
TIMING_REPEATS = 2000
LEARNERS, QUICK_LEARNERS = 500, 120
SEED = 19

# The targets. "Near 0" generation calls: at most one round in ten still calls the LLM.
TARGET_THETA_RMSE_20 = 0.5
TARGET_COVERAGE = (0.90, 0.98)
COVERAGE_CHECKPOINTS = (10, 20)  # after 5 answers the prior still speaks: shown, not targeted
# The engine's runs the theta targets hold for: cohort 1 meets a new bank whose items are still
# being calibrated (online steps only), cohort 2 the calibrated one.
TARGETED_RUNS = (("engine_new_bank_cohort1", "new bank"), ("engine_calibrated", "calibrated"))
TARGET_B_RMSE_RATIO = 0.5
TARGET_MAX_EXPOSURE = 0.25
TARGET_CALLS_PER_ROUND = 0.1
TARGET_UPDATE_MS = 5.0


# ---------------------------------------------------------------- the world
@dataclass
class Item:
    item_id: str
    topic: str
    item_type: str
    floor: float
    label: int
    true_b: float
    belief: ItemDifficulty  # what the bank stores: the b every selection and update uses

    @property
    def label_b(self) -> float:
        return scale.label_to_b(self.label)


@dataclass(frozen=True)
class Learner:
    key: str
    theta: float
    self_level: str
    interests: tuple[str, ...]
    seed: int

    @property
    def profile(self) -> UserProfile:
        return UserProfile(
            user_id=self.key,
            self_level=self.self_level,  # type: ignore[arg-type]
            years_experience=0,
            job_role="engineer",
            duty="practice",
            interests=list(self.interests),
            previous_score=0,
        )

    @property
    def prior(self) -> tuple[float, float]:
        return prior_from_profile(self.self_level, 0, 0)


def learners(count: int, rng: random.Random, prefix: str) -> list[Learner]:
    made = []
    for number in range(count):
        theta = rng.gauss(0.0, 1.0)
        felt = theta + rng.gauss(0.0, SELF_ASSESSMENT_SD)
        level = "beginner" if felt < -SELF_LEVEL_CUT else "advanced" if felt > SELF_LEVEL_CUT else "intermediate"
        interests = tuple(rng.sample(TOPICS, rng.choice((1, 2))))
        made.append(Learner(f"{prefix}{number}", theta, level, interests, rng.randrange(2**32)))
    return made


TYPE_RULES = ("laid-out", "cycled", "random")


@dataclass(frozen=True)
class World:
    """What a run varies: the item types, and whether the posterior is told each item's
    difficulty uncertainty (the product's rule) or takes b as known (`known_difficulty`, the rule
    before, kept to measure what the uncertainty changes).

    How a round's slots get their types (`types`):
    - "laid-out", the product's (target.slot_types): the requested types (`requested`; None: the
      product's default mix) with the choice slots beyond one per type going to the type that
      tells most; the bank fills each type's slots among its own items, generation the rest;
    - "cycled", the product before: the bank draws any requested type for any slot, generation
      writes the shortfall cycling through the requested mix from its start;
    - "random", this simulation's earlier world: every generated item's type drawn from `mix`,
      the bank drawing any type."""

    mix: tuple[tuple[str, float], ...] = TYPE_MIX
    known_difficulty: bool = False
    types: str = "laid-out"
    requested: tuple[str, ...] | None = None

    def shares(self, success_rate: float = SUCCESS_RATE) -> tuple[tuple[str, float], ...]:
        """Each type's share of a round's slots (for the information bound)."""
        if self.types == "random":
            return self.mix
        slots = self.slots(success_rate, PRIOR_SD) if self.types == "laid-out" else self._cycle(ROUND_SIZE)
        return tuple((name, slots.count(name) / len(slots)) for name in dict.fromkeys(slots))

    def slots(self, success_rate: float, theta_se: float) -> list[str]:
        requested = cast("list[QuestionType] | None", list(self.requested) if self.requested else None)
        return list(slot_types(requested, ROUND_SIZE, success_rate, theta_se))

    def _cycle(self, count: int) -> list[str]:
        cycle = list(self.requested or DEFAULT_MIX)
        return [cycle[index % len(cycle)] for index in range(count)]

    def generated_types(self, rng: random.Random, slots: list[str], drawn: list["Item"]) -> list[str]:
        """The types generation writes for the slots the bank left."""
        missing = ROUND_SIZE - len(drawn)
        if self.types == "random":
            return [draw_type(rng, self.mix) for _ in range(missing)]
        if self.types == "cycled":
            return self._cycle(missing)
        left = [item.item_type for item in drawn]
        remaining = []
        for item_type in slots:
            if item_type in left:
                left.remove(item_type)
            else:
                remaining.append(item_type)
        return remaining


def draw_type(rng: random.Random, mix: tuple[tuple[str, float], ...] = TYPE_MIX) -> str:
    return rng.choices([name for name, _ in mix], weights=[share for _, share in mix])[0]


def answer(rng: random.Random, theta: float, item: Item) -> float:
    p = irt.p_correct(theta, item.true_b, item.floor)
    if item.item_type != "short_answer" or rng.random() < ALL_OR_NOTHING_SHARE:
        return float(rng.random() < p)
    return sum(rng.random() < p for _ in range(10)) / 10


def counts_as_correct(item: Item, score: float) -> bool:
    """is_correct as stored today: a short answer at HIGH_SCORE_THRESHOLD or more."""
    return score * SCORE_MAX >= HIGH_SCORE_THRESHOLD if item.item_type == "short_answer" else score == 1.0


def new_item(item_id: str, rng: random.Random, topic: str, item_type: str, label: int) -> Item:
    return Item(
        item_id=item_id,
        topic=topic,
        item_type=item_type,
        floor=irt.guess_floor(item_type, CHOICES),
        label=label,
        true_b=scale.label_to_b(label) + rng.gauss(0.0, scale.LABEL_B_SD),
        belief=ItemDifficulty.from_label(label),
    )


@dataclass
class Bank:
    items: dict[str, Item] = field(default_factory=dict)
    shown: dict[str, int] = field(default_factory=dict)  # learners shown each item
    tests: int = 0  # learners started
    generated: int = 0
    world: World = field(default_factory=World)

    def exposure_rate(self, item_id: str) -> float:
        return self.shown.get(item_id, 0) / max(self.tests, MIN_EXPOSURE_BASE)

    def fitting(
        self, learner: Learner, seen: set[str], theta: float, b_of: Callable[[Item], float], success_rate: float
    ) -> list[Item]:
        """Bank items a round may draw: in the learner's interests, unseen, near the target."""
        found = []
        for item in self.items.values():
            if item.topic not in learner.interests or item.item_id in seen:
                continue
            candidate = selection.Candidate(item.item_id, b_of(item), item.floor)
            if selection.distance_to_target(candidate, theta, success_rate) <= NEAR_TARGET:
                found.append(item)
        return found

    def generate(self, rng: random.Random, learner: Learner, theta: float, success_rate: float, item_type: str) -> Item:
        """One item of `item_type` written by the LLM at the learner's target difficulty; it joins the bank."""
        label = scale.b_to_label(irt.aimed_difficulty(theta, success_rate, irt.guess_floor(item_type, CHOICES)))
        self.generated += 1
        item = new_item(f"g{self.generated}", rng, rng.choice(learner.interests), item_type, label)
        self.items[item.item_id] = item
        return item


# ---------------------------------------------------------------- one learner, each method
@dataclass
class Outcome:
    estimates: dict[int, Estimate]  # after 5, 10, 20 answers
    generation_calls: int  # rounds that asked the LLM for items
    responses: list[calibration.Response]


def run_engine(
    bank: Bank, learner: Learner, *, labels_only: bool, online: bool, success_rate: float = SUCCESS_RATE
) -> Outcome:
    """Bank-first rounds, each chosen at the current EAP estimate; the posterior updated after
    every answer with the b the bank holds (or the label's, `labels_only`)."""
    rng = random.Random(learner.seed)
    b_of: Callable[[Item], float] = (lambda item: item.label_b) if labels_only else (lambda item: item.belief.b)
    # The uncertainty of that b, as the answer path passes it (the label's prior SD, or the bank's).
    se_of: Callable[[Item], float] = (lambda item: scale.LABEL_B_SD) if labels_only else (lambda item: item.belief.se)
    if bank.world.known_difficulty:
        se_of = lambda item: 0.0  # noqa: E731
    posterior = Posterior.prior(*learner.prior)
    seen: set[str] = set()
    estimates: dict[int, Estimate] = {}
    responses: list[calibration.Response] = []
    calls = 0
    bank.tests += 1
    for _ in range(ANSWERS // ROUND_SIZE):
        now = posterior.estimate()
        candidates = [
            selection.Candidate(item.item_id, b_of(item), item.floor, bank.exposure_rate(item.item_id))
            for item in bank.fitting(learner, seen, now.theta, b_of, success_rate)
        ]
        slots = bank.world.slots(success_rate, now.se) if bank.world.types == "laid-out" else []
        if slots:  # each type's slots among its own items, in slot order (logic/rounds/bank_draw.py)
            by_type = {
                item_type: selection.choose_items(
                    [c for c in candidates if bank.items[c.item_id].item_type == item_type],
                    now.theta,
                    success_rate,
                    slots.count(item_type),
                    rng=rng,
                )
                for item_type in dict.fromkeys(slots)
            }
            picked = [by_type[item_type].pop(0) for item_type in slots if by_type[item_type]]
        else:
            picked = selection.choose_items(candidates, now.theta, success_rate, ROUND_SIZE, rng=rng)
        chosen = [bank.items[candidate.item_id] for candidate in picked]
        if len(chosen) < ROUND_SIZE:
            calls += 1
            written = bank.world.generated_types(rng, slots, chosen)
            chosen += [bank.generate(rng, learner, now.theta, success_rate, item_type) for item_type in written]
        for item in chosen:
            seen.add(item.item_id)
            bank.shown[item.item_id] = bank.shown.get(item.item_id, 0) + 1
            score = answer(rng, learner.theta, item)
            before = posterior.estimate()
            posterior = posterior.updated(b_of(item), item.floor, score, se_of(item))
            if online:
                delta_b, delta_precision = online_step(item.belief, before.theta, item.floor, score, before.se)
                belief = item.belief
                item.belief = ItemDifficulty(belief.b + delta_b, belief.precision + delta_precision, belief.answers + 1)
            responses.append(calibration.Response(item.item_id, learner.key, score, item.floor))
            if len(responses) in CHECKPOINTS:
                estimates[len(responses)] = posterior.estimate()
    return Outcome(estimates, calls, responses)


def run_heuristic(learner: Learner) -> Outcome:
    """Today's rule: every round generated at one label from decide_difficulty."""
    rng = random.Random(learner.seed)
    profile = learner.profile
    label, _ = decide_difficulty(profile, 1, [])
    estimates: dict[int, Estimate] = {}
    answered = 0
    for round_number in range(ANSWERS // ROUND_SIZE):
        attempts = []
        for slot in range(ROUND_SIZE):
            item = new_item(f"h{round_number}.{slot}", rng, rng.choice(learner.interests), draw_type(rng), label)
            score = answer(rng, learner.theta, item)
            attempts.append(stored_attempt({"is_correct": counts_as_correct(item, score), "difficulty": label}))
        label, _ = decide_difficulty(profile, 2, attempts)  # later rounds follow round 2's rule
        answered += ROUND_SIZE
        if answered in CHECKPOINTS:
            estimates[answered] = Estimate(theta=scale.label_to_b(label), se=math.nan)
    return Outcome(estimates, ANSWERS // ROUND_SIZE, [])


# ---------------------------------------------------------------- figures
def theta_figures(cohort: list[Learner], outcomes: list[Outcome]) -> dict[str, dict[str, float | None]]:
    figures: dict[str, dict[str, float | None]] = {}
    for n in CHECKPOINTS:
        errors = [o.estimates[n].theta - learner.theta for learner, o in zip(cohort, outcomes, strict=True)]
        ses = [o.estimates[n].se for o in outcomes]
        covered = [abs(error) <= Z95 * se for error, se in zip(errors, ses, strict=True) if not math.isnan(se)]
        figures[str(n)] = {
            "rmse": round(math.sqrt(statistics.fmean(e * e for e in errors)), 3),
            "bias": round(statistics.fmean(errors), 3),
            "error_sd": round(statistics.pstdev(errors), 3),  # the RMSE a constant correction would leave
            "coverage": round(statistics.fmean(covered), 3) if covered else None,
            "mean_se": round(statistics.fmean(ses), 3) if covered else None,
        }
    return figures


def rmse(pairs: list[tuple[float, float]]) -> float | None:
    return round(math.sqrt(statistics.fmean((a - b) ** 2 for a, b in pairs)), 3) if pairs else None


def difficulty_figures(bank: Bank, fitted: dict[str, calibration.ItemStatistics]) -> dict[str, Any]:
    """b RMSE against the true b: the label alone, the online steps, the calibration; and whether
    the calibration's own SE is honest (true b within b +- 1.96 SE)."""

    def over(items: list[Item]) -> dict[str, Any]:
        if not items:
            return {"items": 0}
        stats = [fitted[item.item_id] for item in items]
        return {
            "items": len(items),
            "labels": rmse([(item.label_b, item.true_b) for item in items]),
            "online": rmse([(item.belief.b, item.true_b) for item in items]),
            "calibrated": rmse([(s.b, item.true_b) for s, item in zip(stats, items, strict=True)]),
            "calibrated_mean_se": round(statistics.fmean(s.se for s in stats), 3),
            # the scale's origin: anchoring to the labels puts it where the labels' mean error puts it
            "calibrated_mean_error": round(
                statistics.fmean(s.b - item.true_b for s, item in zip(stats, items, strict=True)), 3
            ),
            "online_mean_error": round(statistics.fmean(item.belief.b - item.true_b for item in items), 3),
            "calibrated_coverage": round(
                statistics.fmean(abs(s.b - item.true_b) <= Z95 * s.se for s, item in zip(stats, items, strict=True)), 3
            ),
        }

    answered = [bank.items[item_id] for item_id in fitted]
    return {
        "all_answered": over(answered),
        f"answered_{WELL_ANSWERED}_plus": over(
            [item for item in answered if fitted[item.item_id].answers >= WELL_ANSWERED]
        ),
        "median_answers_per_item": statistics.median(stats.answers for stats in fitted.values()),
    }


def se_bound(success_rate: float, mix: tuple[tuple[str, float], ...] = TYPE_MIX) -> float:
    """The smallest SE after ANSWERS answers that this item mix allows: prior precision plus
    ANSWERS times the mix's mean information at the target (every item exactly on target, the
    ability known): no estimator on these items can be surer."""
    per_answer = sum(
        share * irt.information(0.0, irt.aimed_difficulty(0.0, success_rate, floor), floor)
        for floor, share in ((irt.guess_floor(name, CHOICES), share) for name, share in mix)
    )
    return round(1.0 / math.sqrt(1.0 / PRIOR_SD**2 + ANSWERS * per_answer), 3)


def exposure_figures(bank: Bank) -> dict[str, float]:
    """Max exposure and Barrada's overlap rate over the bank's items, per learner (test)."""
    rates = [bank.shown.get(item_id, 0) / bank.tests for item_id in bank.items]
    n, q = len(rates), ANSWERS
    return {
        "items": n,
        "max_exposure": round(max(rates), 3),
        "overlap_rate": round(n / q * statistics.pvariance(rates) + q / n, 3),
    }


def calls_by_block(outcomes: list[Outcome]) -> list[float]:
    """LLM generation calls per round, mean over each block of learners, in the order they came."""
    size = max(1, len(outcomes) // BLOCKS)
    blocks = [outcomes[start : start + size] for start in range(0, len(outcomes) - size + 1, size)]
    rounds = ANSWERS // ROUND_SIZE
    return [round(sum(o.generation_calls for o in block) / (rounds * len(block)), 3) for block in blocks]


def median_ms(action: Callable[[], object], repeats: int) -> float:
    """The median CPU time of `action` in this thread (ms): what the machine's other processes
    do while it runs does not count."""
    times = []
    for _ in range(repeats):
        start = time.thread_time_ns()
        action()
        times.append(time.thread_time_ns() - start)
    return round(statistics.median(times) / 1e6, 4)


def timings(bank: Bank, repeats: int) -> dict[str, float]:
    rng = random.Random(0)
    posterior = Posterior.prior(0.0, 1.2).updated(0.3, 0.25, 1.0).updated(-0.2, 0.0, 0.6)
    candidates = [
        selection.Candidate(item.item_id, item.belief.b, item.floor, bank.exposure_rate(item.item_id))
        for item in bank.items.values()
    ]
    large = [selection.Candidate(f"s{n}", rng.gauss(0, 1.2), 0.25) for n in range(5000)]
    return {
        "update_ms": median_ms(lambda: posterior.updated(0.5, 0.25, 1.0), repeats),
        "estimate_ms": median_ms(posterior.estimate, repeats),
        "selection_ms": median_ms(
            lambda: selection.choose_items(candidates, 0.2, SUCCESS_RATE, ROUND_SIZE, rng=rng), repeats // 4
        ),
        "selection_bank_items": len(candidates),
        "selection_5000_ms": median_ms(
            lambda: selection.choose_items(large, 0.2, SUCCESS_RATE, ROUND_SIZE, rng=rng), repeats // 20
        ),
    }


# ---------------------------------------------------------------- the run
def calibrated_bank(
    bank: Bank, responses: list[calibration.Response], cohort: list[Learner]
) -> tuple[Bank, dict[str, calibration.ItemStatistics]]:
    """calibrate() on the cohort's answers, with the label priors and the learners' profile priors;
    the bank then holds each answered item's calibrated b and precision."""
    priors = {item_id: ItemDifficulty.from_label(item.label) for item_id, item in bank.items.items()}
    fitted = calibration.calibrate(responses, priors, {learner.key: learner.prior for learner in cohort})
    after = copy.deepcopy(bank)
    for item_id, stats in fitted.items():
        after.items[item_id].belief = ItemDifficulty(stats.b, 1.0 / stats.se**2, stats.answers)
    return after, fitted


def fresh_counts(bank: Bank) -> Bank:
    """The same items, exposure counted afresh (cohort 2's own exposure)."""
    copied = copy.deepcopy(bank)
    copied.shown, copied.tests = {}, 0
    return copied


def measure(
    learners_per_cohort: int = LEARNERS, seed: int = SEED, quick: bool = False, world: World | None = None
) -> dict[str, Any]:
    world = world or World()
    rng = random.Random(seed)
    first, second = learners(learners_per_cohort, rng, "a"), learners(learners_per_cohort, rng, "b")
    started = time.perf_counter()

    bank = Bank(world=world)
    cohort_one = [run_engine(bank, learner, labels_only=False, online=True) for learner in first]
    responses = [response for outcome in cohort_one for response in outcome.responses]
    calibration_started = time.perf_counter()
    calibrated, fitted = calibrated_bank(bank, responses, first)
    calibration_seconds = time.perf_counter() - calibration_started

    labels_bank = fresh_counts(bank)
    label_outcomes = [run_engine(labels_bank, learner, labels_only=True, online=False) for learner in second]
    calibrated_run = fresh_counts(calibrated)
    calibrated_outcomes = [run_engine(calibrated_run, learner, labels_only=False, online=True) for learner in second]
    placement_run = fresh_counts(calibrated)
    placement_outcomes = [
        run_engine(placement_run, learner, labels_only=False, online=True, success_rate=PLACEMENT_SUCCESS_RATE)
        for learner in second
    ]
    heuristic_outcomes = [run_heuristic(learner) for learner in second]

    theta = {
        "heuristic": theta_figures(second, heuristic_outcomes),
        "engine_new_bank_cohort1": theta_figures(first, cohort_one),
        "engine_labels_only": theta_figures(second, label_outcomes),
        "engine_calibrated": theta_figures(second, calibrated_outcomes),
        "engine_calibrated_target_0.5": theta_figures(second, placement_outcomes),
    }
    difficulty = difficulty_figures(bank, fitted)
    exposure = exposure_figures(calibrated_run)
    calls = {
        "heuristic": 1.0,
        "engine_by_block_cohort1_then_cohort2": calls_by_block(cohort_one) + calls_by_block(calibrated_outcomes),
        "bank_items_after_cohort1": len(bank.items),
        "bank_items_after_cohort2": len(calibrated_run.items),
    }
    timing = timings(calibrated_run, TIMING_REPEATS // (4 if quick else 1))
    result: dict[str, Any] = {
        "learners_per_cohort": learners_per_cohort,
        "seed": seed,
        "types": world.types,
        "mix": dict(world.shares()),
        "known_difficulty": world.known_difficulty,
        "theta": theta,
        "item_difficulty_rmse": difficulty,
        "exposure_cohort2_calibrated": exposure,
        "generation_calls_per_round": calls,
        "timing": timing,
        f"se_bound_after_{ANSWERS}": {
            f"target_{SUCCESS_RATE}": se_bound(SUCCESS_RATE, world.shares(SUCCESS_RATE)),
            f"target_{PLACEMENT_SUCCESS_RATE}": se_bound(PLACEMENT_SUCCESS_RATE, world.shares(PLACEMENT_SUCCESS_RATE)),
        },
        "calibration_seconds": round(calibration_seconds, 1),
        "responses_calibrated": len(responses),
        "seconds": round(time.perf_counter() - started, 1),
    }
    result["targets"] = targets(result)
    return result


def targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    difficulty = result["item_difficulty_rmse"]["all_answered"]
    blocks = result["generation_calls_per_round"]["engine_by_block_cohort1_then_cohort2"]
    low, high = TARGET_COVERAGE
    rows: list[tuple[str, Any, str, bool]] = []
    for run, name in TARGETED_RUNS:
        figures = result["theta"][run]
        rmse_20 = figures[str(ANSWERS)]["rmse"]
        rows.append(
            (
                f"theta RMSE after {ANSWERS}, {name}",
                rmse_20,
                f"<= {TARGET_THETA_RMSE_20}",
                rmse_20 <= TARGET_THETA_RMSE_20,
            )
        )
        for n in COVERAGE_CHECKPOINTS:
            coverage = figures[str(n)]["coverage"]
            rows.append((f"95% coverage after {n}, {name}", coverage, f"{low}-{high}", low <= coverage <= high))
    well = result["item_difficulty_rmse"][f"answered_{WELL_ANSWERED}_plus"]
    rows += [
        (
            "b RMSE calibrated / labels",
            round(difficulty["calibrated"] / difficulty["labels"], 3),
            f"<= {TARGET_B_RMSE_RATIO}",
            difficulty["calibrated"] <= TARGET_B_RMSE_RATIO * difficulty["labels"],
        ),
    ]
    if well["items"]:
        rows.append(
            (
                f"  the same, items with {WELL_ANSWERED}+ answers",
                round(well["calibrated"] / well["labels"], 3),
                f"<= {TARGET_B_RMSE_RATIO}",
                well["calibrated"] <= TARGET_B_RMSE_RATIO * well["labels"],
            )
        )
    rows += [
        (
            "max exposure, cohort 2",
            result["exposure_cohort2_calibrated"]["max_exposure"],
            f"<= {TARGET_MAX_EXPOSURE}",
            result["exposure_cohort2_calibrated"]["max_exposure"] <= TARGET_MAX_EXPOSURE,
        ),
        (
            "generation calls per round, last block",
            blocks[-1],
            f"<= {TARGET_CALLS_PER_ROUND} (from {blocks[0]})",
            blocks[-1] <= TARGET_CALLS_PER_ROUND,
        ),
        (
            "one posterior update (ms, median)",
            result["timing"]["update_ms"],
            f"<= {TARGET_UPDATE_MS}",
            result["timing"]["update_ms"] <= TARGET_UPDATE_MS,
        ),
    ]
    return [{"figure": name, "value": value, "target": target, "met": bool(met)} for name, value, target, met in rows]


def table(result: dict[str, Any]) -> str:
    lines = [f"{'method':<29} {'n':>3} {'RMSE':>6} {'bias':>7} {'err SD':>7} {'cover':>6} {'mean SE':>8}"]
    for method, figures in result["theta"].items():
        for n, row in figures.items():
            cover = "-" if row["coverage"] is None else f"{row['coverage']:.3f}"
            se = "-" if row["mean_se"] is None else f"{row['mean_se']:.3f}"
            shown = f"{row['rmse']:>6.3f} {row['bias']:>+7.3f} {row['error_sd']:>7.3f} {cover:>6} {se:>8}"
            lines.append(f"{method:<29} {n:>3} {shown}")
    lines.append("")
    for row in result["targets"]:
        lines.append(
            f"{'PASS' if row['met'] else 'MISS'}  {row['figure']:<40} {row['value']!s:>8}   target {row['target']}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- skipping
SKIP_ROUNDS, SKIP_ROUND_SIZE, SKIP_LEARNERS = 6, 10, 400
STRATEGIES = ("honest", "wrong", "skip_uncounted", "skip_counted")


def _skipping_path(theta: float, rng: random.Random, strategy: str) -> float:
    """One learner's estimate after SKIP_ROUNDS rounds of four-option items targeted near their
    current estimate. An item is known with probability sigmoid(theta - b) (the latent part of
    the model); an unknown one is guessed (`honest`: right with the floor's 1/4), answered wrong
    (`wrong`), or left unanswered: not counted at all (`skip_uncounted`, the rule before) or
    counted as wrong when the round is over (`skip_counted`, logic/rounds/skips.py). The same
    random stream for every strategy: the same items known."""
    floor = irt.guess_floor("multiple_choice", CHOICES)
    posterior = Posterior.prior(0.0, PRIOR_SD)
    for _ in range(SKIP_ROUNDS):
        target = posterior.estimate().theta
        for _ in range(SKIP_ROUND_SIZE):
            b = target + rng.gauss(0.0, 0.5) - 0.5
            known, guess = rng.random() < 1 / (1 + math.exp(-(theta - b))), rng.random() < floor
            if known:
                posterior = posterior.updated(b, floor, 1.0)
            elif strategy == "honest":
                posterior = posterior.updated(b, floor, 1.0 if guess else 0.0)
            elif strategy in ("wrong", "skip_counted"):  # a skip counts exactly as a wrong answer
                posterior = posterior.updated(b, floor, 0.0)
    return posterior.estimate().theta


def skipping_figures(learners: int = SKIP_LEARNERS, seed: int = SEED) -> dict[str, Any]:
    """Mean estimate per strategy after SKIP_ROUNDS rounds, the largest gap by which a skipper
    ends above the same learner answering wrong, and the share reported expert."""
    rng = random.Random(seed)
    thetas = [rng.gauss(0.0, 1.0) for _ in range(learners)]
    ends = {
        strategy: [
            _skipping_path(theta, random.Random(seed * 100_003 + index), strategy) for index, theta in enumerate(thetas)
        ]
        for strategy in STRATEGIES
    }
    gaps = [skip - wrong for skip, wrong in zip(ends["skip_counted"], ends["wrong"], strict=True)]
    before = [skip - wrong for skip, wrong in zip(ends["skip_uncounted"], ends["wrong"], strict=True)]
    return {
        "learners": learners,
        "rounds": SKIP_ROUNDS,
        "round_size": SKIP_ROUND_SIZE,
        "mean_theta": {strategy: round(statistics.fmean(values), 3) for strategy, values in ends.items()},
        "expert_share": {
            strategy: round(sum(scale.level_of(value) == "expert" for value in values) / learners, 3)
            for strategy, values in ends.items()
        },
        "max_skip_above_wrong": round(max(gaps), 3),
        "mean_skip_above_wrong_before": round(statistics.fmean(before), 3),
        "max_skip_above_wrong_before": round(max(before), 3),
    }


def over_seeds(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Each targeted figure over several seeds: its mean, SD, range and how many seeds met it."""
    summary: dict[str, Any] = {"seeds": [result["seed"] for result in results], "figures": {}}
    for index, row in enumerate(results[0]["targets"]):
        values = [result["targets"][index]["value"] for result in results]
        summary["figures"][row["figure"]] = {
            "mean": round(statistics.fmean(values), 3),
            "sd": round(statistics.pstdev(values), 3),
            "min": min(values),
            "max": max(values),
            "target": row["target"],
            "met": sum(result["targets"][index]["met"] for result in results),
        }
    return summary


def seeds_table(summary: dict[str, Any]) -> str:
    count = len(summary["seeds"])
    lines = [f"over seeds {summary['seeds']}: mean (SD) [min-max], seeds meeting the target"]
    for name, row in summary["figures"].items():
        lines.append(
            f"{row['met']:>2}/{count}  {name:<40} {row['mean']:>7} ({row['sd']}) [{row['min']}-{row['max']}]"
            f"   target {row['target']}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--learners", type=int, help=f"learners per cohort (default {LEARNERS}; --quick {QUICK_LEARNERS})"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--quick", action="store_true", help="a small run (the unit test's)")
    parser.add_argument(
        "--skipping", action="store_true", help="only the skipping figures: a skip counted as wrong, or not at all"
    )
    parser.add_argument("--seeds", type=int, nargs="+", help="several runs: each target's mean and spread")
    parser.add_argument(
        "--choice-only",
        action="store_true",
        help="the API bench's world: multiple choice and true/false only (3:2); use with --learners 40",
    )
    parser.add_argument(
        "--types",
        choices=TYPE_RULES,
        default="laid-out",
        help="how a round's slots get their types: the product's layout, the product before, or drawn at random",
    )
    parser.add_argument(
        "--known-difficulty",
        action="store_true",
        help="the posterior takes each item's b as known (the rule before), to compare",
    )
    arguments = parser.parse_args()
    world = World(
        CHOICE_MIX if arguments.choice_only else TYPE_MIX,
        arguments.known_difficulty,
        arguments.types,
        CHOICE_TYPES if arguments.choice_only else None,
    )
    if arguments.skipping:
        print(json.dumps(skipping_figures(arguments.learners or SKIP_LEARNERS, arguments.seed), indent=2))
        return
    count = arguments.learners or (QUICK_LEARNERS if arguments.quick else LEARNERS)
    if arguments.seeds:
        summary = over_seeds([measure(count, seed, arguments.quick, world) for seed in arguments.seeds])
        print(json.dumps(summary, indent=2))
        print(seeds_table(summary), file=sys.stderr)
        return
    result = measure(count, arguments.seed, arguments.quick, world)
    print(json.dumps(result, indent=2))
    print(table(result), file=sys.stderr)


if __name__ == "__main__":
    main()
