"""slea-users against the user pool template.yaml creates (moto's cognito-idp): invite by e-mail,
change groups, list users with their groups, remove; the pool found from the stack's outputs."""

import json

import boto3
import pytest

import ops.cli
from ops import cli
from ops.users import main
from slea_local.cloud import REGION, LocalCloud

pytestmark = pytest.mark.aws  # the local user pool


@pytest.fixture
def pool(monkeypatch):
    monkeypatch.setattr(cli, "SAMCONFIG_CANDIDATES", [])
    monkeypatch.delenv("SLEA_STACK", raising=False)
    with LocalCloud() as cloud:
        yield cloud.physical_names["UserPool"]


def _run(capsys, *argv):
    code = main([*argv, "--region", REGION])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def test_invite_sends_the_invitation_to_the_e_mail_and_adds_the_groups(pool, capsys):
    code, invited, _ = _run(capsys, "invite", " Carol@Example.com ", "--group", "reviewers", "--user-pool-id", pool)
    assert code == 0
    assert (invited["email"], invited["groups"], invited["invitation"]) == ("carol@example.com", ["reviewers"], "sent")
    assert invited["status"] == "FORCE_CHANGE_PASSWORD"  # a temporary password, changed at first sign-in
    idp = boto3.client("cognito-idp", region_name=REGION)
    (user,) = idp.list_users(UserPoolId=pool)["Users"]
    attributes = {attribute["Name"]: attribute["Value"] for attribute in user["Attributes"]}
    assert attributes["email"] == "carol@example.com"
    assert attributes["email_verified"] == "true"
    assert attributes["sub"] == invited["subject"]
    groups = idp.admin_list_groups_for_user(UserPoolId=pool, Username="carol@example.com")["Groups"]
    assert [group["GroupName"] for group in groups] == ["reviewers"]


def test_invite_twice_is_refused_unless_resent(pool, capsys):
    assert _run(capsys, "invite", "ann@example.com", "--user-pool-id", pool)[0] == 0
    code, _, err = _run(capsys, "invite", "ann@example.com", "--user-pool-id", pool)
    assert (code, err) == (
        1,
        "slea-users: error: ann@example.com is already a user (--resend sends the invitation again)\n",
    )
    code, resent, _ = _run(capsys, "invite", "ann@example.com", "--resend", "--user-pool-id", pool)
    assert (code, resent["invitation"]) == (0, "sent again")


def test_groups_are_added_and_removed_and_listed_with_every_user(pool, capsys):
    for email in ("ann@example.com", "bob@example.com", "dave@example.com"):
        assert _run(capsys, "invite", email, "--user-pool-id", pool)[0] == 0
    code, changed, _ = _run(
        capsys, "groups", "bob@example.com", "--add", "reviewers", "--add", "authors", "--user-pool-id", pool
    )
    assert (code, changed) == (0, {"email": "bob@example.com", "groups": ["authors", "reviewers"]})
    assert _run(capsys, "groups", "dave@example.com", "--add", "authors", "--user-pool-id", pool)[0] == 0
    code, changed, _ = _run(capsys, "groups", "BOB@example.com", "--remove", "authors", "--user-pool-id", pool)
    assert changed["groups"] == ["reviewers"]
    code, listed, _ = _run(capsys, "list", "--user-pool-id", pool)
    assert code == 0
    assert [(user["email"], user["groups"]) for user in listed] == [
        ("ann@example.com", []),
        ("bob@example.com", ["reviewers"]),
        ("dave@example.com", ["authors"]),
    ]
    assert all(user["status"] == "FORCE_CHANGE_PASSWORD" and user["enabled"] for user in listed)


def test_remove_deletes_the_sign_in(pool, capsys):
    _run(capsys, "invite", "ann@example.com", "--user-pool-id", pool)
    code, removed, _ = _run(capsys, "remove", "ann@example.com", "--user-pool-id", pool)
    assert (code, removed) == (0, {"email": "ann@example.com", "removed": True})
    assert _run(capsys, "list", "--user-pool-id", pool)[1] == []
    code, _, err = _run(capsys, "remove", "ann@example.com", "--user-pool-id", pool)
    assert code == 1
    assert err.startswith("slea-users: error: AWS refused AdminDeleteUser: UserNotFoundException")


def test_only_the_pools_groups_and_whole_addresses_are_taken(pool, capsys):
    with pytest.raises(SystemExit):
        main(["invite", "ann@example.com", "--group", "admins", "--user-pool-id", pool])
    capsys.readouterr()
    for address in ("ann", "ann@", "@example.com", "a b@example.com", "a@b@example.com"):
        code, _, err = _run(capsys, "invite", address, "--user-pool-id", pool)
        assert (code, err) == (1, f"slea-users: error: not an e-mail address: {address!r}\n")
    assert _run(capsys, "invite", "--user-pool-id", pool)[0] == 2
    assert _run(capsys, "groups", "ann@example.com", "--user-pool-id", pool)[2] == (
        "slea-users: error: groups needs --add GROUP or --remove GROUP\n"
    )


def test_the_pool_and_the_web_page_come_from_the_stacks_outputs(pool, monkeypatch, capsys):
    outputs = {"UserPoolId": pool, "WebAppUrl": "https://abc.execute-api.us-east-1.amazonaws.com/"}
    asked = []
    monkeypatch.setattr(ops.cli, "described_outputs", lambda stack: asked.append(stack) or outputs)
    code, invited, _ = _run(capsys, "invite", "carol@example.com", "--group", "reviewers", "--stack", "my-class")
    assert (code, asked) == (0, ["my-class"])
    assert invited["signs_in_at"] == outputs["WebAppUrl"]
    monkeypatch.setenv("SLEA_STACK", "from-environment")
    assert _run(capsys, "list")[1][0]["groups"] == ["reviewers"]
    assert asked == ["my-class", "from-environment"]


def test_a_stack_without_its_own_pool_or_no_stack_says_so(pool, monkeypatch, capsys):
    monkeypatch.setattr(ops.cli, "described_outputs", lambda stack: {"WebAppUrl": "https://x/"})
    code, _, err = _run(capsys, "list", "--stack", "given-issuer")
    assert code == 2
    assert "stack given-issuer has no output UserPoolId: it signs in with a given JwtIssuer" in err
    assert err.count("\n") == 1
    assert (
        _run(capsys, "list")[2] == "slea-users: error: no stack: pass --stack, set SLEA_STACK, or pass --user-pool-id\n"
    )
