"""An honest cohort whose surveys look alike: does the bank keep serving it?

A team of new hires fills the survey in alike. `--learners` honest learners (default 45) whose
surveys take `--forms` distinct forms (default 3: learner n has form n mod 3; same interests, level
and language within a form) play `--rounds` rounds of `--count` multiple-choice and true/false items
each through the local HTTP API (template.yaml's routes over moto, the offline provider, the demo
seed), one learner after the other, answering as the model says (ability ~ N(0, 1), the items'
labels as their difficulty). The attempts stream is folded after every round (as the local
stack's timer does).

Reported: generation calls (the model asked for questions) per round for the first, middle and
last third of the learners, in the order they played: as the bank fills, later learners should be
served from it (calls per round falling); the items rested, by reason; and the learners the
person-fit refit flags (run once at the end). Target: the last third's calls per round at most
half the first third's.

Per-user rate limits are lifted (machine-speed play, as in the tests); everything else is the product's.

    python bench/honest_cohort.py [--learners 45] [--forms 3] [--rounds 2] [--count 5] [--seed 7]
"""

import argparse
import json
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

from bench.api_ability import Client  # noqa: E402
from bench.collusion import INTERESTS, play  # noqa: E402
from slea.measurement import irt, scale  # noqa: E402

FORMS = (("Engineer", "Backend services"), ("Engineer", "Data pipelines"), ("Analyst", "Reports"))


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


def measure(learners: int, forms: int, rounds: int, count: int, seed: int) -> dict[str, Any]:
    import boto3

    from slea.llm.offline import OfflineProvider
    from slea.security import rate_limits
    from slea_local.demo_aws import seeded_local_aws
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import serve_in_background
    from slea_local.runtime import StreamPoller

    calls: list[int] = []
    real = OfflineProvider.generate_questions

    def counted(self: Any, request: Any, wanted: int) -> Any:
        calls.append(wanted)
        return real(self, request, wanted)

    rng = random.Random(seed)
    started = time.perf_counter()
    per_learner: list[float] = []
    with ExitStack() as stack:
        unlimited = rate_limits.Limit(burst=10_000, interval_seconds=0.001)
        stack.enter_context(mock.patch.object(rate_limits, "limit", return_value=unlimited))
        stack.enter_context(mock.patch.object(OfflineProvider, "generate_questions", counted))
        aws = stack.enter_context(seeded_local_aws())
        step_functions = stack.enter_context(LocalStepFunctions(aws.runtime))
        dynamodb = boto3.resource("dynamodb")
        questions = dynamodb.Table(aws.cloud.table_name("QuestionsTable"))
        profiles = dynamodb.Table(aws.cloud.table_name("ProfilesTable"))
        base = stack.enter_context(serve_in_background(step_functions.runtime))
        poller = StreamPoller(step_functions.runtime, "AttemptsTable")

        def fold() -> None:
            step_functions.wait_for_running()
            poller.drain()

        users = [learner(seed, number) for number in range(learners)]
        for number, user in enumerate(users):
            survey(profiles, user, number % forms)
            theta = rng.gauss(0.0, 1.0)

            def as_the_model_says(stored: dict[str, Any], question: dict[str, Any], theta: float = theta) -> bool:
                b = scale.label_to_b(int(question["difficulty"]))
                floor = irt.guess_floor(question["type"], len(question["choices"]) or None)
                return rng.random() < irt.p_correct(theta, b, floor)

            before = len(calls)
            play(Client(base, user), questions, rounds, count, as_the_model_says, after_round=fold)
            per_learner.append((len(calls) - before) / rounds)
            print(f"honest_cohort: learner {number + 1}: {per_learner[-1]} calls a round", file=sys.stderr, flush=True)
        step_functions.wait_for_running()
        refit = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 1}, name=f"honest-{seed}")
        assert refit.status == "SUCCEEDED", refit.cause
        abilities = dynamodb.Table(aws.cloud.table_name("AbilitiesTable"))
        listed = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"}).get("Item") or {}
        flagged = set(listed.get("learners") or {})
        stored = questions.scan()["Items"]
    reasons = Counter(str(item.get("rest_reason") or "exposure") for item in stored if item.get("rested_at"))
    by_third = thirds(per_learner)
    return {
        "learners": learners,
        "forms": forms,
        "rounds": rounds,
        "count": count,
        "generation_calls_per_round_by_third": by_third,
        "last_third_at_most_half_the_first": by_third[2] <= by_third[0] / 2,
        "items_rested_by_reason": dict(reasons),
        "honest_flagged": sum(user in flagged for user in users),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=45)
    parser.add_argument("--forms", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    arguments = parser.parse_args()
    print(json.dumps(measure(arguments.learners, arguments.forms, arguments.rounds, arguments.count, arguments.seed)))


if __name__ == "__main__":
    main()
