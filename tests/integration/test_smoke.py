"""The smoke check (`python -m ops.smoke`) against the local stack in signed-token mode: a throwaway
user of the local user pool signs in, plays a round through the HTTP API and is removed; a
failure is said plainly, with the user still removed. Run by `make test`, so the command cannot rot."""

from typing import Any

import boto3
import pytest

from ops import smoke
from slea_local.cloud import REGION
from slea_local.http import serve_in_background
from slea_local.identity import LocalUserPool

STEPS = [
    "create a throwaway user",
    "sign in",
    "start a session",
    "start a round",
    "wait for the round",
    "answer every question",
    "read the level",
    "read the history",
    "remove the user",
]


def users(pool: LocalUserPool) -> list[str]:
    listed = boto3.client("cognito-idp", region_name=REGION).list_users(UserPoolId=pool.pool_id)["Users"]
    return [attribute["Value"] for user in listed for attribute in user["Attributes"] if attribute["Name"] == "email"]


def test_the_smoke_check_passes_against_the_local_stack(step_functions: Any, unlimited_rates: None, capsys) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime, signed_tokens=True) as url:
        code = smoke.main(
            ["--url", url, "--user-pool-id", pool.pool_id, "--client-id", pool.client_id, "--round-seconds", "120"]
        )
    printed = capsys.readouterr().out
    assert code == 0, printed
    lines = printed.splitlines()[1:-1]  # after the heading, before the verdict: one line a step
    assert [line[4:30].strip() for line in lines] == STEPS, printed
    assert all(" s  ok" in line for line in lines), printed
    assert "3 answers graded" in printed
    assert printed.rstrip().splitlines()[-1].startswith("passed in ")
    assert not [email for email in users(pool) if email.startswith("smoke-")]  # the user is gone


def test_a_failing_step_is_said_plainly_and_the_user_is_still_removed(step_functions: Any, capsys) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    # Another app client of the same pool: sign-in works, the API's authorizer refuses its tokens.
    other = pool.cognito.create_user_pool_client(
        UserPoolId=pool.pool_id, ClientName="not-the-web-app", ExplicitAuthFlows=["ALLOW_ADMIN_USER_PASSWORD_AUTH"]
    )["UserPoolClient"]["ClientId"]
    with serve_in_background(step_functions.runtime, signed_tokens=True) as url:
        code = smoke.main(["--url", url, "--user-pool-id", pool.pool_id, "--client-id", other])
    printed = capsys.readouterr().out
    assert code == 1
    assert " 3. start a session" in printed
    assert 'FAILED: POST /sessions: HTTP 401 {"message": "Unauthorized"}' in printed
    assert "4. start a round" not in printed
    assert " 4. remove the user" in printed
    assert printed.rstrip().splitlines()[-1].startswith("FAILED in ")
    assert not [email for email in users(pool) if email.startswith("smoke-")]


def test_a_client_without_the_admin_sign_in_is_named(step_functions: Any, capsys) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    web_only = pool.cognito.create_user_pool_client(
        UserPoolId=pool.pool_id, ClientName="srp-only", ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH"]
    )["UserPoolClient"]["ClientId"]
    report = smoke.run(smoke.Target("http://127.0.0.1:9", pool.pool_id, web_only), say=lambda line: None)
    assert not report.passed
    assert report.steps[0][2] == f"the app client {web_only} does not allow ADMIN_USER_PASSWORD_AUTH" + (
        " (flows: ['ALLOW_USER_SRP_AUTH'])"
    )
    assert len(report.steps) == 1  # nothing created, nothing to remove


def test_the_web_app_client_allows_the_smoke_checks_sign_in(cloud: Any) -> None:
    pool = LocalUserPool(cloud)
    flows = pool.cognito.describe_user_pool_client(UserPoolId=pool.pool_id, ClientId=pool.client_id)["UserPoolClient"][
        "ExplicitAuthFlows"
    ]
    assert "ALLOW_ADMIN_USER_PASSWORD_AUTH" in flows


@pytest.mark.parametrize("argv", [["--url", "http://127.0.0.1:9"], ["--user-pool-id", "p"]])
def test_a_partial_local_target_is_one_line(argv: list[str], capsys) -> None:
    assert smoke.main(argv) == 2
    assert (
        capsys.readouterr().err.strip() == "python -m ops.smoke: error: --url needs --user-pool-id and --client-id too"
    )


def test_python_m_slea_local_smoke_runs_the_same_check_on_a_local_stack_of_its_own(capsys) -> None:
    from slea_local.__main__ import main

    assert main(["smoke"]) == 0
    printed = capsys.readouterr().out
    assert " 9. remove the user" in printed
    assert printed.rstrip().splitlines()[-1].startswith("passed in ")


@pytest.mark.parametrize("signed_tokens", [False, True], ids=["development tokens", "signed tokens"])
def test_the_smoke_check_passes_against_make_serve(
    step_functions: Any, unlimited_rates: None, capsys, signed_tokens: bool
) -> None:
    """`make smoke ARGS=--local URL` beside `make serve` (either mode): the command reads the local
    stack's outputs and reaches its pool over HTTP, as it would from another process."""
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime, signed_tokens=signed_tokens) as url:
        code = smoke.main(["--local", url, "--round-seconds", "120"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert printed.splitlines()[0] == f"smoke check of {url} (user pool {pool.pool_id}, client {pool.client_id})"
    assert [line[4:30].strip() for line in printed.splitlines()[1:-1]] == STEPS, printed
    assert not [email for email in users(pool) if email.startswith("smoke-")]


def test_no_local_stack_is_said_plainly(capsys) -> None:
    code = smoke.main(["--local", "http://127.0.0.1:9"])
    assert code == 2
    assert "no local stack answers at http://127.0.0.1:9" in capsys.readouterr().err


def test_local_names_the_target_alone(capsys) -> None:
    assert smoke.main(["--local", "http://127.0.0.1:9", "--stack", "prod"]) == 2
    assert "--local names the target alone" in capsys.readouterr().err
