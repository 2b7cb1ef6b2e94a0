"""People and their roles in the stack's own user pool (template.yaml's UserPool; roles are its
groups reviewers and authors, never a scope).

    slea-users invite EMAIL [--group reviewers] [--group authors] [--resend]
    slea-users groups EMAIL --add reviewers | --remove reviewers
    slea-users list
    slea-users remove EMAIL

(`slea-users` is installed by `pip install -e .`; `python -m ops.users` is the same command.)
The pool is the stack's output UserPoolId: --stack, else SLEA_STACK, else samconfig.toml's
stack_name; or --user-pool-id names a pool directly. Invite creates the user and Cognito e-mails
them a temporary password, which the hosted sign-in page asks them to change; --resend sends a
lost invitation again. A change of groups reaches the user's next sign-in (a token already issued
keeps its groups until it expires, an hour). Remove deletes the sign-in, not the user's records
(sessions, answers), which stay keyed by their subject.
"""

import json
import sys
from typing import Any

from ops import cli
from slea.security.roles import AUTHOR_GROUP, REVIEWER_GROUP

GROUPS = (REVIEWER_GROUP, AUTHOR_GROUP)
POOL_OUTPUT = "UserPoolId"
WEB_APP_OUTPUT = "WebAppUrl"


def _cognito() -> Any:
    import boto3  # noqa: PLC0415 - as in ops.cli: only when a command runs

    return boto3.client("cognito-idp")


def _email(value: str) -> str:
    """The pool signs in by e-mail, case-insensitively: one spelling of each address."""
    email = value.strip().lower()
    if email.count("@") != 1 or not all(email.split("@")) or any(space in email for space in " \t\n"):
        raise cli.CommandError(f"not an e-mail address: {value!r}")
    return email


def pool_of_stack(stack: str) -> tuple[str, str | None]:
    """(user pool id, web app URL) from the stack's outputs."""
    outputs = cli.described_outputs(stack)
    if POOL_OUTPUT not in outputs:
        raise cli.CommandError(
            f"stack {stack} has no output {POOL_OUTPUT}: it signs in with a given JwtIssuer and has no user pool"
            " of its own (pass --user-pool-id for a Cognito pool you manage), or it predates the user pool",
            cli.EXIT_CONFIG,
        )
    return outputs[POOL_OUTPUT], outputs.get(WEB_APP_OUTPUT)


def invite(pool_id: str, email: str, groups: list[str], resend: bool = False) -> dict[str, Any]:
    """AdminCreateUser (Cognito e-mails the invitation), then the groups."""
    email = _email(email)
    client = _cognito()
    options: dict[str, Any] = {"MessageAction": "RESEND"} if resend else {}
    try:
        created = client.admin_create_user(
            UserPoolId=pool_id,
            Username=email,
            # The operator vouches for the address, and the invitation is sent to it.
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            DesiredDeliveryMediums=["EMAIL"],
            **options,
        )["User"]
    except client.exceptions.UsernameExistsException as error:
        raise cli.CommandError(f"{email} is already a user (--resend sends the invitation again)") from error
    for group in groups:
        client.admin_add_user_to_group(UserPoolId=pool_id, Username=email, GroupName=group)
    return {
        "email": email,
        "subject": _attribute(created, "sub"),
        "status": created.get("UserStatus"),
        "groups": sorted(set(groups)),
        "invitation": "sent again" if resend else "sent",
    }


def change_groups(pool_id: str, email: str, add: list[str], remove: list[str]) -> dict[str, Any]:
    email = _email(email)
    client = _cognito()
    for group in add:
        client.admin_add_user_to_group(UserPoolId=pool_id, Username=email, GroupName=group)
    for group in remove:
        client.admin_remove_user_from_group(UserPoolId=pool_id, Username=email, GroupName=group)
    return {"email": email, "groups": groups_of(pool_id, email)}


def groups_of(pool_id: str, email: str) -> list[str]:
    client = _cognito()
    names: list[str] = []
    token: dict[str, str] = {}
    while True:
        page = client.admin_list_groups_for_user(UserPoolId=pool_id, Username=_email(email), Limit=60, **token)
        names.extend(group["GroupName"] for group in page.get("Groups", []))
        if not page.get("NextToken"):
            return sorted(names)
        token = {"NextToken": page["NextToken"]}


def _attribute(user: dict[str, Any], name: str) -> str | None:
    for attribute in user.get("Attributes", []):
        if attribute["Name"] == name:
            return str(attribute["Value"])
    return None


def _pages(call: Any, key: str, **arguments: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token: dict[str, str] = {}
    while True:
        page = call(**arguments, **token)
        items.extend(page.get(key, []))
        if not page.get("NextToken") and not page.get("PaginationToken"):
            return items
        token = (
            {"PaginationToken": page["PaginationToken"]}
            if "PaginationToken" in page
            else {"NextToken": page["NextToken"]}
        )


def list_users(pool_id: str) -> list[dict[str, Any]]:
    """Every user with their groups: one listing of the pool and one of each group."""
    client = _cognito()
    members: dict[str, set[str]] = {}
    for group in GROUPS:
        for user in _pages(client.list_users_in_group, "Users", UserPoolId=pool_id, GroupName=group, Limit=60):
            members.setdefault(user["Username"], set()).add(group)
    users = _pages(client.list_users, "Users", UserPoolId=pool_id, Limit=60)
    return sorted(
        (
            {
                "email": _attribute(user, "email"),
                "subject": _attribute(user, "sub"),
                "status": user.get("UserStatus"),
                "enabled": user.get("Enabled", True),
                "groups": sorted(members.get(user["Username"], set())),
            }
            for user in users
        ),
        key=lambda user: str(user["email"]),
    )


def remove(pool_id: str, email: str) -> dict[str, Any]:
    email = _email(email)
    _cognito().admin_delete_user(UserPoolId=pool_id, Username=email)
    return {"email": email, "removed": True}


def main(argv: list[str] | None = None) -> int:
    parser = cli.argument_parser("slea-users", __doc__)
    parser.add_argument("command", choices=["invite", "groups", "list", "remove"])
    parser.add_argument("email", nargs="?", help="the user's e-mail address (all but list)")
    cli.add_aws_options(parser)
    parser.add_argument("--user-pool-id", help="the user pool itself, instead of the stack's output UserPoolId")
    parser.add_argument("--group", action="append", default=[], choices=GROUPS, help="for invite (repeatable)")
    parser.add_argument("--add", action="append", default=[], choices=GROUPS, help="for groups (repeatable)")
    parser.add_argument("--remove", action="append", default=[], choices=GROUPS, help="for groups (repeatable)")
    parser.add_argument("--resend", action="store_true", help="for invite: send an existing user's invitation again")
    args = parser.parse_args(argv)

    def command() -> int:
        if args.command != "list" and not args.email:
            raise cli.CommandError(f"{args.command} needs the user's e-mail address", cli.EXIT_CONFIG)
        if args.command == "groups" and not (args.add or args.remove):
            raise cli.CommandError("groups needs --add GROUP or --remove GROUP", cli.EXIT_CONFIG)
        cli.use_region(args.region)
        web_app_url = None
        pool_id = args.user_pool_id
        if not pool_id:
            stack = cli.resolve_stack(args.stack)
            if not stack:
                raise cli.CommandError(
                    "no stack: pass --stack, set SLEA_STACK, or pass --user-pool-id", cli.EXIT_CONFIG
                )
            pool_id, web_app_url = pool_of_stack(stack)
        if args.command == "invite":
            result: Any = invite(pool_id, args.email, args.group, args.resend)
            if web_app_url:
                result["signs_in_at"] = web_app_url
        elif args.command == "groups":
            result = change_groups(pool_id, args.email, args.add, args.remove)
        elif args.command == "list":
            result = list_users(pool_id)
        else:
            result = remove(pool_id, args.email)
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
