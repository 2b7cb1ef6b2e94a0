"""Shared fixtures: a local AWS built from template.yaml (moto), the demo seed, the functions of
template.yaml invoked in-process, and fault injection. No test reaches the network."""

import base64
import binascii
import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from moto.dynamodb.models import dynamodb_backends

from slea_local import REPO_ROOT
from slea_local.cloud import ACCOUNT, REGION, LocalCloud, prepare_process_environment
from slea_local.faults import InjectedFaults
from slea_local.runtime import LocalRuntime
from tests import seed_copies

prepare_process_environment()

# Records the AWS operations of every function and checks them against template.yaml's Policies.
pytest_plugins = ["tests.aws_operations"]

DEMO_SEED_PATH = REPO_ROOT / "data" / "demo_seed.json"
TESTS = REPO_ROOT / "tests"
# Markers by folder: what the layout promises (docs/testing.md). Everything under these needs the
# local AWS; tests/browser drives chromium; tests/unit/bench runs the benchmarks' small versions.
AWS_FOLDERS = [TESTS / "integration", TESTS / "infrastructure", TESTS / "security", TESTS / "browser"]
SLOW_FOLDERS = [TESTS / "unit" / "bench"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Markers by what a test needs, so that the fast part runs alone (`make unit`): `aws` for a
    test that builds the local AWS (under the folders above, or through the `cloud` fixture,
    itself or through another), `browser` for one that drives chromium, `slow` under the slow
    folders. A module elsewhere that builds moto some other way, or is slow, marks itself."""
    for item in items:
        path = item.path
        if "cloud" in getattr(item, "fixturenames", ()) or any(path.is_relative_to(f) for f in AWS_FOLDERS):
            item.add_marker(pytest.mark.aws)
        if path.is_relative_to(TESTS / "browser"):
            item.add_marker(pytest.mark.browser)
        if any(path.is_relative_to(folder) for folder in SLOW_FOLDERS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a connection off this machine fails the test."""
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost") and not str(host).startswith("/"):
            raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)


@pytest.fixture
def cloud() -> Iterator[LocalCloud]:
    with LocalCloud() as local_cloud:
        yield local_cloud


@pytest.fixture
def runtime(cloud: LocalCloud) -> LocalRuntime:
    return LocalRuntime(cloud)


@pytest.fixture(scope="session")
def demo_seed() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DEMO_SEED_PATH.read_text(encoding="utf-8"))
    return document


@pytest.fixture
def load(cloud: LocalCloud) -> Any:
    """load(doc): load a seed document into the local tables with the functions' table names."""
    from ops.seed import load_seed

    def _load(document: dict[str, Any]) -> dict[str, int]:
        with cloud.environment(cloud.seed_environment()):
            return load_seed(document)

    return _load


def _moto_tables(cloud: LocalCloud) -> dict[str, Any]:
    backend = dynamodb_backends[ACCOUNT][REGION]
    return {
        logical_id: backend.get_table(cloud.physical_names[logical_id])
        for logical_id in cloud.template.of_type("AWS::DynamoDB::Table")
    }


@pytest.fixture
def seeded(load: Any, demo_seed: dict[str, Any], runtime: LocalRuntime, cloud: LocalCloud) -> LocalRuntime:
    """The demo seed in the local tables: loaded through ops.seed by the first `seeded` test of
    each process (tests/integration/test_seed.py tests the loading itself); every later test gets
    the tables as loaded (tests/seed_copies.py), as moto restores a table from a backup. Loading
    it again cost each test about 0.4 s. What the test's earlier fixtures wrote stays in its tables
    and is never handed to another test."""
    seed_copies.seed(_moto_tables(cloud), lambda: load(demo_seed))
    return runtime


@pytest.fixture
def faults(cloud: LocalCloud) -> InjectedFaults:
    return InjectedFaults()


@pytest.fixture
def step_functions(seeded: LocalRuntime) -> Iterator[Any]:
    """The state machines of template.yaml on moto's interpreter, tasks run in-process."""
    from slea_local.executions import LocalStepFunctions

    with LocalStepFunctions(seeded) as local:
        yield local


@pytest.fixture
def http(step_functions: Any) -> Any:
    """call(method, path, body=None, token=None) -> (status, headers, json) against the API function."""
    from slea_local.http import HttpApiAdapter, call

    adapter = HttpApiAdapter(step_functions.runtime)
    return lambda method, path, body=None, token=None: call(adapter, method, path, body, token)


@pytest.fixture
def user_pool(step_functions: Any) -> Any:
    """The stack's own user pool in the local cloud (slea_local.identity.LocalUserPool): one for a
    test, shared by `signed_http` and `signed_mcp` (its stand-in user is created once)."""
    from slea_local.identity import LocalUserPool

    return LocalUserPool(step_functions.runtime.cloud)


def _pool_signed(user_pool: Any) -> Any:
    """token -> the token the test meant, signed by the local pool: a subject, or an unsigned JWT's
    claims (`alg: none`), becomes a pool-signed token with the same claims (one per claims, kept);
    a signed token (the pool's, or a forgery) and one the development mode would refuse (none, a
    malformed one) are passed on as they are."""
    from slea_local.http import claims_from

    signed: dict[str, str] = {}

    def sign(token: str | None) -> str | None:
        if token is not None and token.count(".") == 2 and _jwt_algorithm(token) != "none":
            return token
        claims = claims_from(f"Bearer {token}") if token is not None else None
        if not claims:
            return token
        key = json.dumps(claims, sort_keys=True)
        if key not in signed:
            signed[key] = user_pool.token_for(claims)
        return signed[key]

    return sign


def _jwt_algorithm(token: str) -> Any:
    """The `alg` of a JWT's header (None when it is not readable as one)."""
    header = token.split(".", maxsplit=1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (binascii.Error, ValueError):
        return None
    return decoded.get("alg") if isinstance(decoded, dict) else None


@pytest.fixture
def signed_http(step_functions: Any, user_pool: Any) -> Any:
    """`http` through the signed-token path (API Gateway's checks, slea_local/identity.py): each
    token a test passes (a subject, or an unsigned JWT's claims) is signed by the local user pool
    with the same claims first; one the development mode would refuse is sent as it is. A test
    file of authorisation overrides `http` with it (tests/architecture/test_signed_authorisation.py
    keeps it so)."""
    from slea_local.http import HttpApiAdapter, call

    adapter = HttpApiAdapter(step_functions.runtime, signed_tokens=True)
    sign = _pool_signed(user_pool)

    def request(method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        return call(adapter, method, path, body, sign(token))

    return request


# What an MCP client sends with each POST /mcp (the streamable HTTP transport's headers).
MCP_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18"}


@pytest.fixture
def signed_mcp(step_functions: Any, user_pool: Any) -> Any:
    """mcp(message, token=None) -> (status, headers, json): one JSON-RPC message to POST /mcp of
    the signed-token path, as an MCP client sends it; tokens as `signed_http` takes them."""
    from slea_local.http import HttpApiAdapter, call

    adapter = HttpApiAdapter(step_functions.runtime, signed_tokens=True)
    sign = _pool_signed(user_pool)

    def as_a_client(environ: dict[str, Any], start_response: Any) -> Any:
        return adapter({**environ, **MCP_HEADERS}, start_response)

    def request(message: dict[str, Any], token: str | None = None) -> Any:
        return call(as_a_client, "POST", "/mcp", message, sign(token))  # type: ignore[arg-type]

    return request


@pytest.fixture
def unlimited_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-user rate limits out of the way, for tests that answer a whole round at machine speed
    (tests/security/test_limits.py tests the limits themselves)."""
    from slea.security import rate_limits

    monkeypatch.setattr(rate_limits, "limit", lambda action: rate_limits.Limit(burst=10_000, interval_seconds=0.001))


@pytest.fixture
def repeatable(monkeypatch: pytest.MonkeyPatch, step_functions: Any) -> Any:
    """The same run every time (tests/repeatable.py): the ids the functions make at random come
    from a sequence, and their clock stands still but for the steps `repeatable.requests(http)`
    takes. For a test that compares measured figures (two learners' abilities), so it compares the
    same runs each time; the id secret it fixes itself (tests/security/test_question_ids.py)."""
    from slea.platform import clock
    from tests.repeatable import Repeatable

    run = Repeatable(step_functions)
    monkeypatch.setattr(uuid, "uuid4", run.uuid4)
    monkeypatch.setattr(clock, "now", run.now)
    return run


@pytest.fixture
def standing_clock(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The functions' clock (slea.platform.clock.now) standing still until the test moves it
    (tests/repeatable.py): for a test whose outcome would otherwise depend on how long its
    requests take, such as where a rate limit's burst ends."""
    from slea.platform import clock
    from tests.repeatable import StandingClock

    standing = StandingClock()
    monkeypatch.setattr(clock, "now", standing.now)
    return standing


@pytest.fixture
def midday(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The functions' clock running from noon (UTC) of today (tests/repeatable.py): a test that
    reads the day (the daily round quota, an item's draws of the day) through it agrees with the
    functions on which day it is, even when the test runs across midnight."""
    from slea.platform import clock
    from tests.repeatable import MiddayClock

    running = MiddayClock()
    monkeypatch.setattr(clock, "now", running.now)
    return running
