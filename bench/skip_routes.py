"""Does skipping pay by any route? Learners who know the same items and differ only in what they do
with the rest, through the HTTP API on the local AWS (template.yaml over moto, the offline
provider, the demo seed), each ending with the level panel's read (GET /learners/me/ability):

- `wrong`: answers every item it does not know, wrongly (the reference);
- `leave`: leaves them open and starts a new session after each, and one more at the end (moving
  on counts them);
- `decoy`: opens its session, then an empty decoy session, then plays the first one: the decoy is
  the newest earlier session when the next one starts (every open session is counted, not only
  the newest);
- `explicit`: skips each on purpose (POST .../questions/{id}/skip);
- `stay`: leaves them open and never moves on: its sessions are settled only by the time limit
  (the level is read once the last round has been open past ROUND_TIME_LIMIT).

Every learner plays `--sessions` sessions of two rounds of `--per-round` multiple-choice items and
knows the first `--known` of each round; it then stops (its last round left as it was: only
`leave` moves on) and reads its level, before and after ROUND_TIME_LIMIT (the level panel's read
counts a round left open that long). A route pays if its theta ends above `wrong`'s; the goal is a
gap within 0.3 logits (in either direction: counted as wrong is counted once).

    python bench/skip_routes.py [--sessions 3] [--per-round 6] [--known 2] [--json]
"""

import argparse
import datetime
import json
import os
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.platform import clock  # noqa: E402 - the functions' clock (a test may set it)
from slea_local.cloud import prepare_process_environment  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
prepare_process_environment()

ROUTES = ("wrong", "leave", "decoy", "explicit", "stay")
GOAL = 0.3  # logits: a skipper ends within this of the learner who answers the same items wrong
SESSIONS, PER_ROUND, KNOWN = 3, 6, 2
AGED = datetime.timedelta(hours=3)  # older than ROUND_TIME_LIMIT


def _table(cloud: Any, logical_id: str) -> Any:
    import boto3

    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def _key(cloud: Any, question_id: str) -> str:
    item = _table(cloud, "QuestionsTable").get_item(Key={"question_id": question_id})["Item"]
    return str(item["answer_schema"]["correct_key"])


def _wrong_choice(choices: list[str], key: str) -> str:
    return next(choice.split(")")[0] for choice in choices if not choice.startswith(f"{key})"))


def _ok(reply: tuple[int, Any, Any], *expected: int) -> Any:
    status, _, body = reply
    assert status in expected, (status, body)
    return body


def _round(
    http: Any, cloud: Any, user: str, session: str, number: int, *, route: str, per_round: int, known: int
) -> None:
    request = {"round": number, "category": "technical", "count": per_round, "question_types": ["multiple_choice"]}
    _ok(http("POST", f"/sessions/{session}/rounds", request, user), 202)
    for _ in range(600):
        listed = _ok(http("GET", f"/sessions/{session}/questions", None, user), 200)
        shown = [q for q in listed["questions"] if q["round"] == number]
        if len(shown) >= per_round:
            break
        threading.Event().wait(0.05)
    else:
        raise AssertionError("the round did not produce its questions")
    for index, item in enumerate(shown):
        key = _key(cloud, item["question_id"])
        if index < known or route == "wrong":
            answer = key if index < known else _wrong_choice(item["choices"], key)
            _ok(
                http(
                    "POST",
                    f"/sessions/{session}/answers",
                    {"question_id": item["question_id"], "user_answer": answer},
                    user,
                ),
                200,
            )
        elif route == "explicit":
            _ok(http("POST", f"/sessions/{session}/questions/{item['question_id']}/skip", None, user), 200)
        # else: left open


def age_rounds(cloud: Any, user: str, by: datetime.timedelta = AGED) -> None:
    """As if every round of `user` had been started `by` ago (the session's record and its
    rounds' records)."""
    sessions = _table(cloud, "SessionsTable")
    found = sessions.query(
        IndexName="user-sessions", KeyConditionExpression="user_id = :u", ExpressionAttributeValues={":u": user}
    )["Items"]
    at = (clock.now() - by).isoformat(timespec="seconds").replace("+00:00", "Z")
    for item in found:
        session_id = item["session_id"]
        record = sessions.get_item(Key={"session_id": session_id})["Item"]
        if "open_for" in record:  # in the open-sessions index: its latest round's start
            sessions.update_item(
                Key={"session_id": session_id},
                UpdateExpression="SET round_started_at = :at",
                ExpressionAttributeValues={":at": at},
            )
        for number in (1, 2):
            key = {"session_id": f"{session_id}#round#{number}"}
            if "Item" in sessions.get_item(Key=key):
                sessions.update_item(
                    Key=key, UpdateExpression="SET started_at = :at", ExpressionAttributeValues={":at": at}
                )


def play(
    http: Any,
    step_functions: Any,
    user: str,
    route: str,
    *,
    sessions: int = SESSIONS,
    per_round: int = PER_ROUND,
    known: int = KNOWN,
) -> dict[str, Any]:
    """One learner along `route`; its ability as the level panel reads it at the end, with the
    read before the time limit (`open_read`: its last round still open)."""
    cloud = step_functions.runtime.cloud
    for _ in range(sessions):
        session = _ok(http("POST", "/sessions", None, user), 201)["session_id"]
        if route == "decoy":
            _ok(http("POST", "/sessions", None, user), 201)  # left empty
        for number in (1, 2):
            _round(http, cloud, user, session, number, route=route, per_round=per_round, known=known)
        step_functions.wait_for_running()
    if route == "leave":
        _ok(http("POST", "/sessions", None, user), 201)  # moves on: the last session is over too
    (before,) = _ok(http("GET", "/learners/me/ability", None, user), 200)["abilities"]
    age_rounds(cloud, user)
    (after,) = _ok(http("GET", "/learners/me/ability", None, user), 200)["abilities"]
    return {**after, "open_read": before, "last_session": session}


def measure(sessions: int = SESSIONS, per_round: int = PER_ROUND, known: int = KNOWN) -> dict[str, dict[str, Any]]:
    from slea.security import rate_limits
    from slea_local.demo_aws import seeded_local_aws

    real_limit = rate_limits.limit
    rate_limits.limit = lambda action: rate_limits.Limit(burst=10_000, interval_seconds=0.001)  # machine speed
    try:
        with seeded_local_aws() as local:
            from slea_local.executions import LocalStepFunctions
            from slea_local.http import HttpApiAdapter, call

            adapter = HttpApiAdapter(local.runtime)

            def http(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
                return call(adapter, method, path, body, token)

            with LocalStepFunctions(local.runtime) as step_functions:
                return {
                    route: play(
                        http,
                        step_functions,
                        str(uuid.uuid4()),
                        route,
                        sessions=sessions,
                        per_round=per_round,
                        known=known,
                    )
                    for route in ROUTES
                }
    finally:
        rate_limits.limit = real_limit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    parser.add_argument("--per-round", type=int, default=PER_ROUND)
    parser.add_argument("--known", type=int, default=KNOWN)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.sessions, args.per_round, args.known)
    reference = results["wrong"]["theta"]
    if args.json:
        print(json.dumps(results, indent=2, default=str))
    else:
        header = f"{'route':9} {'theta':>7} {'gap':>6} {'level':>13} {'answers':>8} {'skipped':>8}"
        print(f"{header}  before the limit: theta, skipped")
        for route, seen in results.items():
            gap = seen["theta"] - reference
            before = seen["open_read"]
            print(
                f"{route:9} {seen['theta']:>7.2f} {gap:>+6.2f} {seen['level']:>13} {seen['answers']:>8} "
                f"{seen['skipped']:>8}  {before['theta']:.2f}, {before['skipped']}"
            )
    worst = max(results[route]["theta"] - reference for route in ROUTES)
    print(f"largest gain over answering wrong: {worst:+.2f} logits (goal: at most +{GOAL})")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
