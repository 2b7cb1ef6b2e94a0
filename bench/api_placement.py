"""Simulated learners of known ability take a placement test through the local HTTP API, as a
browser would: how many items, how close the level, how honest the 95% range, how exposed the
bank's items, and how long a learner waits for the next question.

The world is bench/api_ability.py's (its client, World, survey and Wilson interval are imported):
- a learner: true ability theta ~ N(0, 1); a survey whose self-level theta plus N(0, 1) noise
  gives, written to the profiles table before the test (the placement's prior comes from it);
  `--no-survey`: none (the population's prior); `--misstate`: every third learner states a level
  two bands off (advanced below 0, beginner above), as bench/placement_simulation.py's;
- items: whatever `POST /sessions/{id}/next` serves from the bank; each bank item's true
  difficulty is its label's b plus N(0, 0.7), drawn once per bank item (a drawn copy is the same
  item, by its `item_id` in the questions table) and never told to the system;
- an answer: multiple choice and true/false: the learner knows it with probability
  sigmoid(theta - b), else picks one of the choices at random; a short answer: the key's
  reference answer (or its keywords) with probability sigmoid(theta - b), else "I don't know",
  so the grader (possibly leaving it pending review) sees a realistic answer.

The bank: before the placements a warm-up cohort runs `--warm-rounds` practice rounds of
WARM_COUNT items, their difficulty labels cycling 1..10 (a new account every WARM_ROUNDS_PER_ACCOUNT
rounds, two rounds a session), and answers them as above; the placements' own background fills
(Mode 1 writing items near an estimate the bank lacks) add to it. A `next` answered 503
NO_QUESTION_YET is retried every POLL_SECONDS, as a browser would after `Retry-After` (locally
sooner), counted, and its wait timed.

Per learner: items used, NO_QUESTION_YET responses and their total wait, the result's theta and
95% range against the true theta, exact level and within one level (scale.level_of),
stopped_because; the wall-clock time (time.perf_counter) from sending an answer to having the next
question (POST answers + POST next, with any 503 wait) and of each POST next alone. Across
learners: medians and targets below. Per-user rate limits are lifted (machine-speed answers, as in
the tests); everything else is the product's.

    python bench/api_placement.py [--learners 30] [--warm-rounds 10] [--seed 31] [--no-survey] [--misstate]
"""

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# bench.api_ability prepares the local environment before slea is imported (Powertools reads it).
from bench.api_ability import (
    CATEGORY,
    Client,
    World,
    _wait_for_round,
    _write_survey,
    learner_id,
    self_level,
    wilson,
)
from bench.local_api import local_api
from slea.measurement import irt, scale

LEARNERS, SEED = 30, 31
WARM_ROUNDS = 10  # one pass over labels 1..10: about 20 items a label before the placements
WARM_COUNT = 20  # items a warm-up round asks for (the most a round may)
WARM_ROUNDS_PER_ACCOUNT = 10
POLL_SECONDS, NO_QUESTION_TIMEOUT = 0.5, 180.0
DONT_KNOW = "I don't know"
LEVELS = [word for word, _ in scale.LEVELS]
SELF_LEVELS = ("beginner", "intermediate", "advanced")
TARGETS = {
    "median_items": 18,
    "coverage": (0.90, 0.98),
    "within_one_level": 0.99,
    "max_exposure": 0.25,
    "median_answer_to_next_seconds": 0.3,
}


# ---------------------------------------------------------------- the learner (pure)
def stated_level(theta: float, rng: random.Random, misstates: bool) -> str:
    """The survey's self-level: api_ability's, or (misstating) two bands off the truth."""
    honest = self_level(theta, rng)  # drawn either way: the same cohort with or without misstating
    if misstates:
        return "advanced" if theta < 0 else "beginner"
    return honest


def answer_text(question: dict[str, Any], schema: dict[str, Any], knows: bool, rng: random.Random) -> str:
    """What the simulated learner types: the key (or the reference answer) when they know it; a
    guess among the choices (multiple choice, true/false) or "I don't know" (short answer) when not."""
    if question["type"] == "short_answer":
        if not knows:
            return DONT_KNOW
        reference = str(schema.get("reference_answer") or "").strip()
        return reference or " ".join(str(word) for word in schema.get("correct_keywords") or []) or DONT_KNOW
    if knows and schema.get("correct_key") is not None:
        return str(schema["correct_key"])
    if question["type"] == "true_false":
        return rng.choice(["true", "false"])
    letters = [str(choice).split(")")[0].strip() for choice in question.get("choices") or []]
    return rng.choice(letters or ["A"])


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile (linear interpolation between order statistics); nan for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    at = share * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


# ---------------------------------------------------------------- through the API
class Bench:
    """The local stack, its tables and the world's truth, shared by the warm-up and the placements."""

    def __init__(self, base: str, questions: Any, profiles: Any, world: World, seed: int) -> None:
        self.base, self.questions, self.profiles, self.world, self.seed = base, questions, profiles, world, seed

    def stored(self, question_id: str) -> dict[str, Any]:
        return dict(self.questions.get_item(Key={"question_id": question_id})["Item"])

    def respond(self, question: dict[str, Any], theta: float, rng: random.Random) -> tuple[str, str, bool]:
        """The answer text to a shown question, the bank item it is a copy of, and whether the
        learner knew it."""
        stored = self.stored(question["question_id"])
        item_id = str(stored.get("item_id") or question["question_id"])
        b = self.world.difficulty(item_id, int(question["difficulty"]))
        knows = rng.random() < irt.sigmoid(theta - b)
        return answer_text(question, stored.get("answer_schema") or {}, knows, rng), item_id, knows

    def bank_items(self) -> list[dict[str, Any]]:
        """The bank's originals (a drawn copy carries its original's `item_id`), not rested."""
        found, start = [], None
        while True:
            page = self.questions.scan(**({"ExclusiveStartKey": start} if start else {}))
            found += [
                item
                for item in page["Items"]
                if item.get("bank_key") and item.get("item_id") == item.get("question_id") and not item.get("rested_at")
            ]
            start = page.get("LastEvaluatedKey")
            if not start:
                return found


def bank_profile(items: list[dict[str, Any]]) -> dict[str, Any]:
    """How many bank items, of which types and at which labels."""
    return {
        "items": len(items),
        "by_type": dict(sorted(Counter(str(item.get("item_type")) for item in items).items())),
        "by_label": {str(k): v for k, v in sorted(Counter(int(item.get("difficulty") or 0) for item in items).items())},
    }


def warm_up(bench: Bench, rounds: int) -> dict[str, Any]:
    """`rounds` practice rounds of WARM_COUNT items at labels cycling 1..10, answered."""
    seen = {"rounds": 0, "rounds_failed": 0, "answers": 0}
    rng = random.Random(f"{bench.seed}:warm")
    session, client, theta = "", None, 0.0
    for number in range(rounds):
        if number % WARM_ROUNDS_PER_ACCOUNT == 0:
            client = Client(bench.base, learner_id(bench.seed, 100_000 + number))
            theta = rng.gauss(0.0, 1.0)
        assert client is not None
        round_number = 1 + number % 2
        if round_number == 1:
            status, created = client("POST", "/sessions")
            assert status == 201, created
            session = created["session_id"]
        request = {"round": round_number, "category": CATEGORY, "count": WARM_COUNT, "difficulty": 1 + number % 10}
        status, started = client("POST", f"/sessions/{session}/rounds", request)
        assert status == 202, started
        seen["rounds"] += 1
        if not _wait_for_round(client, session, round_number):
            seen["rounds_failed"] += 1
            continue
        status, listed = client("GET", f"/sessions/{session}/questions")
        assert status == 200, listed
        for question in [q for q in listed["questions"] if q["round"] == round_number and not q["answered"]]:
            text, _, _ = bench.respond(question, theta, rng)
            status, graded = client(
                "POST", f"/sessions/{session}/answers", {"question_id": question["question_id"], "user_answer": text}
            )
            assert status == 200, graded
            seen["answers"] += 1
        print(f"api_placement: warm-up round {number + 1}/{rounds}", file=sys.stderr, flush=True)
    return seen


def _next(client: Client, session: str, row: dict[str, Any]) -> tuple[int, Any]:
    """POST next until it is not 503 NO_QUESTION_YET (counted and timed on `row`)."""
    waited_from = None
    while True:
        sent = time.perf_counter()
        status, body = client("POST", f"/sessions/{session}/next")
        row["next_seconds"].append(time.perf_counter() - sent)
        if status != 503 or (body or {}).get("error_code") != "NO_QUESTION_YET":
            if waited_from is not None:
                row["waits"].append(time.perf_counter() - waited_from)
            return status, body
        row["no_question_yet"] += 1
        waited_from = waited_from if waited_from is not None else sent
        if time.perf_counter() - waited_from > NO_QUESTION_TIMEOUT:
            row["waits"].append(time.perf_counter() - waited_from)
            return status, body
        time.sleep(POLL_SECONDS)


def place(bench: Bench, number: int, theta: float) -> dict[str, Any]:
    """One learner's placement test; what it used, what it said, how long each step took."""
    rng = random.Random(f"{bench.seed}:placement:{number}")
    client = Client(bench.base, learner_id(bench.seed, number))
    row: dict[str, Any] = {
        "theta": theta,
        "items_shown": [],
        "no_question_yet": 0,
        "waits": [],
        "next_seconds": [],
        "answer_to_next_seconds": [],
        "answers": [],
        "error": None,
    }
    status, created = client("POST", "/sessions", {"purpose": "placement", "category": CATEGORY})
    if status != 201:
        row["error"] = {"step": "POST /sessions", "status": status, "body": created}
        return row
    session = created["session_id"]
    status, body = _next(client, session, row)
    while status == 200 and not body["done"]:
        question = body["question"]
        text, item_id, knows = bench.respond(question, theta, rng)
        row["items_shown"].append(item_id)
        sent = time.perf_counter()
        status, graded = client(
            "POST", f"/sessions/{session}/answers", {"question_id": question["question_id"], "user_answer": text}
        )
        if status != 200:
            row["error"] = {"step": "POST answers", "status": status, "body": graded, "after": len(row["items_shown"])}
            return row
        row["answers"].append(
            {"type": question["type"], "knows": knows, "score": graded["score"], "needs_review": graded["needs_review"]}
        )
        status, body = _next(client, session, row)
        if status == 200 and not body["done"]:
            row["answer_to_next_seconds"].append(time.perf_counter() - sent)
    if status != 200:
        row["error"] = {"step": "POST next", "status": status, "body": body, "after": len(row["items_shown"])}
        return row
    row["result"] = body["result"]
    return row


def measure(
    learners: int = LEARNERS,
    seed: int = SEED,
    *,
    warm_rounds: int = WARM_ROUNDS,
    surveys: bool = True,
    misstate: bool = False,
) -> dict[str, Any]:
    rng = random.Random(seed)
    cohort = [(number, rng.gauss(0.0, 1.0)) for number in range(learners)]
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with local_api() as api:
        profiles = api.table("ProfilesTable")
        bench = Bench(api.base, api.table("QuestionsTable"), profiles, World(seed), seed)
        warm = warm_up(bench, warm_rounds)
        api.step_functions.wait_for_running()
        warmed = time.perf_counter()
        bank_before = bank_profile(bench.bank_items())
        for number, theta in cohort:
            level = stated_level(theta, rng, misstate and number % 3 == 0)
            if surveys:
                _write_survey(profiles, learner_id(seed, number), level)
            rows.append({**place(bench, number, theta), "misstated": surveys and misstate and number % 3 == 0})
            _progress_line(rows[-1], number, learners, started)
        api.step_functions.wait_for_running()
        bank_after = bank_profile(bench.bank_items())
    summary = summarise(rows)
    return {
        "learners": learners,
        "seed": seed,
        "surveys": surveys,
        "misstate": misstate,
        "warm_up": {**warm, "seconds": round(warmed - started, 1)},
        "bank_at_start": bank_before,
        "bank_at_end": bank_after,
        **summary,
        "seconds": round(time.perf_counter() - started, 1),
        "placement_seconds": round(time.perf_counter() - warmed, 1),
    }


def _progress_line(row: dict[str, Any], number: int, learners: int, started: float) -> None:
    result = row.get("result")
    said = (
        f"{result['theta']:+.2f} [{result['range_low']:+.2f}, {result['range_high']:+.2f}] {result['level']}, "
        f"{result['items']} items, {result['stopped_because']}"
        if result
        else f"error {row['error']}"
    )
    print(
        f"api_placement: learner {number + 1}/{learners}: theta {row['theta']:+.2f} -> {said}, "
        f"{row['no_question_yet']} x 503, {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
        flush=True,
    )


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures across learners (a learner whose test failed counts in `errors` only), and the
    targets beside them."""
    done = [row for row in rows if row.get("result")]
    n = len(done)
    errors = [row["result"]["theta"] - row["theta"] for row in done]
    covered = sum(row["result"]["range_low"] <= row["theta"] <= row["result"]["range_high"] for row in done)
    gaps = [abs(LEVELS.index(row["result"]["level"]) - LEVELS.index(scale.level_of(row["theta"]))) for row in done]
    items = [row["result"]["items"] for row in done]
    shown = Counter(item for row in done for item in set(row["items_shown"]))
    answer_to_next = [s for row in done for s in row["answer_to_next_seconds"]]
    next_alone = [s for row in done for s in row["next_seconds"]]
    waits = [s for row in rows for s in row["waits"]]
    misstated = [row["result"]["theta"] - row["theta"] for row in done if row.get("misstated")]
    figures: dict[str, Any] = {
        "placed": n,
        "errors": [{"learner": index, **row["error"]} for index, row in enumerate(rows) if row.get("error")],
        "items_median": statistics.median(items) if items else None,
        "items_mean": round(statistics.fmean(items), 2) if items else None,
        "items_range": [min(items), max(items)] if items else None,
        "items_mismatch": sum(row["result"]["items"] != len(row["items_shown"]) for row in done),
        "rmse": round(math.sqrt(statistics.fmean(e * e for e in errors)), 3) if errors else None,
        "bias": round(statistics.fmean(errors), 3) if errors else None,
        "rmse_misstated": round(math.sqrt(statistics.fmean(e * e for e in misstated)), 3) if misstated else None,
        "misstated": len(misstated),
        "coverage": round(covered / n, 3) if n else None,
        "coverage_interval_95": wilson(covered, n),
        "mean_se": round(statistics.fmean(row["result"]["se"] for row in done), 3) if done else None,
        "exact_level": round(sum(gap == 0 for gap in gaps) / n, 3) if n else None,
        "within_one_level": round(sum(gap <= 1 for gap in gaps) / n, 3) if n else None,
        "stopped_because": dict(sorted(Counter(row["result"]["stopped_because"] for row in done).items())),
        "pending_review": sum(int(row["result"].get("pending_review") or 0) for row in done),
        "answers_by_type": answers_by_type([answer for row in done for answer in row.get("answers", [])]),
        "distinct_items_shown": len(shown),
        "max_exposure": round(max(shown.values()) / n, 3) if shown else None,
        "no_question_yet": {
            "learners": sum(row["no_question_yet"] > 0 for row in rows),
            "responses": sum(row["no_question_yet"] for row in rows),
            "waits": len(waits),
            "total_wait_seconds": round(sum(waits), 1),
            "longest_wait_seconds": round(max(waits), 1) if waits else 0.0,
        },
        "answer_to_next_seconds": _latency(answer_to_next),
        "next_alone_seconds": _latency(next_alone),
    }
    figures["targets"] = targets(figures)
    return figures


def answers_by_type(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Per question type: answers, those left pending review, and the mean score (0-100) the
    grader gave when the learner knew the item and when not."""
    found: dict[str, Any] = {}
    for kind in sorted({answer["type"] for answer in answers}):
        mine = [answer for answer in answers if answer["type"] == kind]
        known = [answer["score"] for answer in mine if answer["knows"]]
        unknown = [answer["score"] for answer in mine if not answer["knows"]]
        found[kind] = {
            "answers": len(mine),
            "pending_review": sum(bool(answer["needs_review"]) for answer in mine),
            "mean_score_known": round(statistics.fmean(known), 1) if known else None,
            "mean_score_not_known": round(statistics.fmean(unknown), 1) if unknown else None,
        }
    return found


def _latency(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "median": round(percentile(values, 0.5), 3),
        "p90": round(percentile(values, 0.9), 3),
        "max": round(max(values), 3) if values else float("nan"),
    }


def targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    low, high = TARGETS["coverage"]
    rows = [
        (
            "median items",
            figures["items_median"],
            f"<= {TARGETS['median_items']}",
            lambda v: v <= TARGETS["median_items"],
        ),
        ("95% range coverage", figures["coverage"], f"{low}-{high}", lambda v: low <= v <= high),
        (
            "within one level",
            figures["within_one_level"],
            f">= {TARGETS['within_one_level']}",
            lambda v: v >= TARGETS["within_one_level"],
        ),
        (
            "max item exposure",
            figures["max_exposure"],
            f"<= {TARGETS['max_exposure']}",
            lambda v: v <= TARGETS["max_exposure"],
        ),
        (
            "median answer-to-next-question (s)",
            figures["answer_to_next_seconds"]["median"],
            f"<= {TARGETS['median_answer_to_next_seconds']}",
            lambda v: v <= TARGETS["median_answer_to_next_seconds"],
        ),
    ]
    return [
        {
            "figure": name,
            "value": value,
            "target": target,
            "met": value is not None and not _nan(value) and bool(check(value)),
        }
        for name, value, target, check in rows
    ]


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=LEARNERS, help="placement learners")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--warm-rounds", type=int, default=WARM_ROUNDS, help=f"practice rounds of {WARM_COUNT} before the placements"
    )
    parser.add_argument("--no-survey", action="store_true", help="learners who never fill in the survey")
    parser.add_argument("--misstate", action="store_true", help="every third learner states a level two bands off")
    arguments = parser.parse_args()
    result = measure(
        arguments.learners,
        arguments.seed,
        warm_rounds=arguments.warm_rounds,
        surveys=not arguments.no_survey,
        misstate=arguments.misstate,
    )
    print(json.dumps(result, indent=2))
    for row in result["targets"]:
        print(f"{'PASS' if row['met'] else 'MISS'}  {row['figure']:<36} {row['value']!s:>7}   target {row['target']}")


if __name__ == "__main__":
    main()
