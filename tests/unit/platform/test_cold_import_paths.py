"""What a handler's cold start loads (bench/cold_import.py measures how long it takes): garbage
collection is on again once a handler module has loaded, and modules a function may never need
are left until it does."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.cold_import import FIRST_CLIENTS, FLOORS
from slea_local import REPO_ROOT
from slea_local.template import repository_template

pytestmark = pytest.mark.slow  # a fresh interpreter per handler

SCRIPT = """
import gc, importlib.util, json, os, sys
sys.path.insert(0, os.path.dirname({path!r}))  # as in Lambda: the code directory (functions/api: routers/)
spec = importlib.util.spec_from_file_location("app", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps({{"gc_enabled": gc.isenabled(), "frozen": gc.get_freeze_count(), "modules": sorted(sys.modules)}}))
"""

TEMPLATE = repository_template()
FUNCTIONS = {  # code folder -> logical id
    Path(spec["Properties"]["CodeUri"]).name: logical_id
    for logical_id, spec in TEMPLATE.of_type("AWS::Serverless::Function").items()
}
HANDLERS = sorted(str(REPO_ROOT / "functions" / folder / "app.py") for folder in FUNCTIONS)
# Loaded only when first needed: short-answer grading, the offline item writer and its semantic
# review, and the Mode 1 pipeline contracts in the HTTP API.
NOT_AT_IMPORT = {
    "score_and_explain": [
        "rapidfuzz",  # only a short answer's feedback compares texts
        "slea.grading.offline",
        "slea.grading.verdict",
        "slea.grading.semantic",
        "tokenizers",
        "snowballstemmer",
        "slea.authoring.offline_generator",
    ],
    "generate_questions": [
        "slea.authoring.offline_generator",
        "slea.llm.offline.semantic_review",
        "slea.grading.offline",
    ],
    "validate_question_quality": ["slea.authoring.offline_generator", "slea.grading.offline"],
    # The key-leak guard names the scoring contracts' links as a type only.
    "plan_round": ["slea.contracts.scoring"],
    # ... and in the HTTP API the grading path, and what only the session summary (the planner,
    # the profile) or a reviewer's edit (Tool 5's contract) needs.
    "api": [
        "slea.contracts.round",
        "slea.contracts.generation",
        "slea.grading.offline",
        "slea.llm.offline",
        "slea.logic.answering.answer",
        "slea.logic.sessions.summary",
        "slea.logic.rounds.planning",
        "slea.logic.learners.profile",
        "slea.contracts.questions",
        "slea.logic.review.grades",
        "slea.logic.review.undo",
        "slea.logic.review.bulk",
        "slea.logic.review.transactions",
        "slea.logic.review.question_actions",
        "slea.logic.review.trail",
        "slea.logic.review.queue",
        "slea.dal.review",
        "slea.dal.review_writes",
        "rapidfuzz",
        "aws_lambda_powertools.utilities.parser.models",  # every event model Powertools ships
        # ... and the reviewers' routes and contracts, which a reviewer's first request loads.
        "routers.review",
        "slea.contracts.review",
        "slea.contracts.item_analysis",
    ],
    "mcp": ["aws_lambda_powertools.utilities.parser.models", "slea.contracts.review"],
    # The stream fold shares the refit's answer rules, not the refit (its contracts, person fit).
    "fold_attempts": [
        "aws_lambda_powertools.utilities.parser.models",
        "slea.logic.jobs.calibration",
        "slea.contracts.item_analysis",
        "slea.measurement.calibration",
    ],
    # Saving a question names the generation contracts' draft as a type only, and fingerprints
    # it without the key-leak matcher.
    "save_generated_question": ["slea.contracts.generation", "slea.security.key_leaks"],
    "save_retry_worker": [
        "aws_lambda_powertools.utilities.parser.models",
        "slea.contracts.generation",
        "slea.security.key_leaks",
    ],
}


def _function_environment(path: str) -> dict[str, str]:
    """What the template gives the function (the variables it spells out), in a bare environment."""
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO_ROOT / "layers" / "slea"),
        "AWS_DEFAULT_REGION": "us-east-1",
        **TEMPLATE.literal_environment(FUNCTIONS[Path(path).parent.name]),
    }


def _import_in_fresh_interpreter(path: str, script: str = SCRIPT, environment: dict[str, str] | None = None) -> Any:
    output = subprocess.run(
        [sys.executable, "-c", script.format(path=path)],
        env=_function_environment(path) if environment is None else environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(output.stdout.strip().splitlines()[-1])


# The calibration jobs (batch runs, without a cold-start target) load with collection on.
COLLECTING_WHILE_LOADING = {"calibrate_items", "calibration_export", "calibration_reduce"}


@pytest.mark.parametrize("path", HANDLERS, ids=lambda path: path.split("/")[-2])
def test_garbage_collection_is_on_once_a_handler_has_loaded(path: str) -> None:
    loaded = _import_in_fresh_interpreter(path)
    assert loaded["gc_enabled"] is True
    if Path(path).parent.name not in COLLECTING_WHILE_LOADING:
        # What the handler loaded is frozen out of later collections: the first one would
        # otherwise walk every object the import made, inside the first invocation.
        assert loaded["frozen"] > 50_000


@pytest.mark.parametrize("function", sorted(NOT_AT_IMPORT))
def test_modules_a_function_may_never_need_are_not_loaded_at_import(function: str) -> None:
    loaded = _import_in_fresh_interpreter(str(REPO_ROOT / "functions" / function / "app.py"))["modules"]
    assert isinstance(loaded, list)
    assert [name for name in NOT_AT_IMPORT[function] if name in loaded] == []
    assert "slea.platform.observability" in loaded  # the handler did load


PLUGIN_LOOKUP = """
import importlib.util, json, os, sys
sys.path.insert(0, os.path.dirname({path!r}))
spec = importlib.util.spec_from_file_location("app", {path!r})
spec.loader.exec_module(importlib.util.module_from_spec(spec))
from pydantic import BaseModel
class Built(BaseModel):  # the web function builds no model of its own
    x: int
from pydantic.plugin import _loader
print(json.dumps(_loader._plugins is not None))  # set once pydantic has listed the entry points
"""


@pytest.mark.parametrize("path", HANDLERS, ids=lambda path: path.split("/")[-2])
def test_pydantic_does_not_list_installed_distributions_for_plugins(path: str) -> None:
    # The template disables pydantic's plugins (none is installed): the first model built would
    # otherwise read every installed distribution's entry points.
    assert _import_in_fresh_interpreter(path, PLUGIN_LOOKUP) is False


def test_without_the_template_setting_pydantic_lists_them() -> None:
    path = str(REPO_ROOT / "functions" / "get_user_profile" / "app.py")
    environment = _function_environment(path)
    del environment["PYDANTIC_DISABLE_PLUGINS"]
    assert _import_in_fresh_interpreter(path, PLUGIN_LOOKUP, environment) is True


CONTRACTS_AT_IMPORT = """
import importlib.util, json, os, sys
sys.path.insert(0, os.path.dirname({path!r}))
spec = importlib.util.spec_from_file_location("app", {path!r})
spec.loader.exec_module(importlib.util.module_from_spec(spec))
reviewers_loaded = "slea.contracts.review" in sys.modules
from pydantic import BaseModel
from slea.contracts import review, sessions
def built(module):
    return {{
        c.__name__: c.__pydantic_complete__
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, BaseModel) and c.__module__ == module.__name__
    }}
print(json.dumps({{"reviewers_loaded": reviewers_loaded, "sessions": built(sessions), "review": built(review)}}))
"""


@pytest.mark.parametrize("function", ["api", "mcp"])
def test_learners_contracts_are_built_at_import_and_the_reviewers_never_loaded(function: str) -> None:
    loaded = _import_in_fresh_interpreter(str(REPO_ROOT / "functions" / function / "app.py"), CONTRACTS_AT_IMPORT)
    # Learners' requests use these: built at import, never in a learner's first request.
    assert {"RoundStatus", "SessionSummary", "ReportRequest"} <= set(loaded["sessions"])
    assert [name for name, built in loaded["sessions"].items() if not built] == []
    # Only reviewers' requests use these: not even loaded at import, and, once loaded, each built
    # by its first use.
    assert loaded["reviewers_loaded"] is False
    assert {"ReviewQueue", "AttemptReviewRequest", "AuditRecords"} <= set(loaded["review"])
    assert [name for name, built in loaded["review"].items() if built and name != "ReviewerContract"] == []


@pytest.mark.parametrize("function", ["plan_round", "collect_round"])
def test_the_round_steps_that_judge_items_load_the_key_leak_matcher_at_import(function: str) -> None:
    # Every round's bank draw or collection judges items against what the session has shown
    # (security/exposure.py loads the matcher on the first judgement): at cold start, not in the
    # first request.
    loaded = _import_in_fresh_interpreter(str(REPO_ROOT / "functions" / function / "app.py"))["modules"]
    assert "slea.security.key_leaks" in loaded


REVIEW_ROUTES_ON_DEMAND = """
import importlib.util, json, os, sys
from moto import mock_aws
from slea_local.http import http_api_event
from slea_local.runtime import LambdaContext
sys.path.insert(0, os.path.dirname({path!r}))
seen = []
with mock_aws():  # no table: the request budget's read fails, and the budget fails open
    spec = importlib.util.spec_from_file_location("app", {path!r})
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    def status(method, path, claims):
        event = http_api_event(method, path, "", {{"content-type": "application/json"}}, body="{{}}", claims=claims)
        return module.lambda_handler(event, LambdaContext("api"))["statusCode"]
    seen.append(["import", "routers.review" in sys.modules])
    learner = {{"sub": "learner-1"}}
    reviewer = {{"sub": "reviewer-1", "cognito:groups": ["reviewers"]}}
    seen.append([status("POST", "/sessions/s-1/answers", learner), "routers.review" in sys.modules])
    seen.append([status("POST", "/review/attempts/accept", learner), "routers.review" in sys.modules])
    seen.append([status("POST", "/review/attempts/accept", reviewer), "routers.review" in sys.modules])
    def routes():
        return len(module.app._static_routes) + len(module.app._dynamic_routes)
    before = routes()
    seen.append([status("POST", "/review/attempts/accept", reviewer), routes() == before])
print(json.dumps(seen))
"""


def test_the_review_routes_are_loaded_by_a_reviewers_first_request_and_served_from_it() -> None:
    path = str(REPO_ROOT / "functions" / "api" / "app.py")
    environment = {
        **_function_environment(path),
        "PYTHONPATH": f"{REPO_ROOT / 'layers' / 'slea'}:{REPO_ROOT}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "RATE_LIMIT_TABLE": "absent",
        "POWERTOOLS_LOG_LEVEL": "CRITICAL",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }
    seen = _import_in_fresh_interpreter(path, REVIEW_ROUTES_ON_DEMAND, environment)
    assert seen == [
        ["import", False],
        [422, False],  # a learner's request (here, a body without an answer) loads no review route
        [403, False],  # nor does a learner's request to a review route: refused before routing
        [422, True],  # a reviewer's is routed (an empty bulk accept is invalid; unknown, it would be 404)
        [422, True],  # and the routes are included once
    ]


def test_a_reviewer_contract_is_built_by_its_first_use_and_validates_as_before() -> None:
    from pydantic import ValidationError

    from slea.contracts.review import UndoRequest

    with pytest.raises(ValidationError, match="note"):  # its reason is required
        UndoRequest.model_validate({})
    assert UndoRequest.__pydantic_complete__
    assert UndoRequest.model_validate({"note": "graded twice"}).note == "graded twice"


FIRST_CLIENTS_LOADED = """
import importlib.util, json, os, sys
sys.path.insert(0, os.path.dirname({path!r}))
spec = importlib.util.spec_from_file_location("app", {path!r})
spec.loader.exec_module(importlib.util.module_from_spec(spec))
at_import = "boto3" in sys.modules
from slea.platform import aws
for accessor, argument in {clients!r}:
    getattr(aws, accessor)(argument)
print(json.dumps({{"at_import": at_import, "with_clients": "boto3" in sys.modules}}))
"""


@pytest.mark.parametrize("function", sorted(FIRST_CLIENTS), ids=str)
def test_boto3_is_not_loaded_by_a_handler_nor_its_first_clients(function: str) -> None:
    # The clients are botocore's (slea.platform.aws) and the wire format is the layer's own
    # (slea.dal.wire_format): boto3's package is loaded only by Powertools' parameters utility,
    # which the functions that read the id secret use.
    path = str(REPO_ROOT / "functions" / function / "app.py")
    environment = {**_function_environment(path), "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    script = FIRST_CLIENTS_LOADED.replace("{clients!r}", repr(FIRST_CLIENTS[function]))
    loaded = _import_in_fresh_interpreter(path, script, environment)
    reads_a_parameter = any(accessor == "parameter_provider" for accessor, _ in FIRST_CLIENTS[function])
    assert loaded == {"at_import": False, "with_clients": reads_a_parameter}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_the_floor_loads_the_stacks_libraries_and_none_of_the_projects_code(name: str) -> None:
    """The benchmark's floor is what every function loads anyway: it must run as written and stay
    clear of the project's own modules, or the difference it is read for means nothing."""
    script = FLOORS[name] + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    environment = {"AWS_DEFAULT_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "bench", "PATH": "/usr/bin"}
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment, cwd="/"
    )
    modules = set(json.loads(output.stdout.splitlines()[-1]))
    assert {"pydantic", "aws_lambda_powertools.tracing", "botocore.client"} <= modules
    assert not {module for module in modules if module.split(".")[0] in {"slea", "slea_local", "routers", "bench"}}
    assert ("aws_lambda_powertools.event_handler" in modules) == ("API" in name)
