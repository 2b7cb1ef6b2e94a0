"""AWS calls per request through the local HTTP API, and the layer's modules each one enters.

Drives `make serve`'s stack in-process (the demo seed, the real handlers, moto): creates a session,
starts a round of every question type, then answers each question, counting the botocore calls
the API function makes for each request (a botocore event hook: every attempt of every client,
retries included) and the `slea` modules whose code ran. Prints one row per request kind:
calls (min/max over the requests of that kind), the operations, and the modules entered.

Targets: an answer after a session's first costs at most 6 AWS calls, whatever its type
(an explanation cache miss included). The floors are stated in docs/architecture.md.

    python bench/aws_calls.py [--json]
"""

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.demo_aws import DEMO_USER, seeded_local_aws  # noqa: E402

ANSWER_TARGET = 6
LAYER = str(REPO_ROOT / "layers" / "slea" / "slea")


class Recorder:
    """Counts botocore calls (by operation) and the layer's modules entered, while `active`."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.modules: set[str] = set()

    def before_call(self, model: Any, **_: Any) -> None:
        self.calls.append(model.name)

    def profile(self, frame: Any, event: str, _: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(LAYER):
            relative = frame.f_code.co_filename[len(LAYER) + 1 : -3]
            self.modules.add(relative.removesuffix("/__init__").replace("/", "."))


@contextmanager
def recording() -> Iterator[Recorder]:
    """Every client botocore makes from here on reports to the recorder (the layer's clients are
    cached per process, so the hook goes on the session's event system, before any is made)."""
    import botocore.session

    recorder = Recorder()
    original = botocore.session.Session.create_client

    def create_client(self: Any, *args: Any, **kwargs: Any) -> Any:
        client = original(self, *args, **kwargs)
        client.meta.events.register("before-call.*.*", recorder.before_call)
        return client

    botocore.session.Session.create_client = create_client  # type: ignore[method-assign]
    try:
        yield recorder
    finally:
        botocore.session.Session.create_client = original  # type: ignore[method-assign]


def measure() -> dict[str, dict[str, Any]]:
    from slea.platform import aws

    for factory in (aws.dynamodb, aws.sqs, aws.stepfunctions):
        factory.cache_clear()  # clients made before the hook would not report
    from unittest import mock

    from slea.security import rate_limits

    rows: dict[str, list[tuple[list[str], set[str]]]] = {}
    # The rate limits' bursts out of the way (a limited and an unlimited take are the same one
    # conditional write): the run starts four rounds within seconds on a fast machine.
    unlimited = rate_limits.Limit(burst=10_000, interval_seconds=0.001)
    with (
        mock.patch.object(rate_limits, "limit", return_value=unlimited),
        recording() as recorder,
        seeded_local_aws() as local,
    ):
        from slea_local.executions import LocalStepFunctions
        from slea_local.http import HttpApiAdapter, call

        adapter = HttpApiAdapter(local.runtime)

        def request(kind: str, method: str, path: str, body: Any = None) -> Any:
            recorder.calls, recorder.modules = [], set()
            sys.setprofile(recorder.profile)
            try:
                status, _, payload = call(adapter, method, path, body, DEMO_USER)
            finally:
                sys.setprofile(None)
            assert status < 300, (kind, status, payload)
            rows.setdefault(kind, []).append((list(recorder.calls), set(recorder.modules)))
            return payload

        with LocalStepFunctions(local.runtime) as step_functions:
            session = request("create session", "POST", "/sessions")["session_id"]
            started = request(
                "start round",
                "POST",
                f"/sessions/{session}/rounds",
                # Every type asked for by name: each keeps a slot whatever the layout by information.
                {
                    "category": "technical",
                    "count": 9,
                    "round": 1,
                    "question_types": ["multiple_choice", "true_false", "short_answer"],
                },
            )
            recorder.calls = []
            step_functions.watch(started["execution_arn"])
            questions = request("list questions", "GET", f"/sessions/{session}/questions")["questions"]
            # The session's first answer (its own row) is one of the round's most common type, so
            # every type keeps a later answer to count (a type with one slot may be listed first).
            common = Counter(question["type"] for question in questions).most_common(1)[0][0]
            questions.sort(key=lambda question: question["type"] != common)
            by_type = Counter()
            for question in questions:
                kind = question["type"]
                answer = {"multiple_choice": "A", "true_false": "True"}.get(kind, "It depends on the data.")
                label = "answer (first of the session)" if not rows.get("answer (first of the session)") else kind
                if label != "answer (first of the session)":
                    by_type[kind] += 1
                    label = f"answer {kind}"
                request(
                    label,
                    "POST",
                    f"/sessions/{session}/answers",
                    {"question_id": question["question_id"], "user_answer": answer},
                )
            request("summary", "GET", f"/sessions/{session}/summary")
            request("list sessions", "GET", "/sessions")
            _skipping_requests(request, step_functions, local.cloud, session)
    return {
        kind: {
            "requests": len(samples),
            "min_calls": min(len(calls) for calls, _ in samples),
            "max_calls": max(len(calls) for calls, _ in samples),
            "operations": dict(Counter(op for calls, _ in samples for op in calls)),
            "modules": len(set().union(*(modules for _, modules in samples))),
            "packages": len({module.split(".")[0] for _, modules in samples for module in modules}),
        }
        for kind, samples in rows.items()
    }


def _skipping_requests(request: Any, step_functions: Any, cloud: Any, session: str) -> None:
    """What counting skipped items costs (logic/rounds/skips.py): round 2 after a round 1 answered
    whole (a check, nothing to count), a summary once round 2 is past its time limit with two of
    three left (counted there), new sessions after sessions with and without items left, the level
    read with no round past its limit, a round 1 with no other session open, and a skip."""
    import datetime

    import boto3

    def round_of(kind: str, session: str, number: int, count: int, question_type: str) -> None:
        body = {"category": "technical", "count": count, "round": number, "question_types": [question_type]}
        step_functions.watch(request(kind, "POST", f"/sessions/{session}/rounds", body)["execution_arn"])

    round_of("start round 2 (nothing left in round 1)", session, 2, 3, "multiple_choice")
    second = [
        q for q in request("list questions", "GET", f"/sessions/{session}/questions")["questions"] if q["round"] == 2
    ]
    request(
        "answer multiple_choice",
        "POST",
        f"/sessions/{session}/answers",
        {"question_id": second[0]["question_id"], "user_answer": "A"},
    )
    request("summary (round open, nothing counted)", "GET", f"/sessions/{session}/summary")
    long_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=3)
    boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable")).update_item(
        Key={"session_id": f"{session}#round#2"},
        UpdateExpression="SET started_at = :at",
        ExpressionAttributeValues={":at": long_ago.isoformat(timespec="seconds").replace("+00:00", "Z")},
    )
    request("summary (counting 2 skipped)", "GET", f"/sessions/{session}/summary")
    later = request("create session (previous: nothing left)", "POST", "/sessions")["session_id"]
    round_of("start round", later, 1, 2, "true_false")
    request("create session (previous: 2 left, counted)", "POST", "/sessions")
    request("learner ability (nothing past the limit)", "GET", "/learners/me/ability")
    newest = request("create session (previous: nothing started)", "POST", "/sessions")["session_id"]
    round_of("start round 1 (no other session open)", newest, 1, 2, "true_false")
    first = request("list questions", "GET", f"/sessions/{newest}/questions")["questions"][0]
    request("skip a question", "POST", f"/sessions/{newest}/questions/{first['question_id']}/skip")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"{'request':34} {'n':>3} {'calls':>7} {'modules':>8} {'pkgs':>5}  operations (all requests of the kind)")
        for kind, row in results.items():
            span = (
                f"{row['min_calls']}-{row['max_calls']}"
                if row["min_calls"] != row["max_calls"]
                else str(row["min_calls"])
            )
            ops = ", ".join(f"{op} x{count}" for op, count in sorted(row["operations"].items()))
            print(f"{kind:34} {row['requests']:>3} {span:>7} {row['modules']:>8} {row['packages']:>5}  {ops}")
    worst = max(
        (row["max_calls"] for kind, row in results.items() if kind.startswith("answer ") and "first" not in kind),
        default=0,
    )
    print(f"most AWS calls for an answer after the session's first: {worst} (target <= {ANSWER_TARGET})")
    return 0 if worst <= ANSWER_TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
