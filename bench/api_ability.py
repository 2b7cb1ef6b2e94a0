"""Simulated learners of known ability through the HTTP API: is the ability endpoint's 95% range
honest, and how far is its estimate from the truth after 10 and 20 answers?

The same world as bench/cat_simulation.py, but nothing of the engine is called directly: the
local HTTP API (template.yaml's routes over moto, the offline provider, the demo seed) serves
every step, as a browser would use it.
- a learner: true ability theta ~ N(0, 1); a survey with the self-level that theta plus N(0, 1)
  noise gives (cut at +-0.8, as the simulation's), written to the profiles table before the first
  answer (the API's prior comes from it); `--no-survey`: none, so the population's prior;
- items: whatever the rounds serve (generated, or drawn from the bank as it grows), multiple choice
  and true/false; an item's true difficulty is its label's b plus N(0, 0.7) (the error of an LLM's
  label), drawn once per bank item (a drawn copy is the same item) and never told to the system;
- an answer: the learner knows it with probability sigmoid(theta - b) and otherwise guesses among
  the choices, so P(right) = floor + (1 - floor) sigmoid(theta - b), the model's own form;
- rounds of 5 (`POST /sessions/{id}/rounds`), two per session, answered through
  `POST /sessions/{id}/answers`; after 10 and 20 answers, `GET /learners/me/ability`: the share of
  learners whose true theta lies in the range the panel prints (theta +- 1.96 se), the RMSE, and
  whether the history has one point per answer (the panel's count and its points agree).

Per-user rate limits are lifted (machine-speed answers, as in the tests); everything else is the
product's. Coverage comes with its Wilson 95% interval: with n learners it is known to about
+-2 sqrt(0.05 * 0.95 / n) (+-0.07 for 40).

    python bench/api_ability.py [--learners 40] [--seed 23] [--no-survey]
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import prepare_process_environment  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")  # the figures on stdout, not every request's log
prepare_process_environment()  # before slea is imported: Powertools reads the template's Globals then

from bench.cat_simulation import SELF_ASSESSMENT_SD, SELF_LEVEL_CUT, TARGET_COVERAGE, TARGET_THETA_RMSE_20  # noqa: E402
from bench.local_api import local_api  # noqa: E402
from slea.measurement import irt, scale  # noqa: E402

CATEGORY = "technical"
ROUND_SIZE = 5
ANSWERS = 20
CHECKPOINTS = (10, 20)
QUESTION_TYPES = ["multiple_choice", "true_false"]  # answers a simulated learner can give right or wrong
LEARNERS, SEED = 40, 23
Z95 = 1.96
POLL_SECONDS, ROUND_TIMEOUT = 0.05, 120.0


class Client:
    """The HTTP API as a learner's browser calls it: JSON, a bearer token."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token

    def __call__(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


def learner_id(seed: int, number: int) -> str:
    """A token subject (sessions need a UUID), the same for a seed and number on every run."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"slea-bench-learner:{seed}:{number}"))


def self_level(theta: float, rng: random.Random) -> str:
    felt = theta + rng.gauss(0.0, SELF_ASSESSMENT_SD)
    return "beginner" if felt < -SELF_LEVEL_CUT else "advanced" if felt > SELF_LEVEL_CUT else "intermediate"


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p, z = hits / n, Z95
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(centre - half, 3), round(centre + half, 3)


class World:
    """The truth the system never sees: each bank item's true difficulty."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.true_b: dict[str, float] = {}

    def difficulty(self, item_id: str, label: int) -> float:
        if item_id not in self.true_b:
            self.true_b[item_id] = scale.label_to_b(label) + random.Random(f"{self.seed}:{item_id}").gauss(
                0.0, scale.LABEL_B_SD
            )
        return self.true_b[item_id]


def _wait_for_round(client: Client, session: str, round_number: int) -> bool:
    """True once the round is generated; False if it failed (e.g. a step timed out on a busy
    machine: the learner then goes on in a new session, and the failure is counted)."""
    deadline = time.monotonic() + ROUND_TIMEOUT
    while time.monotonic() < deadline:
        status, body = client("GET", f"/sessions/{session}/rounds/{round_number}")
        if status == 200 and body["status"] == "SUCCEEDED":
            return True
        if status == 200 and body["status"] == "FAILED":
            return False
        time.sleep(POLL_SECONDS)
    raise TimeoutError(f"round {round_number} of {session} did not finish")


def _answer_text(key: str, choices: list[str], right: bool, rng: random.Random) -> str:
    if right:
        return key
    if key.lower() in ("true", "false"):
        return "false" if key.lower() == "true" else "true"
    wrong = [choice.split(")")[0] for choice in choices if not choice.startswith(f"{key})")]
    return rng.choice(wrong)


def run_learner(
    base: str, questions_table: Any, world: World, number: int, theta: float, *, seed: int
) -> dict[str, Any]:
    """One learner's 20 answers; the ability endpoint's view after 10 and 20."""
    rng = random.Random(f"{seed}:learner:{number}")
    client = Client(base, learner_id(seed, number))
    seen: dict[str, Any] = {"rounds_failed": 0}
    answered = 0
    while answered < ANSWERS:
        status, created = client("POST", "/sessions")
        assert status == 201, created
        session = created["session_id"]
        for round_number in (1, 2):
            body = {"round": round_number, "category": CATEGORY, "count": ROUND_SIZE, "question_types": QUESTION_TYPES}
            status, started = client("POST", f"/sessions/{session}/rounds", body)
            assert status == 202, started
            if not _wait_for_round(client, session, round_number):
                seen["rounds_failed"] += 1
                break  # a new session
            status, listed = client("GET", f"/sessions/{session}/questions")
            assert status == 200, listed
            for question in [q for q in listed["questions"] if q["round"] == round_number and not q["answered"]]:
                stored = questions_table.get_item(Key={"question_id": question["question_id"]})["Item"]
                b = world.difficulty(str(stored.get("item_id") or question["question_id"]), int(question["difficulty"]))
                floor = irt.guess_floor(question["type"], len(question["choices"]) or None)
                right = rng.random() < irt.sigmoid(theta - b) or rng.random() < floor  # knows, or guesses
                key = (stored.get("answer_schema") or {}).get("correct_key")
                if key is None:  # seen once under load: reported, answered as a blind guess
                    seen["items_without_key"] = seen.get("items_without_key", 0) + 1
                    print(f"api_ability: no key: {question['type']} {sorted(stored)}", file=sys.stderr, flush=True)
                    text = rng.choice([choice.split(")")[0] for choice in question["choices"]] or ["I do not know"])
                else:
                    text = _answer_text(str(key), question["choices"], right, rng)
                given = {"question_id": question["question_id"], "user_answer": text}
                status, graded = client("POST", f"/sessions/{session}/answers", given)
                assert status == 200, graded
                answered += 1
                if answered in CHECKPOINTS:
                    seen[str(answered)] = _ability(client)
                if answered >= ANSWERS:
                    return seen
    return seen


def _ability(client: Client) -> dict[str, Any]:
    status, body = client("GET", "/learners/me/ability")
    assert status == 200, body
    (entry,) = [ability for ability in body["abilities"] if ability["category"] == CATEGORY]
    points = [point for point in body["history"] if point["category"] == CATEGORY]
    return {
        "theta": entry["theta"],
        "se": entry["se"],
        "answers": entry["answers"],
        "points": len(points),
        "numbered": [point["answers"] for point in points] == list(range(1, entry["answers"] + 1)),
    }


def _write_survey(profiles_table: Any, user_id: str, level: str) -> None:
    profiles_table.put_item(
        Item={
            "user_id": user_id,
            "submitted_at": "2026-11-01T00:00:00Z",
            "self_level": level,
            "years_experience": 0,
            "job_role": "Engineer",
            "duty": "Practice",
            "interests": [],
            "previous_score": 0,
            "language": "en",
        }
    )


def measure(learners: int = LEARNERS, seed: int = SEED, surveys: bool = True) -> dict[str, Any]:
    rng = random.Random(seed)
    cohort = [(number, rng.gauss(0.0, 1.0)) for number in range(learners)]
    world = World(seed)
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    with local_api() as api:
        questions, profiles = api.table("QuestionsTable"), api.table("ProfilesTable")
        for number, theta in cohort:
            level = self_level(theta, rng)  # drawn either way: the same cohort with or without surveys
            if surveys:
                _write_survey(profiles, learner_id(seed, number), level)
            results.append({"theta": theta, **run_learner(api.base, questions, world, number, theta, seed=seed)})
            row = results[-1]
            elapsed = time.perf_counter() - started
            print(
                f"api_ability: learner {number + 1}/{learners}: theta {theta:+.2f}, after 20 "
                f"{row['20']['theta']:+.2f} +- {Z95 * row['20']['se']:.2f}, {elapsed:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        api.step_functions.wait_for_running()
    return {**summarise(results, learners, seed, time.perf_counter() - started), "surveys": surveys}


def summarise(results: list[dict[str, Any]], learners: int, seed: int, seconds: float) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for n in CHECKPOINTS:
        rows = [(result["theta"], result[str(n)]) for result in results]
        errors = [seen["theta"] - theta for theta, seen in rows]
        hits = sum(abs(seen["theta"] - theta) <= Z95 * seen["se"] for theta, seen in rows)
        figures[str(n)] = {
            "coverage": round(hits / len(rows), 3),
            "coverage_interval_95": wilson(hits, len(rows)),
            "rmse": round(math.sqrt(statistics.fmean(e * e for e in errors)), 3),
            "bias": round(statistics.fmean(errors), 3),
            "mean_se": round(statistics.fmean(seen["se"] for _, seen in rows), 3),
            "answers_counted": sorted({seen["answers"] for _, seen in rows}),
            "one_point_per_answer": all(seen["numbered"] and seen["points"] == seen["answers"] for _, seen in rows),
        }
    low, high = TARGET_COVERAGE
    targets = [
        {
            "figure": f"95% coverage after {n}, through the API",
            "value": figures[str(n)]["coverage"],
            "target": f"{low}-{high}",
            "met": low <= figures[str(n)]["coverage"] <= high,
        }
        for n in CHECKPOINTS
    ]
    targets.append(
        {
            "figure": f"theta RMSE after {ANSWERS}, through the API",
            "value": figures[str(ANSWERS)]["rmse"],
            "target": f"<= {TARGET_THETA_RMSE_20}",
            "met": figures[str(ANSWERS)]["rmse"] <= TARGET_THETA_RMSE_20,
        }
    )
    return {
        "learners": learners,
        "seed": seed,
        "after": figures,
        "targets": targets,
        "rounds_failed": sum(result.get("rounds_failed", 0) for result in results),
        "items_without_key": sum(result.get("items_without_key", 0) for result in results),
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=LEARNERS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--no-survey", action="store_true", help="learners who never fill in the survey (the population's prior)"
    )
    arguments = parser.parse_args()
    result = measure(arguments.learners, arguments.seed, surveys=not arguments.no_survey)
    print(json.dumps(result, indent=2))
    for row in result["targets"]:
        print(f"{'PASS' if row['met'] else 'MISS'}  {row['figure']:<40} {row['value']!s:>7}   target {row['target']}")


if __name__ == "__main__":
    main()
