"""A smoke check of a deployed stack, end to end as a learner: a throwaway user of the stack's own
user pool signs in, starts a session and a round, answers every question, reads the level and the
history; the user is removed whatever happened. Each step prints its time; a failure is printed
plainly and the command exits 1.

    python -m ops.smoke [--stack NAME] [--region REGION]
    python -m ops.smoke --url URL --user-pool-id ID --client-id ID   (a server of your own)
    python -m ops.smoke --local [URL]   (make serve's local stack; default http://127.0.0.1:8080)

The stack's outputs HttpApiUrl, UserPoolId and UserPoolClientId name what to check: --stack, else
SLEA_STACK, else samconfig.toml's stack_name. Sign-in is Cognito's admin password flow
(AdminInitiateAuth, ADMIN_USER_PASSWORD_AUTH, allowed on the web app's client), so the caller
needs cognito-idp AdminCreateUser, AdminSetUserPassword, AdminInitiateAuth, AdminDeleteUser and
DescribeUserPoolClient on the pool; the API is called as the web app calls it, with the access
token. The user is `smoke-<random>@example.com`, created without an invitation e-mail.
"""

import json
import secrets
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import NoCredentialsError, NoRegionError

from ops import cli

OUTPUTS = {"url": "HttpApiUrl", "pool_id": "UserPoolId", "client_id": "UserPoolClientId"}
SIGN_IN_FLOW = "ADMIN_USER_PASSWORD_AUTH"


class StepFailed(Exception):
    """A step's failure, said plainly."""


LOCAL_URL = "http://127.0.0.1:8080"


@dataclass(frozen=True)
class Target:
    url: str  # the HTTP API's base URL
    pool_id: str
    client_id: str
    cognito_endpoint: str | None = None  # None: the region's Cognito (a local stack serves its own)


@dataclass
class Report:
    """Each step: (name, seconds, None when it passed else what went wrong)."""

    steps: list[tuple[str, float, str | None]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return bool(self.steps) and all(failure is None for _, _, failure in self.steps)


def _cognito(endpoint: str | None = None) -> Any:
    import boto3  # noqa: PLC0415 - only when a command runs

    if endpoint is None:
        return boto3.client("cognito-idp")
    # The local stack's pool (slea_local/local_aws.py) checks no signature: any key will do.
    return boto3.client(
        "cognito-idp",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - not a secret: the local endpoint ignores it
    )


def _request(url: str, method: str, path: str, token: str, body: Any = None, *, timeout: float = 60) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{url.rstrip('/')}{path}", data=data, method=method)  # noqa: S310 - an https/http URL of the stack
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise StepFailed(f"{method} {path}: no answer ({error})") from error
    try:
        return status, json.loads(raw) if raw else None
    except json.JSONDecodeError:
        return status, raw.decode("utf-8", "replace")[:300]


def _expect(status: int, body: Any, wanted: tuple[int, ...], what: str) -> Any:
    if status not in wanted:
        raise StepFailed(f"{what}: HTTP {status} {json.dumps(body, ensure_ascii=False)[:300]}")
    return body


def _password() -> str:
    """One the pool's policy accepts: lower, upper, digit, symbol, 8 or more."""
    return f"Sm1!{secrets.token_urlsafe(18)}"


def answer_for(question: dict[str, Any]) -> str:
    """An answer of the right form (the check is of the path, not of the learner): the first
    choice's letter, the first of True/False, a sentence for a short answer."""
    choices = question.get("choices") or []
    if question.get("type") == "multiple_choice" and choices:
        return str(choices[0]).split(")")[0].strip()
    if choices:
        return str(choices[0])
    return "It stores vectors and finds the nearest ones by similarity."


class SmokeCheck:
    """The steps against one target, in order; the throwaway user is removed whatever happened."""

    def __init__(
        self,
        target: Target,
        *,
        category: str = "technical",
        count: int = 3,
        round_seconds: float = 300.0,
        poll_seconds: float = 1.0,
        say: Callable[[str], None] = print,
    ) -> None:
        self.target, self.category, self.count = target, category, count
        self.round_seconds, self.poll_seconds, self.say = round_seconds, poll_seconds, say
        self.report = Report()
        self.cognito = _cognito(target.cognito_endpoint)
        self.email = f"smoke-{secrets.token_hex(6)}@example.com"
        self.password = _password()
        self.created = False
        self.token = self.session = ""
        self.round = 0
        self.questions: list[dict[str, Any]] = []

    def run(self) -> Report:
        target = self.target
        self.say(f"smoke check of {target.url} (user pool {target.pool_id}, client {target.client_id})")
        steps = [
            ("create a throwaway user", self.create_user),
            ("sign in", self.sign_in),
            ("start a session", self.start_session),
            ("start a round", self.start_round),
            ("wait for the round", self.round_ready),
            ("answer every question", self.answer_all),
            ("read the level", self.level),
            ("read the history", self.history),
        ]
        try:
            for name, action in steps:
                if not self.step(name, action):
                    break
        finally:
            if self.created:
                self.step("remove the user", self.remove_user)
        total = sum(seconds for _, seconds, _ in self.report.steps)
        self.say(f"{'passed' if self.report.passed else 'FAILED'} in {total:.2f} s")
        return self.report

    def step(self, name: str, action: Callable[[], str]) -> bool:
        started = time.perf_counter()
        try:
            detail, failure = action(), None
        except StepFailed as error:
            detail, failure = "", str(error)
        except (NoCredentialsError, NoRegionError):  # not the stack's failure: the command cannot run
            raise
        except Exception as error:  # an AWS or client error: said as it is, then the user is removed
            detail, failure = "", f"{type(error).__name__}: {error}"
        seconds = time.perf_counter() - started
        self.report.steps.append((name, seconds, failure))
        outcome = f"ok   {detail}" if failure is None else f"FAILED: {failure}"
        self.say(f"{len(self.report.steps):>2}. {name:<26} {seconds:7.2f} s  {outcome}".rstrip())
        return failure is None

    def call(self, method: str, path: str, wanted: tuple[int, ...], body: Any = None) -> Any:
        status, answer = _request(self.target.url, method, path, self.token, body)
        return _expect(status, answer, wanted, f"{method} {path}")

    def create_user(self) -> str:
        pool_id, client_id = self.target.pool_id, self.target.client_id
        client = self.cognito.describe_user_pool_client(UserPoolId=pool_id, ClientId=client_id)["UserPoolClient"]
        flows = client.get("ExplicitAuthFlows", [])
        if f"ALLOW_{SIGN_IN_FLOW}" not in flows:
            raise StepFailed(f"the app client {client_id} does not allow {SIGN_IN_FLOW} (flows: {flows})")
        self.cognito.admin_create_user(
            UserPoolId=pool_id,
            Username=self.email,
            MessageAction="SUPPRESS",
            UserAttributes=[{"Name": "email", "Value": self.email}, {"Name": "email_verified", "Value": "true"}],
        )
        self.created = True
        self.cognito.admin_set_user_password(
            UserPoolId=pool_id, Username=self.email, Password=self.password, Permanent=True
        )
        return self.email

    def sign_in(self) -> str:
        result = self.cognito.admin_initiate_auth(
            UserPoolId=self.target.pool_id,
            ClientId=self.target.client_id,
            AuthFlow=SIGN_IN_FLOW,
            AuthParameters={"USERNAME": self.email, "PASSWORD": self.password},
        )
        if "AuthenticationResult" not in result:
            raise StepFailed(f"sign-in asked for {result.get('ChallengeName')} instead of giving tokens")
        self.token = result["AuthenticationResult"]["AccessToken"]
        return "access token"

    def start_session(self) -> str:
        self.session = self.call("POST", "/sessions", (200, 201))["session_id"]
        return f"session {self.session}"

    def start_round(self) -> str:
        body = {"category": self.category, "count": self.count}
        self.round = self.call("POST", f"/sessions/{self.session}/rounds", (200, 202), body)["round"]
        return f"round {self.round}"

    def round_ready(self) -> str:
        deadline = time.monotonic() + self.round_seconds
        path = f"/sessions/{self.session}/rounds/{self.round}"
        while True:
            status = self.call("GET", path, (200,))
            if status.get("status") == "SUCCEEDED":
                break
            if status.get("status") != "RUNNING":
                raise StepFailed(f"the round ended {status.get('status')}: {json.dumps(status)[:300]}")
            if time.monotonic() > deadline:
                raise StepFailed(f"the round was still RUNNING after {self.round_seconds:g} s")
            time.sleep(self.poll_seconds)
        self.questions = self.call("GET", f"/sessions/{self.session}/questions", (200,))["questions"]
        if not self.questions:
            raise StepFailed("the round succeeded with no questions")
        return f"{len(self.questions)} questions"

    def answer_all(self) -> str:
        for question in self.questions:
            body = {"question_id": question["question_id"], "user_answer": answer_for(question)}
            self.call("POST", f"/sessions/{self.session}/answers", (200,), body)
        return f"{len(self.questions)} answers graded"

    def level(self) -> str:
        abilities = self.call("GET", "/learners/me/ability", (200,)).get("abilities") or []
        if not abilities:
            raise StepFailed("no level after answering")
        return "; ".join(f"{ability['category']}: {ability['level']}" for ability in abilities)

    def history(self) -> str:
        attempts = self.call("GET", "/learners/me/attempts", (200,)).get("attempts") or []
        if len(attempts) < len(self.questions):
            raise StepFailed(f"{len(attempts)} attempts in the history, {len(self.questions)} answered")
        return f"{len(attempts)} attempts"

    def remove_user(self) -> str:
        self.cognito.admin_delete_user(UserPoolId=self.target.pool_id, Username=self.email)
        return self.email


def run(target: Target, **options: Any) -> Report:
    """The smoke check against `target` (options: SmokeCheck's); every step is said as it ends."""
    return SmokeCheck(target, **options).run()


def target_of_stack(stack: str) -> Target:
    values = cli.stack_outputs(stack, OUTPUTS)
    return Target(values["url"], values["pool_id"], values["client_id"])


def target_of_local(url: str) -> Target:
    """The local stack `python -m slea_local serve` (make serve) runs at `url`: its outputs and its
    user pool are served under /_local/ (the pool lives in the server's memory)."""
    base = url.rstrip("/")
    request = urllib.request.Request(f"{base}/_local/stack")  # noqa: S310 - a local http URL
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            outputs = json.loads(response.read())
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
        message = f"no local stack answers at {base} ({error}): start it with make serve"
        raise cli.CommandError(message, cli.EXIT_CONFIG) from error
    if "UserPoolId" not in outputs:
        raise cli.CommandError(f"the local stack at {base} has no user pool of its own", cli.EXIT_CONFIG)
    return Target(base, outputs["UserPoolId"], outputs["UserPoolClientId"], f"{base}/_local/cognito-idp")


def main(argv: list[str] | None = None) -> int:
    parser = cli.argument_parser("python -m ops.smoke", __doc__, "\nThe stack's")
    cli.add_aws_options(parser)
    parser.add_argument("--url", help="the HTTP API's base URL, instead of the stack's output HttpApiUrl")
    parser.add_argument("--user-pool-id", help="with --url: the user pool")
    parser.add_argument("--client-id", help="with --url: the app client the API's authorizer accepts")
    parser.add_argument(
        "--local",
        nargs="?",
        const=LOCAL_URL,
        metavar="URL",
        help=f"the local stack of make serve (python -m slea_local serve) at URL (default {LOCAL_URL})",
    )
    parser.add_argument("--category", default="technical", help="the round's category (default: technical)")
    parser.add_argument("--count", type=int, default=3, help="questions in the round (default: 3)")
    parser.add_argument(
        "--round-seconds", type=float, default=300.0, help="how long to wait for the round (default: 300)"
    )
    args = parser.parse_args(argv)

    def command() -> int:
        cli.use_region(args.region)
        given = (args.url, args.user_pool_id, args.client_id)
        if args.local:
            if any(given) or args.stack:
                raise cli.CommandError("--local names the target alone (no --stack or --url)", cli.EXIT_CONFIG)
            target = target_of_local(args.local)
        elif any(given):
            if not all(given):
                raise cli.CommandError("--url needs --user-pool-id and --client-id too", cli.EXIT_CONFIG)
            target = Target(args.url, args.user_pool_id, args.client_id)
        else:
            stack = cli.resolve_stack(args.stack)
            if not stack:
                raise cli.CommandError("no stack: pass --stack, set SLEA_STACK, or pass --url", cli.EXIT_CONFIG)
            target = target_of_stack(stack)
        report = run(target, category=args.category, count=args.count, round_seconds=args.round_seconds)
        return 0 if report.passed else cli.EXIT_FAILED

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
