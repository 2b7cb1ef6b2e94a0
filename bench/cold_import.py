"""Cold start of each handler in a fresh interpreter, as a ratio to `import boto3` plus creating
one client (what any Lambda function talking to DynamoDB pays anyway): the median over runs of
each handler's time over a baseline measured just before it.

What is timed is the handler's init plus its first clients: the handler module's import, then
the AWS clients its first invocation creates (FIRST_CLIENTS), made by the layer's own accessors
(slea.platform.aws), with no network call. `--import-only` times the import alone, as this
benchmark did before. A function FIRST_CLIENTS does not list is timed by its import alone (and
says so: "first_clients": null).

As on Lambda, the project's code is imported from a copy with bytecode writing off: the `slea`
layer package with the bytecode its build compiles (layers/slea/Makefile: compile-bytecode), the
handlers' code folders without any (sam's Python builder ships none, so every cold start compiles
them); the installed libraries keep the bytecode pip compiled for them, as the layer's build
compiles its libraries. `--from-source` measures the layer from source too, as it was built
before it shipped bytecode. Each handler and its baseline run with the environment variables the
template gives the function (those it spells out: Globals' and its own), as on Lambda.

    python bench/cold_import.py [--runs 9] [--from-source] [--import-only] [--floor] [--instructions --runs 1]
        [--only api mcp]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from slea_local.template import repository_template  # noqa: E402

BASELINE = "import boto3; boto3.client('dynamodb', region_name='us-east-1')"
# The clients a function's first invocation creates, in the order it creates them, as
# (slea.platform.aws accessor, its argument): recorded from each function's sample event
# (tests/unit/platform/test_first_clients.py drives them and checks this list). "parameter_provider":
# Powertools' provider of a secret or SSM parameter (here the id secret: functions that make
# ids). The API's is a learner's first request (GET /sessions: the request budget, the sessions
# and the profile); the MCP server's is tools/list (the request budget). Tool 4 with the
# offline provider (no Gemini key, the template's default) makes none.
FIRST_CLIENTS: dict[str, list[tuple[str, str]]] = {
    "get_user_profile": [("dynamodb", "get_user_profile")],
    "search_question_templates": [("dynamodb", "search_question_templates")],
    "get_difficulty_keywords": [("dynamodb", "get_difficulty_keywords")],
    "validate_question_quality": [],
    "save_generated_question": [("parameter_provider", "secrets"), ("dynamodb", "save_generated_question")],
    "score_and_explain": [
        ("dynamodb", "save_generated_question"),
        ("dynamodb", "score_and_explain"),
        ("parameter_provider", "secrets"),
    ],
    "api": [("dynamodb", "rate_limits"), ("dynamodb", "api"), ("dynamodb", "get_user_profile")],
    "mcp": [("dynamodb", "rate_limits")],
}
TIMED = """
import time, importlib.util
start = time.perf_counter()
{code}
print((time.perf_counter() - start) * 1000)
"""
IMPORT_HANDLER = """
import os, sys
sys.path.insert(0, os.path.dirname({path!r}))  # as in Lambda: the code directory (functions/api: routers/)
spec = importlib.util.spec_from_file_location("app", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
"""
# What the stack costs before any code of the project's own: what every tool function loads and
# runs whatever it does (Powertools' Logger, Metrics and Tracer with botocore patched for X-Ray,
# pydantic with one model validated, a DynamoDB client on a botocore session), and the HTTP API's
# Event Handler with validation on top. A function's ratio minus its floor's is what its own code
# costs (`--floor`).
TOOL_FLOOR = """
import gc
gc.disable()
from aws_lambda_powertools import Logger, Metrics, Tracer
from pydantic import BaseModel
class Model(BaseModel):
    x: int
Model.model_validate({{"x": 1}})
logger, metrics, tracer = Logger(), Metrics(), Tracer(patch_modules=["botocore"])
{more}
gc.freeze()
gc.enable()
import botocore.session
botocore.session.get_session().create_client("dynamodb", region_name="us-east-1")
"""
FLOORS = {
    "floor: a tool function": TOOL_FLOOR.format(more=""),
    "floor: the HTTP API": TOOL_FLOOR.format(
        more="from aws_lambda_powertools.event_handler import APIGatewayHttpResolver\n"
        "app = APIGatewayHttpResolver(enable_validation=True)"
    ),
}
CREATE_CLIENTS = """
from slea.platform import aws
{calls}
"""


def _first_clients_code(clients: list[tuple[str, str]]) -> str:
    if not clients:
        return ""
    return CREATE_CLIENTS.format(calls="\n".join(f"aws.{accessor}({argument!r})" for accessor, argument in clients))


def _milliseconds(code: str, environment: dict[str, str]) -> float:
    output = subprocess.run(
        [sys.executable, "-c", TIMED.format(code=code)], capture_output=True, text=True, check=True, env=environment
    )
    return float(output.stdout.strip().splitlines()[-1])


def _million_instructions(code: str, environment: dict[str, str]) -> float:
    """The instructions the code runs (valgrind's callgrind, in millions), which the machine's load
    does not move as it moves time; the process ends right after the code, so that the
    interpreter's teardown is not counted."""
    script = "import importlib.util, os\n" + code + "\nos._exit(0)\n"
    output = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    collected = re.search(r"Collected : (\d+)", output.stderr)
    if collected is None:
        raise RuntimeError(f"callgrind printed no count:\n{output.stderr[-2000:]}")
    return int(collected.group(1)) / 1e6


def _source_only_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def _compiled_as_built(layer: Path) -> None:
    """Bytecode for the layer's copy, made by the layer's own build rule (the same command)."""
    subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(REPO_ROOT / "layers" / "slea"),
            "compile-bytecode",
            f"TARGET={layer}",
            f"PYTHON={sys.executable}",
        ],
        check=True,
        capture_output=True,
    )


def measure(
    runs: int,
    only: list[str] | None = None,
    *,
    from_source: bool = False,
    import_only: bool = False,
    floor: bool = False,
    instructions: bool = False,
) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="cold-import-") as scratch:
        return _measure(
            runs,
            Path(scratch),
            only,
            from_source=from_source,
            import_only=import_only,
            floor=floor,
            instructions=instructions,
        )


def _measure(
    runs: int,
    scratch: Path,
    only: list[str] | None,
    *,
    from_source: bool,
    import_only: bool,
    floor: bool = False,
    instructions: bool = False,
) -> dict[str, dict[str, Any]]:
    cost, median = (_milliseconds, "median_ms")
    if instructions:
        cost, median = _million_instructions, "median_million_instructions"
    template = repository_template()
    layer = _source_only_copy(REPO_ROOT / "layers" / "slea" / "slea", scratch / "layer" / "slea").parent
    if not from_source:
        _compiled_as_built(layer)
    functions = _source_only_copy(REPO_ROOT / "functions", scratch / "functions")
    environment = {
        **os.environ,
        "PYTHONPATH": str(layer),
        "PYTHONDONTWRITEBYTECODE": "1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "POWERTOOLS_SERVICE_NAME": "bench",
        "POWERTOOLS_METRICS_NAMESPACE": "bench",
        # As in a real execution environment: the X-Ray SDK and Powertools' Tracer detect Lambda
        # from LAMBDA_TASK_ROOT (local sampling, no sampling client; tracing on, boto patched).
        "LAMBDA_TASK_ROOT": str(REPO_ROOT),
        "AWS_LAMBDA_FUNCTION_NAME": "bench",
        # As on Lambda, the function's role's credentials are in the environment: a client finds
        # them first, where otherwise botocore's provider chain would read the configuration files
        # and ask the instance metadata service (a network call) while the client is created.
        "AWS_ACCESS_KEY_ID": "ASIABENCHBENCHBENCH0",
        "AWS_SECRET_ACCESS_KEY": "bench-secret-access-key",
        "AWS_SESSION_TOKEN": "bench-session-token",
    }
    handlers = {
        Path(spec["Properties"]["CodeUri"]).name: (
            functions / Path(spec["Properties"]["CodeUri"]).name / "app.py",
            {**environment, **template.literal_environment(logical_id)},
        )
        for logical_id, spec in template.of_type("AWS::Serverless::Function").items()
        if not only or Path(spec["Properties"]["CodeUri"]).name in only
    }
    first_clients = {name: None if import_only else FIRST_CLIENTS.get(name) for name in handlers}
    code = {
        name: IMPORT_HANDLER.format(path=str(path)) + _first_clients_code(first_clients[name] or [])
        for name, (path, _) in handlers.items()
    }
    if floor:  # beside the functions, in the environment of the first one measured
        some_environment = next(iter(handlers.values()))[1] if handlers else environment
        for name, snippet in FLOORS.items():
            handlers[name] = (Path(), some_environment)
            code[name], first_clients[name] = snippet, [("create_client", "dynamodb")]
    baselines: list[float] = []
    times: dict[str, list[float]] = {name: [] for name in handlers}
    ratios: dict[str, list[float]] = {name: [] for name in handlers}
    for _ in range(runs):
        for name, (_, function_environment) in handlers.items():
            # Each handler against a baseline taken just before it: this machine's speed drifts by
            # a third within minutes, and a ratio of adjacent runs cancels most of that.
            baseline = cost(BASELINE, function_environment)
            handler = cost(code[name], function_environment)
            baselines.append(baseline)
            times[name].append(handler)
            ratios[name].append(handler / baseline)
    return {
        "baseline": {median: round(statistics.median(baselines), 1), "ratio": 1.0},
        **{
            name: {
                median: round(statistics.median(times[name]), 1),
                "ratio": round(statistics.median(ratios[name]), 3 if instructions else 2),
                "first_clients": [f"{accessor}({argument})" for accessor, argument in first_clients[name]]
                if first_clients[name] is not None
                else None,
            }
            for name in handlers
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--only", nargs="*", metavar="FUNCTION", help="measure only these functions (code folders)")
    parser.add_argument("--from-source", action="store_true", help="the layer without its build's bytecode")
    parser.add_argument("--import-only", action="store_true", help="the handler's import alone")
    parser.add_argument("--floor", action="store_true", help="also what the stack costs before the project's code")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions under valgrind (one run does) instead of time"
    )
    arguments = parser.parse_args()
    results = measure(
        arguments.runs,
        arguments.only,
        from_source=arguments.from_source,
        import_only=arguments.import_only,
        floor=arguments.floor,
        instructions=arguments.instructions,
    )
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
