"""The commands people type: operator CLIs (region, stack, one-line errors, help), the console
entry points, make build/deploy, the lock files, bench progress and the local runtime's output."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from botocore.exceptions import ClientError

from ops import cli
from slea_local import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
import progress

pytestmark = pytest.mark.slow  # runs the commands as processes


def _samconfig(tmp_path: Path, text: str) -> list[Path]:
    path = tmp_path / "samconfig.toml"
    path.write_text(text, encoding="utf-8")
    return [path]


SAMCONFIG = """
version = 0.1
[default.global.parameters]
stack_name = "my-stack"
[default.deploy.parameters]
region = "eu-central-1"
"""


def test_region_order_flag_then_environment_then_samconfig(tmp_path):
    candidates = _samconfig(tmp_path, SAMCONFIG)
    both = {"AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "us-east-2"}
    assert cli.resolve_region("ap-south-1", both, candidates) == "ap-south-1"
    assert cli.resolve_region(None, both, candidates) == "us-west-2"
    assert cli.resolve_region(None, {"AWS_DEFAULT_REGION": "us-east-2"}, candidates) == "us-east-2"
    assert cli.resolve_region(None, {"AWS_REGION": "  "}, candidates) == "eu-central-1"
    assert cli.resolve_region(None, {}, []) is None
    assert cli.resolve_region(None, {}, [tmp_path / "missing.toml"]) is None


def test_samconfig_values(tmp_path):
    assert cli.samconfig_value("stack_name", _samconfig(tmp_path, SAMCONFIG)) == "my-stack"
    assert cli.samconfig_value("region", [REPO_ROOT / "samconfig.toml"]) == "ap-northeast-2"
    assert cli.samconfig_value("region", _samconfig(tmp_path, "not [toml")) is None


def _scrubbed_env(tmp_path: Path) -> dict[str, str]:
    """No AWS credentials, profile or instance metadata: only what a bare shell would have."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": f"{REPO_ROOT / 'layers' / 'slea'}{os.pathsep}{REPO_ROOT}",
        "AWS_CONFIG_FILE": str(tmp_path / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("ops.retry_queue_admin", ["count"]),
        ("ops.seed", [str(REPO_ROOT / "data" / "demo_seed.json")]),
        ("ops.bank_fingerprints", ["--dry-run"]),
        ("ops.users", ["list"]),
        ("ops.backfill", ["--dry-run", "--stack", "slea-ssem", "--region", "us-east-1"]),
        ("ops.upgrade", ["--dry-run", "--stack", "slea-ssem", "--region", "us-east-1"]),
        ("ops.users", ["invite", "ann@example.com", "--user-pool-id", "us-east-1_x", "--region", "us-east-1"]),
        ("ops.smoke", ["--stack", "slea-ssem", "--region", "us-east-1"]),
        (
            "ops.smoke",
            [
                "--url",
                "http://127.0.0.1:9",
                "--user-pool-id",
                "us-east-1_x",
                "--client-id",
                "c",
                "--region",
                "us-east-1",
            ],
        ),
    ],
)
def test_operator_command_without_credentials_prints_one_line(tmp_path, module, args):
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=tmp_path,
        env=_scrubbed_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert "error: no AWS credentials" in done.stderr


@pytest.fixture
def no_region(monkeypatch, tmp_path):
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setattr(cli, "SAMCONFIG_CANDIDATES", [])
    monkeypatch.setenv("SLEA_STACK", "slea-ssem")


def test_no_region_is_one_line_exit_2(no_region, capsys):
    from ops.retry_queue_admin import main

    assert main(["count"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("slea-retry-queue: error: no AWS region")
    assert err.count("\n") == 1


def test_client_error_and_missing_outputs(monkeypatch, capsys):
    import ops.cli
    from ops.retry_queue_admin import main

    def refused(stack):
        raise ClientError(
            {"Error": {"Code": "ValidationError", "Message": f"Stack with id {stack} does not exist"}},
            "DescribeStacks",
        )

    monkeypatch.setattr(ops.cli, "described_outputs", refused)
    assert main(["count", "--stack", "nope", "--region", "eu-west-1"]) == 1
    assert capsys.readouterr().err == (
        "slea-retry-queue: error: AWS refused DescribeStacks: ValidationError: Stack with id nope does not exist\n"
    )
    monkeypatch.setattr(ops.cli, "described_outputs", lambda stack: {"RetryQueueUrl": "https://q"})
    assert main(["count", "--stack", "old", "--region", "eu-west-1"]) == 2
    assert "stack old has no output RetryDeadLetterQueueUrl" in capsys.readouterr().err


def test_bank_fingerprints_without_stack_or_tables_says_so(monkeypatch, capsys):
    from ops.bank_fingerprints import main

    for variable in ("SLEA_STACK", "QUESTIONS_TABLE", "ABILITIES_TABLE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(cli, "SAMCONFIG_CANDIDATES", [])
    assert main(["--region", "eu-west-1"]) == 2
    assert capsys.readouterr().err == (
        "slea-bank-fingerprints: error: no stack: pass --stack, set SLEA_STACK, "
        "or set QUESTIONS_TABLE and ABILITIES_TABLE\n"
    )
    assert main(["--page-size", "0", "--region", "eu-west-1"]) == 2
    assert "--page-size and --pages must be at least 1" in capsys.readouterr().err
    assert main(["--release", "--region", "eu-west-1"]) == 2
    assert "--release goes with --stale" in capsys.readouterr().err


def test_seed_without_stack_or_tables_says_so(monkeypatch, capsys, tmp_path):
    from ops.seed import main

    for variable in ("SLEA_STACK", "PROFILES_TABLE", "TEMPLATES_TABLE", "KEYWORDS_TABLE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(cli, "SAMCONFIG_CANDIDATES", [])
    assert main([str(REPO_ROOT / "data" / "demo_seed.json")]) == 2
    assert capsys.readouterr().err == "slea-seed: error: no stack: pass --stack or set SLEA_STACK\n"
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "module",
    [
        "ops.retry_queue_admin",
        "ops.seed",
        "ops.bank_fingerprints",
        "ops.users",
        "ops.smoke",
        "ops.backfill",
        "ops.upgrade",
    ],
)
def test_help_is_whole_sentences(module, capsys):
    main = __import__(module, fromlist=["main"]).main
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    description = text.split("\n\n")[1]  # the paragraph after usage: never cut mid-sentence
    assert description.endswith("."), description
    assert "--region" in text
    if module == "ops.retry_queue_admin":
        assert "get_retry_queue() and\nclear_retry_queue()." in description
        assert text.rstrip().endswith("peek at the retry\nqueue sparingly.")
    if module == "ops.bank_fingerprints":
        assert text.rstrip().endswith("ABILITIES_TABLE when both are set.")


def test_console_scripts_name_real_functions():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(project["scripts"]) == {
        "slea-retry-queue",
        "slea-seed",
        "slea-bank-fingerprints",
        "slea-local",
        "slea-users",
    }
    for target in project["scripts"].values():
        module, _, function = target.partition(":")
        assert callable(getattr(__import__(module, fromlist=[function]), function))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("target", ["build", "deploy"])
def test_make_runs_sam_with_python313_first_on_path(target):
    done = subprocess.run(
        ["make", "-n", target], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    sam_line = next(line for line in done.stdout.splitlines() if ".venv-sam/bin/sam " in line)
    first = re.match(r'PATH="([^:"]+):\$PATH"', sam_line)
    assert first, sam_line
    assert (Path(first.group(1)) / "python3.13").exists()
    if target == "deploy":
        assert "AWS_DEFAULT_REGION" not in sam_line  # samconfig.toml decides the region


def _pins(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    return {
        name.lower(): version
        for name, version in re.findall(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^\s\\]+)", text, re.MULTILINE)
    }


def test_lock_files_pin_everything_with_hashes():
    layer_in = _pins(REPO_ROOT / "layers" / "slea" / "requirements.in")
    layer_lock = _pins(REPO_ROOT / "layers" / "slea" / "requirements.txt")
    dev_lock = _pins(REPO_ROOT / "requirements" / "dev.txt")
    assert layer_in.items() <= layer_lock.items()
    assert layer_lock.items() <= dev_lock.items()  # tests run the layer's exact versions
    # Installed with --no-deps: exactly the pins of its .in file, nothing transitive.
    no_deps_in = _pins(REPO_ROOT / "layers" / "slea" / "requirements-no-deps.in")
    assert no_deps_in == _pins(REPO_ROOT / "layers" / "slea" / "requirements-no-deps.txt")
    for lock in ("layers/slea/requirements.txt", "requirements/dev.txt", "layers/slea/requirements-no-deps.txt"):
        blocks = re.split(r"\n(?=[A-Za-z0-9])", (REPO_ROOT / lock).read_text(encoding="utf-8"))
        pinned = [block for block in blocks if "==" in block.split("\n")[0]]
        assert pinned
        assert all("--hash=sha256:" in block for block in pinned), lock
    assert "docker" not in dev_lock  # moto without the docker-pulling extras
    assert "types-cachetools" not in dev_lock  # cachetools 8 ships its own types


def test_bench_progress_names_each_benchmark_and_its_time():
    stream = io.StringIO()
    timed = progress.with_progress("template_search", lambda small, large: small + large, stream)
    assert timed(1, large=2) == 3
    lines = stream.getvalue().splitlines()
    assert lines[0] == "bench: template_search(1, large=2) ..."
    assert re.fullmatch(r"bench: template_search took \d+\.\d s", lines[1])

    module = ModuleType("fake_bench")
    module.__file__ = str(progress.BENCH_DIR / "fake_bench.py")
    module.measure = lambda: {"ratio": 1.0}  # type: ignore[attr-defined]
    elsewhere = ModuleType("elsewhere")
    elsewhere.__file__ = str(REPO_ROOT / "elsewhere.py")
    elsewhere.measure = lambda: None  # type: ignore[attr-defined]
    assert progress.report_progress([module, elsewhere]) == ["fake_bench"]
    assert progress.report_progress([module]) == ["fake_bench"]  # wrapped once
    assert not hasattr(module.measure.__wrapped__, "__wrapped__")


def test_local_round_failure_is_one_short_line():
    from slea_local.__main__ import short_error

    cause = json.dumps({"errorMessage": "boom\n" + "moto state " * 500, "errorType": "ValueError"})
    line = short_error("ValueError", cause)
    assert line == "failed: ValueError: boom"
    long = short_error("States.Runtime", "x" * 5000, limit=100)
    assert len(long) < 140
    assert "\n" not in long
    assert short_error(None, None) == "failed: error: no cause given"


def test_local_round_plan_comes_from_the_execution():
    from slea_local.__main__ import round_plan

    plan = {"difficulty": 6, "difficulty_reason": "intermediate 5, experience +1, previous score +0"}
    events = [
        {"type": "TaskStateEntered", "stateEnteredEventDetails": {"name": "PlanRound"}},
        {
            "type": "TaskStateExited",
            "stateExitedEventDetails": {"name": "PlanRound", "output": json.dumps({"plan": plan, "profile": {}})},
        },
    ]
    assert round_plan(events) == plan
    assert round_plan(events[:1]) is None


def test_local_generate_says_learner_difficulty_and_why(capsys):
    from slea.contracts.profile import UserProfile
    from slea.logic.rounds.planning import without_estimate
    from slea.logic.rounds.target import success_rate
    from slea_local.__main__ import main

    assert main(["generate", "--count", "2"]) == 0
    captured = capsys.readouterr()
    assert "local AWS:" in captured.err
    profile = json.loads((REPO_ROOT / "data" / "demo_seed.json").read_text(encoding="utf-8"))
    learner = re.search(r"learner (\S+) · session cli-session round 1 · technical", captured.out)
    assert learner
    record = max((p for p in profile["profiles"] if p["user_id"] == learner.group(1)), key=lambda p: p["submitted_at"])
    record = {key: value for key, value in record.items() if key != "submitted_at"}
    # A first round aims at the survey's prior (no answer yet), for the default mix whatever its
    # count (as the summary announces it; test changed to the new behaviour: it was the two slots' types).
    rate = success_rate()
    target = without_estimate(UserProfile.model_validate(record), 1, [], rate, None)
    assert "no answer yet, the survey's prior" in target.reason
    assert f"difficulty {target.label} ({target.reason})" in captured.out


def test_local_generate_failure_is_short(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "slea_local", "generate", "--count", "1", "--user-id", "not-a-uuid"],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": f"{REPO_ROOT / 'layers' / 'slea'}{os.pathsep}{REPO_ROOT}"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert "failed: ValueError: user_id must be valid UUID format" in done.stdout
    assert "state_entered_event_type" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_the_demo_says_why_each_item_is_about_what_it_is_about():
    from slea_local.__main__ import _interest_note

    interests = ["LLM", " RAG "]
    on_interest = _interest_note({"concept": "HyDE", "concept_domain": "rag"}, interests)
    off_interest = _interest_note({"concept": "Pareto Analysis", "concept_domain": "Problem Solving"}, interests)
    assert on_interest == "about: HyDE (domain rag: one of the learner's interests)"
    assert "not one of the learner's interests" in off_interest
    assert _interest_note({"concept": None}, interests).startswith("about: no concept record")


def test_the_demo_states_the_measured_ability_in_words():
    from slea_local.__main__ import _ability_line

    ability = {"category": "technical", "level": "beginner", "theta": -0.8, "se": 0.5, "answers": 5}
    line = _ability_line(ability | {"answers_to_precision": 31})
    assert line.startswith(
        "technical: beginner — ability -0.80 logits, 95% range -1.8 to +0.2 (standard error 0.50) from 5 answers"
    )
    assert line.endswith("about 31 more answers would make it precise (standard error 0.3)")
    assert _ability_line(ability | {"answers_to_precision": 0}).endswith("precise (standard error 0.3 or less)")
    assert "±" not in line  # a bare ± is one standard error, unnamed: the panel never prints one
