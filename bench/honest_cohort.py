"""An honest cohort whose surveys look alike: does the bank keep serving it, and does the API
report each learner's ability?

A team of new hires fills the survey in alike. `--learners` honest learners (default 45) whose
surveys take `--forms` distinct forms (default 3: learner n has form n mod 3; same interests, level
and language within a form) play `--rounds` rounds of `--count` items each (default 2 of 5: one
session, as the web app starts them) through the local HTTP API (template.yaml's routes over moto,
the offline provider, the demo seed), one learner after the other. The attempts stream is folded
after every round (as the local stack's timer does).

The world (default): the round request names no question types, as the web app's does, so rounds
hold the product's default mix (multiple choice, true/false and short answers). A learner of true
ability theta ~ N(0, 1) knows an item with probability sigmoid(theta - b), b the item's true
difficulty (its label's b plus N(0, 0.7), drawn once per bank item, copies sharing it, never told
to the system: bench/api_ability.py's World); a multiple-choice or true/false item it does not know
it guesses. A short answer it knows is the key's reference answer (its keywords joined if none);
one it does not know is "I don't know". No reviewer acts: a grade waiting for review stays pending.
After the cohort, each learner's reported ability (`GET /learners/me/ability`, the category's
theta) against the truth: Pearson r, the RMSE, and the RMSE after the best linear map
(reported -> true by least squares), and how many answers were pending review.

`--choice-only`: the world the earlier figures were measured in (rounds of multiple choice and
true/false only; answers as the model says at the items' labels, no label error), the same random
stream, so those figures are reproducible; the ability figures are reported for it too.

Reported: generation calls (the model asked for questions) per round for the first, middle and
last third of the learners, in the order they played: as the bank fills, later learners should be
served from it (calls per round falling); the share of served items drawn from the bank, by third;
the items rested, by reason; and the learners the person-fit refit flags (run once at the end).
Targets: the last third's calls per round at most half the first third's; r >= 0.85.

Per-user rate limits are lifted (machine-speed play, as in the tests); everything else is the product's.

    python bench/honest_cohort.py [--learners 45] [--forms 3] [--rounds 2] [--count 5] [--seed 7]
                                  [--choice-only]
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import prepare_process_environment  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
prepare_process_environment()

from bench.api_ability import CATEGORY, Client, World  # noqa: E402
from bench.collusion import INTERESTS, QUESTION_TYPES, play  # noqa: E402
from bench.local_api import local_api  # noqa: E402
from slea.measurement import irt, scale  # noqa: E402

FORMS = (("Engineer", "Backend services"), ("Engineer", "Data pipelines"), ("Analyst", "Reports"))
TARGET_R = 0.85


def learner(seed: int, number: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"slea-bench-honest-cohort:{seed}:{number}"))


def survey(profiles: Any, user_id: str, form: int) -> None:
    role, duty = FORMS[form % len(FORMS)]
    profiles.put_item(
        Item={
            "user_id": user_id,
            "submitted_at": "2026-11-01T00:00:00Z",
            "self_level": "intermediate",
            "years_experience": 1 + form,
            "job_role": role,
            "duty": duty,
            "interests": INTERESTS,
            "previous_score": 0,
            "language": "en",
        }
    )


def thirds(values: list[float]) -> list[float]:
    """The mean of each third of `values`, in order."""
    size = len(values) / 3
    parts = [values[round(i * size) : round((i + 1) * size)] for i in range(3)]
    return [round(statistics.fmean(part), 2) if part else 0.0 for part in parts]


class DrawLog:
    """Why the bank gave a round fewer items than it asked for: every PlanRound's draw (run in this
    process), with the window's items counted by the first rule that left them out
    (bank_draw._eligible's order: seen by the learner, type, interests, then the session rule
    security/exposure.py names), what the slot-type choice picked and what `_apart` kept."""

    def __init__(self) -> None:
        self.draws: list[dict[str, Any]] = []
        self.current: dict[str, Any] = {}

    def patches(self, stack: ExitStack) -> None:
        from slea.dal import bank
        from slea.logic.rounds import bank_draw
        from slea.security.exposure import SessionContext

        real_draw, real_window = bank_draw.draw, bank.window
        real_by_slot, real_apart = bank_draw._by_slot_type, bank_draw._apart

        def draw(request: Any, target: float) -> Any:
            self.current = {"count": request.count, "slots": list(request.slot_types), "round": request.round}
            self.current |= {"target": round(target, 2), "left_out": Counter(), "eligible": Counter()}
            result = real_draw(request, target)
            self.current["drawn"] = Counter(question.type for question in result.questions)
            self.draws.append(self.current)
            return result

        def window(key: str, low: float, high: float) -> list[Any]:
            found = real_window(key, low, high)
            self.current["window"] = [round(low, 2), round(high, 2), len(found)]
            self.current["left_out"], self.current["eligible"] = Counter(), Counter()
            return found

        def eligible(item: Any, request: Any, interests: set[str], context: Any = None) -> bool:
            question = item.question  # dal.bank.BankItem
            if real_eligible(item, request, interests, context):
                self.current["eligible"][question.item_type] += 1
                return True
            if question.question_id in request.exclude_items:
                reason = "seen by the learner or in the session"
            elif request.question_types and question.item_type not in request.question_types:
                reason = "type not asked"
            else:
                conflict = (context or SessionContext(request.exposure)).conflict(
                    bank_draw.exposure.shown_question(question)
                )
                reason = (
                    "topics not of the interests (or not its own bank item)"
                    if conflict is None
                    else conflict.split(":")[0]
                )
            self.current["left_out"][f"{question.item_type}: {reason}"] += 1
            return False

        def by_slot(candidates: Any, found: Any, request: Any, rng: Any) -> Any:
            chosen = real_by_slot(candidates, found, request, rng)
            self.current["chosen"] = len(chosen)
            return chosen

        def apart(found: Any, seen: Any) -> Any:
            admits = real_apart(found, seen)

            def counted(candidate: Any) -> bool:
                admitted = bool(admits(candidate))
                if not admitted:  # passed over for the next best: it repeats or gives away a pick
                    self.current["apart_dropped"] = self.current.get("apart_dropped", 0) + 1
                return admitted

            return counted

        real_eligible = bank_draw._eligible
        stack.enter_context(mock.patch.object(bank_draw, "draw", draw))
        stack.enter_context(mock.patch.object(bank, "window", window))
        stack.enter_context(mock.patch.object(bank_draw, "_eligible", eligible))
        stack.enter_context(mock.patch.object(bank_draw, "_by_slot_type", by_slot))
        stack.enter_context(mock.patch.object(bank_draw, "_apart", apart))

    def summary(self, parts: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Per third of the draws: rounds short of their count, by slot type missing, and the
        window's items left out by rule (the last window looked at)."""
        rows = []
        for part in parts:
            short = [draw for draw in part if sum(draw["drawn"].values()) < draw["count"]]
            missing: Counter[str] = Counter()
            for draw in short:
                missing += Counter(draw["slots"]) - draw["drawn"] if draw["slots"] else Counter({"any": 1})
            left_out: Counter[str] = Counter()
            for draw in short:
                left_out += draw["left_out"]
            rows.append(
                {
                    "draws": len(part),
                    "short": len(short),
                    "short_in_round": dict(Counter(draw["round"] for draw in short)),
                    "missing_slots_by_type": dict(missing),
                    "chosen_below_count": sum(draw.get("chosen", 0) < draw["count"] for draw in short),
                    "dropped_by_apart": sum(draw.get("apart_dropped", 0) for draw in short),
                    "window_left_out_in_short_draws": dict(left_out.most_common()),
                    "eligible_in_short_draws": dict(sum((draw["eligible"] for draw in short), Counter())),
                }
            )
        return rows


def agreement(reported: list[float], true: list[float]) -> dict[str, float]:
    """Pearson r of reported and true ability, the RMSE, and the RMSE left after the best linear
    map of reported onto true (least squares)."""
    n = len(reported)
    mean_r, mean_t = statistics.fmean(reported), statistics.fmean(true)
    sxx = sum((x - mean_r) ** 2 for x in reported)
    syy = sum((y - mean_t) ** 2 for y in true)
    sxy = sum((x - mean_r) * (y - mean_t) for x, y in zip(reported, true, strict=True))
    r = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0
    slope = sxy / sxx if sxx > 0 else 0.0
    intercept = mean_t - slope * mean_r
    mapped = [intercept + slope * x for x in reported]
    return {
        "r": round(r, 3),
        "rmse": round(math.sqrt(sum((x - y) ** 2 for x, y in zip(reported, true, strict=True)) / n), 3),
        "rmse_after_linear_map": round(math.sqrt(sum((m - y) ** 2 for m, y in zip(mapped, true, strict=True)) / n), 3),
        "map_slope": round(slope, 3),
        "map_intercept": round(intercept, 3),
    }


def reported_ability(client: Client) -> dict[str, Any] | None:
    """The category's entry of `GET /learners/me/ability` (None if it has none)."""
    status, body = client("GET", "/learners/me/ability")
    assert status == 200, body
    entries = [entry for entry in body["abilities"] if entry["category"] == CATEGORY]
    return entries[0] if entries else None


def measure(  # noqa: PLR0915 - one cohort, start to end
    learners: int, forms: int, rounds: int, count: int, seed: int, *, choice_only: bool = False
) -> dict[str, Any]:
    from slea.llm.offline import OfflineProvider

    calls: list[int] = []
    real = OfflineProvider.generate_questions

    def counted(self: Any, request: Any, wanted: int) -> Any:
        calls.append(wanted)
        return real(self, request, wanted)

    rng = random.Random(seed)
    world = World(seed)
    started = time.perf_counter()
    per_learner: list[float] = []
    drawn_share: list[float] = []
    rows: list[dict[str, Any]] = []
    log = DrawLog()
    draws_before: list[int] = []  # the draw log's length when each learner started
    decided: dict[str, bool] = {}  # question id -> did the learner know it
    shown_short: list[dict[str, Any]] = []
    with ExitStack() as stack:
        log.patches(stack)
        stack.enter_context(mock.patch.object(OfflineProvider, "generate_questions", counted))
        api = stack.enter_context(local_api())
        step_functions, base, fold = api.step_functions, api.base, api.folding()
        questions, profiles = api.table("QuestionsTable"), api.table("ProfilesTable")

        users = [learner(seed, number) for number in range(learners)]
        for number, user in enumerate(users):
            survey(profiles, user, number % forms)
            theta = rng.gauss(0.0, 1.0)

            def at_the_labels(stored: dict[str, Any], question: dict[str, Any], theta: float = theta) -> bool:
                b = scale.label_to_b(int(question["difficulty"]))
                floor = irt.guess_floor(question["type"], len(question["choices"]) or None)
                return rng.random() < irt.p_correct(theta, b, floor)

            def knows_or_guesses(stored: dict[str, Any], question: dict[str, Any], theta: float = theta) -> bool:
                b = world.difficulty(str(stored.get("item_id") or question["question_id"]), int(question["difficulty"]))
                if question["type"] == "short_answer":  # written from what it knows, never guessed
                    decided[question["question_id"]] = rng.random() < irt.sigmoid(theta - b)
                    return decided[question["question_id"]]
                floor = irt.guess_floor(question["type"], len(question["choices"]) or None)
                return rng.random() < irt.sigmoid(theta - b) or rng.random() < floor

            before = len(calls)
            draws_before.append(len(log.draws))
            client = Client(base, user)
            answer, types = (at_the_labels, QUESTION_TYPES) if choice_only else (knows_or_guesses, None)
            played = play(client, questions, rounds, count, answer, after_round=fold, question_types=types)
            per_learner.append((len(calls) - before) / rounds)
            shown = [item for round_shown in played for item in round_shown]
            shown_short.extend(item for item in shown if item["type"] == "short_answer")
            drawn = sum(item["item_id"] != item["question_id"] for item in shown)
            drawn_share.append(drawn / len(shown) if shown else 0.0)
            ability = reported_ability(client)
            rows.append(
                {
                    "theta": theta,
                    "reported": None if ability is None else float(ability["theta"]),
                    "se": None if ability is None else float(ability["se"]),
                    "answers": len(shown),
                    "short_answers": sum(item["type"] == "short_answer" for item in shown),
                    "graded_for_review": sum(item["needs_review"] for item in shown),
                    "pending_review": 0 if ability is None else int(ability.get("pending_review") or 0),
                    "generation_calls_per_round": per_learner[-1],
                    "drawn_from_bank": drawn,
                }
            )
            row = rows[-1]
            print(
                f"honest_cohort: learner {number + 1}/{learners} (form {number % forms}): {per_learner[-1]} calls "
                f"a round, {drawn}/{len(shown)} drawn, {row['short_answers']} short "
                f"({row['pending_review']} pending); theta {theta:+.2f}, reported "
                f"{row['reported'] if row['reported'] is None else format(row['reported'], '+.2f')}; "
                f"{time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        step_functions.wait_for_running()
        refit = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 1}, name=f"honest-{seed}")
        assert refit.status == "SUCCEEDED", refit.cause
        abilities = api.table("AbilitiesTable")
        listed = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"}).get("Item") or {}
        flagged = set(listed.get("learners") or {})
        stored = questions.scan()["Items"]
    reasons = Counter(str(item.get("rest_reason") or "exposure") for item in stored if item.get("rested_at"))
    by_third = thirds(per_learner)
    cut = [
        draws_before[round(i * learners / 3)] if round(i * learners / 3) < learners else len(log.draws)
        for i in range(4)
    ]
    short_grades: Counter[str] = Counter()
    for item in shown_short:
        known = "known" if decided.get(item["question_id"]) else "not known"
        short_grades[f"{known}: score {item['score']}, {'pending' if item['needs_review'] else 'final'}"] += 1
    drawable = Counter(
        str(item.get("item_type")) for item in stored if item.get("bank_key") and not item.get("rested_at")
    )
    measured = [row for row in rows if row["reported"] is not None]
    fit = agreement([row["reported"] for row in measured], [row["theta"] for row in measured])
    calls_met = by_third[2] <= by_third[0] / 2
    return {
        "world": "choice-only, labels as difficulty" if choice_only else "default mix, label error 0.7, no reviewer",
        "learners": learners,
        "forms": forms,
        "rounds": rounds,
        "count": count,
        "seed": seed,
        "generation_calls_per_round_by_third": by_third,
        "last_third_at_most_half_the_first": calls_met,
        "drawn_from_bank_share_by_third": thirds(drawn_share),
        "ability": {**fit, "learners_with_an_estimate": len(measured)},
        "answers": sum(row["answers"] for row in rows),
        "short_answers": sum(row["short_answers"] for row in rows),
        "graded_for_review": sum(row["graded_for_review"] for row in rows),
        "pending_review_at_the_end": sum(row["pending_review"] for row in rows),
        "short_answer_grades": dict(short_grades.most_common()),
        "items_rested_by_reason": dict(reasons),
        "drawable_bank_items_by_type_at_the_end": dict(drawable),
        "short_draws_by_third": log.summary([log.draws[cut[i] : cut[i + 1]] for i in range(3)]),
        "honest_flagged": sum(user in flagged for user in users),
        "targets": [
            {
                "figure": "r reported vs true ability",
                "value": fit["r"],
                "target": f">= {TARGET_R}",
                "met": fit["r"] >= TARGET_R,
            },
            {
                "figure": "calls per round, last third vs first",
                "value": f"{by_third[2]} vs {by_third[0]}",
                "target": "last <= first / 2",
                "met": calls_met,
            },
        ],
        "per_learner": [
            {key: round(value, 3) if isinstance(value, float) else value for key, value in row.items()} for row in rows
        ],
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=45)
    parser.add_argument("--forms", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--choice-only", action="store_true", help="the earlier world: multiple choice and true/false at the labels"
    )
    arguments = parser.parse_args()
    result = measure(
        arguments.learners,
        arguments.forms,
        arguments.rounds,
        arguments.count,
        arguments.seed,
        choice_only=arguments.choice_only,
    )
    print(json.dumps(result))
    for row in result["targets"]:
        print(f"{'PASS' if row['met'] else 'MISS'}  {row['figure']:<40} {row['value']!s:>12}   target {row['target']}")


if __name__ == "__main__":
    main()
