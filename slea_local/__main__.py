"""Command line of the local runtime (offline: moto built from template.yaml, no AWS account).

python -m slea_local demo                         # seed the demo data, run the tools, print
python -m slea_local invoke get_user_profile events/get_user_profile/valid.json
"""

import argparse
import contextlib
import itertools
import json
import logging
import os
import sys
import textwrap
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from slea_local import REPO_ROOT
from slea_local.demo_aws import DEMO_SEED, DEMO_USER


def _quiet_powertools() -> None:
    # Readable output: Powertools' JSON logs would drown the demo (the local runtime collects
    # the EMF metric lines itself).
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
    warnings.filterwarnings("ignore", "No application metrics to publish")
    # moto's ASL interpreter logs its internal state for each failed state; the CLI prints the
    # execution's error and cause itself, in one line.
    logging.getLogger("moto.stepfunctions.parser").setLevel(logging.CRITICAL)


def _step(number: int, total: int, text: str) -> None:
    print(f"\n[{number}/{total}] {text}", flush=True)


def _wrap(text: str, indent: str = "      ") -> str:
    return textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent)


def _print_profile(profile: dict[str, Any]) -> None:
    print(
        f"      {profile['job_role']} · {profile['self_level']} · {profile['years_experience']} years"
        f" · previous score {profile['previous_score']}"
    )
    print(f"      interests: {', '.join(profile['interests']) or '(none)'}")
    print(f"      language: {profile.get('language') or 'not set (English)'}")


def _interest_note(question: dict[str, Any], interests: list[str]) -> str:
    """Why this item's concept was chosen: the personalisation rule, made visible."""
    from slea.authoring.offline_generator import matches_interest

    if not question.get("concept"):
        return "about: no concept record (written by the model, or from a keyword)"
    domain = question.get("concept_domain")
    if matches_interest(domain, interests):
        return f"about: {question['concept']} (domain {domain}: one of the learner's interests)"
    why = f"domain {domain}" if domain else "no domain"
    return (
        f"about: {question['concept']} ({why}: not one of the learner's interests;"
        " the record has no unused concept on them)"
    )


def _print_round(output: dict[str, Any], profile: dict[str, Any]) -> None:
    print(
        f"      generated {output['total_generated']}, valid {output['total_valid']},"
        f" rejected {output['total_rejected']}"
    )
    from slea.authoring.offline_generator import matches_interest

    interests = profile["interests"]
    on_interests = sum(matches_interest(question.get("concept_domain"), interests) for question in output["questions"])
    print(
        f"      {on_interests} of {len(output['questions'])} items on the learner's interests"
        " (concepts whose domain matches an interest come first; the category's record fills the rest),"
        f" written in {profile.get('language') or 'en'}"
    )
    for number, question in enumerate(output["questions"], start=1):
        saved = "queued for retry" if question["queued_for_retry"] else f"saved as {question['question_id']}"
        print(
            f"\n   Q{number}. [{question['type']}, difficulty {question['difficulty']},"
            f" validation {question['validation_score']:.2f}, {saved}]"
        )
        print(_wrap(_interest_note(question, interests), indent="       "))
        print(_wrap(question["stem"], indent="       "))
        for choice in question["choices"]:
            print(_wrap(choice, indent="         "))
        print(_wrap(f"answer: {question['correct_answer']}", indent="       "))


@contextmanager
def _seeded_local_aws(review_demo: bool = False) -> Iterator[tuple[Any, Any, dict[str, int]]]:
    """The demo's local AWS, quietly: (cloud, runtime, records written per seed section).
    `review_demo`: simulated learners' answers wait for reviewers in groups (slea_local.review_demo)."""
    from slea_local.demo_aws import seeded_local_aws

    _quiet_powertools()
    print("local AWS: building template.yaml's resources in moto, loading the demo seed …", file=sys.stderr, flush=True)
    if review_demo:
        print("review demo: simulated learners answer shared short-answer items …", file=sys.stderr, flush=True)
    with seeded_local_aws(review_demo=review_demo) as aws:
        if aws.review_demo is not None:
            print(f"review demo: {aws.review_demo.summary()}", file=sys.stderr, flush=True)
        yield aws.cloud, aws.runtime, aws.written


def generate_round(runtime: Any, execution_input: dict[str, Any], name: str) -> dict[str, Any] | None:
    """Run one Mode 1 execution, printing each state as it is entered; returns its output."""
    from slea_local.executions import LocalStepFunctions

    print(
        f"      learner {execution_input['user_id']} · session {execution_input['session_id']}"
        f" round {execution_input.get('round', 1)} · {execution_input['category']}"
    )
    print("      states: ", end="", flush=True)
    with LocalStepFunctions(runtime) as step_functions:
        execution = step_functions.run(
            "GenerateRoundStateMachine",
            execution_input,
            name=name,
            on_state=lambda state: print(f"{state} → ", end="", flush=True),
        )
    print(execution.status)
    plan = round_plan(execution.events)
    if plan:
        print(f"      difficulty {plan['difficulty']} ({plan['difficulty_reason']})")
    if execution.status != "SUCCEEDED":
        print(f"      {short_error(execution.error, execution.cause)}")
        return None
    print(f"      {execution.transitions} state transitions")
    output: dict[str, Any] = execution.output
    return output


def round_plan(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The plan PlanRound returned in this execution (its difficulty and the reason for it)."""
    for event in events:
        details = event.get("stateExitedEventDetails") or {}
        if details.get("name") == "PlanRound":
            plan: dict[str, Any] | None = json.loads(details.get("output") or "{}").get("plan")
            return plan
    return None


def short_error(error: str | None, cause: str | None, limit: int = 300) -> str:
    """A failed execution in one line: the error and the cause's message, never a whole dump."""
    message = cause or ""
    with contextlib.suppress(ValueError, AttributeError):
        message = json.loads(message).get("errorMessage") or message
    first = " ".join(str(message).strip().splitlines()[:1]) if message else "no cause given"
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    return f"failed: {error or 'error'}: {first}"


def _http(url: str, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    """One real HTTP request to the local API (the demo is a client like any other)."""
    import urllib.error
    import urllib.request

    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{url}{path}", data=data, method=method)  # noqa: S310 - 127.0.0.1 only
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def _demo_answer(question: dict[str, Any], right: bool, model_answer: str) -> str:
    """A right or a wrong answer to a generated question (the demo knows the key from Mode 1's
    output; for a short answer, `model_answer` is the explanation stored with the question)."""
    key: str = question["correct_answer"]
    if question["type"] == "short_answer":
        return f"{key}. {model_answer}" if right else "I am not sure, I think it is a kind of database."
    if question["type"] == "true_false":  # True/False, or 참/거짓 for a Korean learner
        return key if right else next(choice for choice in question["choices"] if choice != key)
    letters = [choice.split(")")[0] for choice in question["choices"]]
    return key if right else next(letter for letter in letters if letter != key)


def _ability_line(ability: dict[str, Any]) -> str:
    """One learner's ability in words: level, estimate with its 95% interval, and what would make it precise."""
    low, high = ability["theta"] - 1.96 * ability["se"], ability["theta"] + 1.96 * ability["se"]
    more = ability.get("answers_to_precision") or 0
    # The standard error is named, never a bare "±": the 95% range is what the panel states too.
    precision = (
        f"about {more} more answers would make it precise (standard error 0.3)"
        if more
        else "precise (standard error 0.3 or less)"
    )
    return (
        f"{ability['category']}: {ability['level']} — ability {ability['theta']:+.2f} logits, 95% range "
        f"{low:+.1f} to {high:+.1f} (standard error {ability['se']:.2f}) from {ability['answers']} answers; {precision}"
    )


def demo(category: str, difficulty: int | None, user_id: str, count: int) -> int:
    from slea.dal import questions
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import serve_in_background

    print("slea-ssem local demo — offline: moto built from template.yaml, no AWS account", end="")
    print(" (Gemini: GEMINI_API_KEY is set)" if os.environ.get("GEMINI_API_KEY") else ", no API key")
    total = 6
    with _seeded_local_aws() as (cloud, runtime, written), LocalStepFunctions(runtime) as step_functions:
        _step(1, total, f"Local AWS from template.yaml: {', '.join(sorted(cloud.physical_names))}")
        _step(
            2, total, f"Seeded {DEMO_SEED.relative_to(REPO_ROOT)}: " + ", ".join(f"{n} {k}" for k, n in written.items())
        )
        profile = runtime.invoke("get_user_profile", {"user_id": user_id})
        _print_profile(profile)
        with serve_in_background(runtime) as url:
            request: dict[str, Any] = {"category": category, "count": count}
            if difficulty is not None:
                request["difficulty"] = difficulty
            status, created = _http(url, "POST", "/sessions", user_id)
            session_id = created["session_id"]
            _step(
                3,
                total,
                f"Mode 1 through the API: POST {url}/sessions -> {status}, session {session_id};"
                f" POST /sessions/{session_id}/rounds {json.dumps(request)}",
            )
            status, started = _http(url, "POST", f"/sessions/{session_id}/rounds", user_id, request)
            print(f"      HTTP {status}; GenerateRoundStateMachine states: ", end="", flush=True)
            execution = step_functions.watch(
                started["execution_arn"], on_state=lambda state: print(f"{state} → ", end="", flush=True)
            )
            print(f"{execution.status} ({execution.transitions} transitions)")
            if execution.status != "SUCCEEDED":
                print(f"      {short_error(execution.error, execution.cause)}")
                return 1
            _print_round(execution.output, profile)
            _step(
                4, total, f"Mode 2: answering through POST {url}/sessions/{session_id}/answers (some right, some wrong)"
            )
            for number, question in enumerate(execution.output["questions"], start=1):
                with cloud.environment(cloud.seed_environment()):
                    stored = questions.get_question(question["question_id"])
                model_answer = (stored.answer_schema.explanation if stored else None) or ""
                answer = _demo_answer(question, right=number % 2 == 1, model_answer=model_answer)
                status, graded = _http(
                    url,
                    "POST",
                    f"/sessions/{session_id}/answers",
                    user_id,
                    {"question_id": question["question_id"], "user_answer": answer},
                )
                verdict = "correct" if graded["is_correct"] else "incorrect"
                if graded.get("needs_review"):
                    verdict += f", provisional: needs review (confidence {graded['confidence']})"
                print(f"\n   Q{number} answered {answer[:60]!r}: HTTP {status}, score {graded['score']}, {verdict}")
                if graded["feedback"]:
                    print(_wrap(f"feedback: {graded['feedback']}", indent="      "))
                print(_wrap(f"explanation: {graded['explanation'][:420]}…", indent="      "))
                print("      references: " + "; ".join(link["url"] for link in graded["reference_links"][:3]))
            _step(5, total, f"GET {url}/sessions/{session_id}/attempts")
            status, attempts = _http(url, "GET", f"/sessions/{session_id}/attempts", user_id)
            scores = [attempt["score"] for attempt in attempts["attempts"]]
            print(f"      HTTP {status}: {len(scores)} attempts, scores {scores}")
            _step(6, total, f"GET {url}/learners/me/ability: what these answers say the learner knows")
            status, measured = _http(url, "GET", "/learners/me/ability", user_id)
            print(f"      HTTP {status}")
            for ability in measured["abilities"]:
                print(_wrap(_ability_line(ability), indent="      "))
    print("\nDone. Try it in a browser: start the local server with")
    print(f"  make serve      (or: {Path(sys.executable).name} -m slea_local serve --port {SERVE_PORT})")
    print(f"then open the app at http://127.0.0.1:{SERVE_PORT}/ (reviewers: http://127.0.0.1:{SERVE_PORT}/review)")
    return 0


def resources() -> int:
    """List what template.yaml creates locally."""
    with _seeded_local_aws() as (cloud, _runtime, _written):
        for logical_id, physical in sorted(cloud.physical_names.items()):
            print(f"{logical_id:36} {physical}")
    return 0


def seed() -> int:
    with _seeded_local_aws() as (_cloud, _runtime, written):
        print(json.dumps(written))
    return 0


def generate(execution_input: dict[str, Any]) -> int:
    with _seeded_local_aws() as (_cloud, runtime, _written):
        output = generate_round(runtime, execution_input, name="cli-round")
        if output is None:
            return 1
        profile = runtime.invoke("get_user_profile", {"user_id": execution_input["user_id"]})
        _print_profile(profile)
        _print_round(output, profile)
    return 0


def session(user_id: str, session_id: str, category: str, count: int) -> int:
    """Both rounds of a session, then the session's questions as stored (newest last)."""
    from slea.dal.wire_format import from_item

    with _seeded_local_aws() as (cloud, runtime, _written):
        for round_number in (1, 2):
            print(f"\nround {round_number}")
            execution_input = {
                "user_id": user_id,
                "session_id": session_id,
                "round": round_number,
                "category": category,
            }
            if (
                generate_round(runtime, {**execution_input, "count": count}, name=f"{session_id}-{round_number}")
                is None
            ):
                return 1
        import boto3

        items = boto3.client("dynamodb").query(
            TableName=cloud.table_name("QuestionsTable"),
            IndexName="session-questions",
            KeyConditionExpression="session_id = :session",
            ExpressionAttributeValues={":session": {"S": session_id}},
        )["Items"]
        print(f"\nsession {session_id}: {len(items)} questions stored")
        for item in sorted(map(from_item, items), key=lambda item: (item["round"], item["created_at"])):
            kind = f"round {item['round']} · difficulty {item['difficulty']} · {item['item_type']}"
            print(f"   {kind:45} {item['stem'][:70]}")
    return 0


def openapi(path: Path) -> int:
    """Write the API's OpenAPI document (committed as docs/openapi.json; a test keeps it current)."""
    from slea_local.cloud import prepare_process_environment

    prepare_process_environment()
    from slea.http.api import openapi_document
    from slea_local.runtime import load_function_module

    document = openapi_document(load_function_module("api").with_every_route())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


SERVE_PORT = 8080


def _calibrate_every(step_functions: Any, seconds: float, stop: threading.Event) -> None:
    """The calibration schedule of the local stack: the refit state machine every `seconds` (in AWS
    an EventBridge schedule starts it), the attempts table's export included, so the reviewers'
    item analysis fills as answers come in."""
    for number in itertools.count(1):
        if stop.wait(seconds):
            return
        try:
            execution = step_functions.run(
                "CalibrationRefitStateMachine", {"poll_seconds": 1}, name=f"local-refit-{number}-{uuid.uuid4().hex[:8]}"
            )
        except Exception as error:  # a failed run is retried at the next interval
            print(f"calibration failed: {error}", flush=True)
            continue
        if execution.status == "SUCCEEDED":
            report = execution.output
            print(
                f"calibration: {report['attempts_read']} answers exported, "
                f"{report['items_calibrated']} items recalibrated",
                flush=True,
            )
        else:
            print(f"calibration failed: {execution.error}: {execution.cause}", flush=True)


FOLD_EVERY = 2.0  # seconds between reads of the attempts table's stream


def _fold_stream(runtime: Any, seconds: float, stop: threading.Event) -> None:
    """The attempts stream's event source mapping on the local stack: new answers are folded into
    the item statistics within seconds, as in AWS (slea_local.runtime.StreamPoller)."""
    from slea_local.runtime import StreamPoller

    poller = StreamPoller(runtime, "AttemptsTable")
    while not stop.wait(seconds):
        try:
            report = poller.drain()
            if report.checkpointed:
                print(f"stream fold: {report.checkpointed} answer records read", flush=True)
        except Exception as error:  # the records stay; the next interval reads them again
            print(f"stream fold failed: {error}", flush=True)


def serve(port: int, calibrate_every: float = 60.0, review_demo: bool = False, signed_tokens: bool = False) -> int:
    """The HTTP API on 127.0.0.1 over the seeded local AWS (rounds run on the local state machine),
    with the calibration job run every `calibrate_every` seconds (0: never) and, with
    `review_demo`, simulated learners' answers waiting for reviewers in groups. `signed_tokens`:
    only tokens signed by the local user pool are accepted (as API Gateway's authorizer does)."""
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import QuietRequestHandler, local_server

    class LoggingHandler(QuietRequestHandler):
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            print(f"{self.command} {self.path} -> {code}", flush=True)

    with (
        _seeded_local_aws(review_demo) as (cloud, runtime, _written),
        LocalStepFunctions(runtime) as step_functions,
    ):
        server = local_server(runtime, port, LoggingHandler, signed_tokens=signed_tokens)
        stop = threading.Event()
        if calibrate_every > 0:
            threading.Thread(target=_calibrate_every, args=(step_functions, calibrate_every, stop), daemon=True).start()
        threading.Thread(target=_fold_stream, args=(runtime, FOLD_EVERY, stop), daemon=True).start()
        with server, contextlib.suppress(KeyboardInterrupt):
            url = f"http://127.0.0.1:{server.server_port}"
            print(f"slea-ssem on {url}")
            if signed_tokens:
                print(f"  learner app:  {url}/   (sign in with the pool's learner or reviewer below)")
            else:
                print(f"  learner app:  {url}/   (a new name or a seeded learner; tick 'reviewer' to review)")
            print(f"  reviewer app: {url}/review")
            if review_demo:
                print("  (simulated learners' answers wait there in review groups)")
            if signed_tokens:
                _print_signed_tokens(url, cloud)
            else:
                print("  HTTP API (local JWT stand-in: 'Authorization: Bearer <user id>'), e.g.")
                print(f"  curl -X POST {url}/sessions -H 'Authorization: Bearer {DEMO_USER}'   # -> session_id")
                print(f"  MCP server for agents: {url}/mcp   (same bearer token; see README, MCP server)")
            if calibrate_every > 0:
                print(f"  item calibration runs every {calibrate_every:g} s (--calibrate-every)")
            print(f"  smoke check of this stack from another shell: make smoke ARGS='--local {url}'")
            print("Ctrl-C stops the server.", flush=True)
            try:
                server.serve_forever()
            finally:
                stop.set()
    return 0


def smoke() -> int:
    """The operator's smoke check (python -m ops.smoke) against the local stack, in one process
    (moto's user pool lives in this process): the HTTP API with signed tokens, rounds on the local
    state machine."""
    from ops import smoke as smoke_check
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import serve_in_background
    from slea_local.identity import LocalUserPool

    with (
        _seeded_local_aws() as (cloud, runtime, _written),
        LocalStepFunctions(runtime),
        serve_in_background(runtime, signed_tokens=True) as url,
    ):
        pool = LocalUserPool(cloud)
        report = smoke_check.run(smoke_check.Target(url, pool.pool_id, pool.client_id), round_seconds=120)
    return 0 if report.passed else 1


def _print_signed_tokens(url: str, cloud: Any) -> None:
    """Signed-token mode: a learner and a reviewer of the local pool, their passwords for the
    pages' sign-in (the pool's hosted sign-in, served here) and their tokens to call with."""
    from slea.security.roles import REVIEWER_GROUP
    from slea_local.identity import LocalUserPool

    pool = LocalUserPool(cloud)
    learner_email, reviewer_email = "learner@example.com", "reviewer@example.com"
    learner_password = pool.create_user(learner_email)
    reviewer_password = pool.create_user(reviewer_email, [REVIEWER_GROUP])
    learner, reviewer = pool.sign_in(learner_email, learner_password), pool.sign_in(reviewer_email, reviewer_password)
    print("  HTTP API: signed tokens only (the local user pool's; checked as API Gateway's authorizer does).")
    print(f"  the pages sign in through the pool's hosted sign-in ({url}/oauth2/authorize), as in AWS:")
    print(f"    learner   {learner_email}  password {learner_password}")
    print(f"    reviewer  {reviewer_email}  password {reviewer_password}")
    print(f"  user pool {pool.pool_id}, app client {pool.client_id}; ID tokens, valid for an hour:")
    print(f"  learner  ({learner.subject}): {learner.id_token}")
    print(f"  reviewer ({reviewer.subject}): {reviewer.id_token}")
    print(f"  curl -X POST {url}/sessions -H 'Authorization: Bearer <learner token>'   # -> session_id")
    print(f"  MCP server for agents: {url}/mcp   (same bearer token; see README, MCP server)")


def mcp_stdio(user: str | None, groups: str | None) -> int:
    """The MCP server over stdio for desktop agents, on the seeded local AWS; the caller is
    `--user` (or SLEA_USER) in the Cognito groups `--groups` (or SLEA_GROUPS), decided by
    slea.security.roles as for a token's claims. stdout carries the protocol only: everything else goes to
    stderr."""
    import anyio

    from slea.security.roles import Caller

    user = user or os.environ.get("SLEA_USER")
    if not user:
        print("mcp-stdio needs the caller: --user UUID or SLEA_USER", file=sys.stderr)
        return 2
    group_names = (groups if groups is not None else os.environ.get("SLEA_GROUPS", "")).split()
    caller = Caller.from_claims({"sub": user, "cognito:groups": group_names})
    protocol_out, sys.stdout = sys.stdout, sys.stderr  # seeding prints: keep it off the protocol
    with _seeded_local_aws() as (cloud, runtime, _written):
        server = runtime.module("McpFunction").build_server(caller)
        sys.stdout = protocol_out

        async def run() -> None:
            from mcp.server.stdio import stdio_server

            # The SDK points fd 1 at stderr while it serves: stray prints miss the protocol.
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        with cloud.environment(cloud.environment_of("McpFunction")):
            anyio.run(run)
    return 0


def invoke(tool: str, event_path: Path) -> int:
    """Run one function on the seeded local AWS with an event file (what `sam local invoke -e` sends)."""
    event = json.loads(event_path.read_text(encoding="utf-8"))
    with _seeded_local_aws() as (_cloud, runtime, _written):
        try:
            result = runtime.invoke(tool, event)
        except (ValueError, TypeError) as error:
            print(json.dumps({"errorType": type(error).__name__, "errorMessage": str(error)}, ensure_ascii=False))
            return 1
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slea_local", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def round_options(command: argparse.ArgumentParser) -> None:
        command.add_argument("--user-id", default=DEMO_USER)
        command.add_argument("--category", default="technical", choices=["technical", "business", "general"])
        command.add_argument("--count", type=int, default=5)

    demo_parser = commands.add_parser("demo", help="seed, run a Mode 1 round and print it readably")
    round_options(demo_parser)
    demo_parser.add_argument("--difficulty", type=int, choices=range(1, 11), metavar="1-10")
    commands.add_parser("resources", help="create the local resources of template.yaml and list them")
    commands.add_parser("seed", help="load data/demo_seed.json into the local tables")
    generate_parser = commands.add_parser("generate", help="run one Mode 1 execution")
    round_options(generate_parser)
    generate_parser.add_argument("--session-id", default="cli-session")
    generate_parser.add_argument("--round", type=int, choices=[1, 2], default=1)
    generate_parser.add_argument("--difficulty", type=int, choices=range(1, 11), metavar="1-10")
    generate_parser.add_argument("--types", nargs="+", choices=["multiple_choice", "true_false", "short_answer"])
    session_parser = commands.add_parser("session", help="run rounds 1 and 2 of a session and show its questions")
    round_options(session_parser)
    session_parser.add_argument("--session-id", default="cli-session")
    openapi_parser = commands.add_parser("openapi", help="write the HTTP API's OpenAPI document")
    openapi_parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "openapi.json")
    serve_parser = commands.add_parser("serve", help="run the HTTP API on 127.0.0.1 over the seeded local AWS")
    serve_parser.add_argument("--port", type=int, default=SERVE_PORT)
    serve_parser.add_argument(
        "--calibrate-every", type=float, default=60.0, help="seconds between calibration runs (0: never)"
    )
    # Off unless asked (make serve asks): scripts and outside checks that start `serve` keep its
    # start-up time (the demo adds about 5 s of CPU) and an empty review queue.
    serve_parser.add_argument(
        "--review-demo",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="start with simulated learners whose short answers wait for reviewers in groups",
    )
    serve_parser.add_argument(
        "--signed-tokens",
        action="store_true",
        help="accept only tokens the local user pool signed, checked as API Gateway's JWT authorizer does"
        " (default: the development stand-in, where the bearer token is the user id)",
    )
    commands.add_parser("smoke", help="the operator's smoke check (python -m ops.smoke) against the local stack")
    stdio_parser = commands.add_parser("mcp-stdio", help="the MCP server over stdio (desktop agents), local AWS")
    stdio_parser.add_argument("--user", help="the caller's user id (a UUID); default: SLEA_USER")
    stdio_parser.add_argument(
        "--groups",
        metavar="'G1 G2'",
        help="the caller's Cognito groups, space-separated; 'authors' gives the authoring tools"
        " (search_question_templates, get_difficulty_keywords, validate_question_quality,"
        " save_generated_question); default: SLEA_GROUPS, else none (a learner's agent)",
    )
    invoke_parser = commands.add_parser("invoke", help="run one function with an event file on the seeded local AWS")
    invoke_parser.add_argument("tool", help="tool name (functions/<tool>) or the function's logical id")
    invoke_parser.add_argument("event", type=Path, help="event JSON file, e.g. events/get_user_profile/valid.json")
    args = parser.parse_args(argv)
    commands_by_name: dict[str, Callable[[], int]] = {
        "demo": lambda: demo(args.category, args.difficulty, args.user_id, args.count),
        "resources": resources,
        "seed": seed,
        "generate": lambda: generate(_execution_input(args)),
        "session": lambda: session(args.user_id, args.session_id, args.category, args.count),
        "openapi": lambda: openapi(args.out),
        "serve": lambda: serve(args.port, args.calibrate_every, args.review_demo, args.signed_tokens),
        "invoke": lambda: invoke(args.tool, args.event),
        "smoke": smoke,
        "mcp-stdio": lambda: mcp_stdio(args.user, args.groups),
    }
    return commands_by_name[args.command]()


def _execution_input(args: argparse.Namespace) -> dict[str, Any]:
    execution_input = {
        "user_id": args.user_id,
        "session_id": args.session_id,
        "round": args.round,
        "category": args.category,
        "count": args.count,
    }
    if args.difficulty is not None:
        execution_input["difficulty"] = args.difficulty
    if args.types:
        execution_input["question_types"] = args.types
    return execution_input


if __name__ == "__main__":
    sys.exit(main())
