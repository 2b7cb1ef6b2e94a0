"""The MCP server (functions/mcp): the SDK's in-memory client for every tool (list, call, bad
input, authorization), the official streamable HTTP client through the local server, and the
Lambda pitfalls (warm invocations, the Host check, 401, 405, deadlines). The attacks of a hostile
learner's agent are in tests/security/test_mcp_privilege.py."""

import contextvars
import functools
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client

from slea.security.roles import Caller
from slea_local.http import http_api_event, serve_in_background
from slea_local.runtime import LocalRuntime
from tests.integration.test_api import ALICE, BOB, answer_key
from tests.integration.test_review_api import token
from tests.integration.test_save_generated_question import question

DAVE = "3d6f0a1b-8c2e-4f7a-9b5d-1e2f3a4b5c6d"  # an author
AUTHOR_CLAIMS = {"sub": DAVE, "cognito:groups": ["authors"]}


def _run(async_function: Any) -> Any:
    """anyio.run on a thread of its own: a session-wide fixture (Playwright's sync API, in
    tests/browser) may keep an event loop running on the main thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(contextvars.copy_context().run, anyio.run, async_function).result()


AUTHORING_TOOLS = {
    "search_question_templates",
    "get_difficulty_keywords",
    "validate_question_quality",
    "save_generated_question",
}
LEARNER_TOOLS = {
    "get_user_profile",
    "score_and_explain",
    "skip_question",
    "start_round",
    "get_round",
    "get_ability",
    "start_placement",
    "next_placement_question",
}
SPEC_TOOLS = AUTHORING_TOOLS | {"get_user_profile", "score_and_explain"}
API_HOST = "abc123xyz.execute-api.us-east-1.amazonaws.com"


@pytest.fixture
def mcp_module(step_functions: Any) -> Any:
    return step_functions.runtime.module("McpFunction")


def caller(user: str, *groups: str) -> Caller | None:
    """The caller a token with this subject and these groups makes (slea.security.roles decides)."""
    return Caller.from_claims({"sub": user, "cognito:groups": list(groups)})


def in_memory_call(
    runtime: LocalRuntime, tool: str, arguments: dict[str, Any], user: str = ALICE, groups: tuple[str, ...] = ()
) -> tuple[bool, Any]:
    """One tools/call through the in-memory client as `user` in `groups`, with McpFunction's
    environment (table names) as in Lambda: (is_error, data)."""

    async def run() -> Any:
        async with Client(runtime.module("McpFunction").build_server(caller(user, *groups))) as client:
            return await client.call_tool(tool, arguments)

    with runtime.as_function("McpFunction"):
        result = _run(run)
    return result.is_error, json.loads(result.content[0].text)


@pytest.fixture
def call(step_functions: Any) -> Any:
    """call(tool, arguments, user=ALICE, groups=()) -> (is_error, data): in_memory_call."""
    return functools.partial(in_memory_call, step_functions.runtime)


@pytest.fixture
def author_call(step_functions: Any) -> Any:
    """call() as DAVE, in the authors group."""
    return lambda tool, arguments: in_memory_call(step_functions.runtime, tool, arguments, DAVE, ("authors",))


def signed_tool_call(
    mcp: Any, tool: str, arguments: dict[str, Any], user: str = ALICE, groups: tuple[str, ...] = ()
) -> tuple[bool, Any]:
    """One tools/call as `user` in `groups` through POST /mcp on the signed-token path (`mcp`: the
    `signed_mcp` fixture; the local user pool signs the token, API Gateway's checks pass it, the
    role comes from its groups): (is_error, data), as in_memory_call answers."""
    claims = {"cognito:groups": list(groups)} if groups else {}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    status, _, answer = mcp(message, token(user, **claims))
    assert status == 200, answer
    result = answer["result"]
    return bool(result.get("isError")), json.loads(result["content"][0]["text"])


@pytest.fixture
def signed_call(signed_mcp: Any) -> Any:
    """call() with a token of the local user pool, over POST /mcp: for the checks of who may call."""
    return functools.partial(signed_tool_call, signed_mcp)


@pytest.fixture
def signed_author_call(signed_mcp: Any) -> Any:
    """signed_call() as DAVE, in the authors group."""
    return lambda tool, arguments: signed_tool_call(signed_mcp, tool, arguments, DAVE, ("authors",))


@pytest.fixture
def http(signed_http: Any) -> Any:
    """The HTTP API of this file's tests through the signed-token path (the local user pool signs
    each token): the sessions its refusals are about are made by the owners' own tokens."""
    return signed_http


def _session_of(http: Any, user: str) -> str:
    status, _, created = http("POST", "/sessions", None, user)
    assert status == 201, created
    return str(created["session_id"])


# ---------------------------------------------------------------- in-memory client
def _listed(mcp_module: Any, listing_caller: Caller | None) -> dict[str, Any]:
    async def run() -> Any:
        async with Client(mcp_module.build_server(listing_caller)) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in _run(run)}


def test_a_learner_is_offered_the_learner_tools_only(mcp_module):
    assert set(_listed(mcp_module, caller(ALICE))) == LEARNER_TOOLS
    assert set(_listed(mcp_module, caller(ALICE, "reviewers", "authors,x"))) == LEARNER_TOOLS
    assert _listed(mcp_module, None) == {}


def test_an_author_is_offered_the_six_spec_tools_and_the_round_tools_with_their_contracts_schemas(mcp_module):
    tools = _listed(mcp_module, caller(DAVE, "authors"))
    assert set(tools) == SPEC_TOOLS | LEARNER_TOOLS
    # A scope is the client's to ask for, not the user's role: it offers a learner's tools only.
    assert set(_listed(mcp_module, Caller.from_claims({"sub": DAVE, "scope": "openid slea/author"}))) == LEARNER_TOOLS
    from slea.contracts.keywords import GetKeywordsInput

    assert tools["get_difficulty_keywords"].input_schema == GetKeywordsInput.model_json_schema()
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.description
    assert "answer key" in tools["score_and_explain"].description
    assert "correct_answer" not in tools["score_and_explain"].input_schema["properties"]


def test_get_difficulty_keywords_answers_the_spec_shape(author_call):
    is_error, keywords = author_call("get_difficulty_keywords", {"difficulty": 5, "category": "technical"})
    assert not is_error
    assert set(keywords) == {"difficulty", "category", "keywords", "concepts", "example_questions"}
    assert keywords["difficulty"] == 5
    assert keywords["category"] == "technical"


def test_search_question_templates_and_validate_question_quality(author_call):
    is_error, templates = author_call(
        "search_question_templates", {"interests": ["AI"], "difficulty": 5, "category": "technical"}
    )
    assert not is_error
    assert isinstance(templates, list)
    is_error, verdict = author_call(
        "validate_question_quality",
        {
            "stem": "Which index type does a vector database use to find nearest neighbours quickly?",
            "question_type": "multiple_choice",
            "choices": ["HNSW", "B-tree", "Hash", "Bitmap"],
            "correct_answer": "HNSW",
        },
    )
    assert not is_error
    assert {"is_valid", "score", "rule_score", "final_score", "recommendation"} <= set(verdict)


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("get_user_profile", {}, "user_id"),
        ("get_user_profile", {"user_id": "not-a-uuid"}, "user_id"),
        ("search_question_templates", {"interests": ["AI"], "difficulty": 5}, "category"),
        ("get_difficulty_keywords", {"difficulty": "five", "category": "technical"}, "difficulty"),
        ("validate_question_quality", {"question_type": "multiple_choice"}, "stem"),
        ("save_generated_question", {"item_type": "true_false", "stem": "x"}, "round_id"),
        ("score_and_explain", {"session_id": "s1", "question_id": "q1"}, "user_answer"),
        ("start_round", {"category": "cooking"}, "category"),
        ("validate_question_quality", {"stem": "Is RAG retrieval?", "question_type": "true_false"}, "correct_answer"),
        ("get_round", {"session_id": "s1", "round": 3}, "round"),
        ("start_placement", {}, "category"),
        ("start_placement", {"category": "cooking"}, "category"),
        ("next_placement_question", {"session_id": "a/b"}, "session_id"),
    ],
)
def test_bad_input_is_a_tool_error_naming_the_field(author_call, tool, arguments, field):
    is_error, error = author_call(tool, arguments)
    assert is_error
    assert error["error_code"] == "VALIDATION_ERROR"
    assert error["error"].startswith(f"{field}:"), error


def test_an_unknown_tool_is_a_tool_error(call):
    is_error, error = call("drop_tables", {})
    assert is_error
    assert error["error_code"] == "UNKNOWN_TOOL"


def test_a_learner_reads_only_their_own_profile(signed_call):
    call = signed_call
    is_error, profile = call("get_user_profile", {"user_id": ALICE})
    assert not is_error
    assert profile["user_id"] == ALICE
    is_error, error = call("get_user_profile", {"user_id": BOB})
    assert is_error
    assert error["error_code"] == "FORBIDDEN"


def test_another_learners_session_is_refused_by_every_session_tool(signed_call, http):
    call = signed_call
    bobs = _session_of(http, BOB)
    refused = [
        call("get_round", {"session_id": bobs}),
        call("start_round", {"session_id": bobs, "category": "technical", "count": 1}),
        call("score_and_explain", {"session_id": bobs, "question_id": "q1", "user_answer": "A"}),
    ]
    assert [(is_error, error["error_code"]) for is_error, error in refused] == [(True, "FORBIDDEN")] * 3


def test_a_round_started_by_an_agent_then_graded_with_the_key_looked_up(call, step_functions, cloud):
    is_error, started = call(
        "start_round", {"category": "technical", "count": 2, "question_types": ["multiple_choice"]}
    )
    assert not is_error
    assert started["status"] == "RUNNING"
    session = started["session_id"]
    step_functions.wait_for_running()
    is_error, status = call("get_round", {"session_id": session, "round": 1})
    assert not is_error
    assert status["status"] == "SUCCEEDED"
    assert len(status["questions"]) == 2
    shown = json.dumps(status["questions"])
    assert "correct_key" not in shown
    assert "answer_schema" not in shown
    item = status["questions"][0]
    key = answer_key(cloud, item["question_id"])["correct_key"]
    is_error, graded = call(
        "score_and_explain", {"session_id": session, "question_id": item["question_id"], "user_answer": key}
    )
    assert not is_error
    assert graded["is_correct"] is True
    is_error, again = call(
        "score_and_explain", {"session_id": session, "question_id": item["question_id"], "user_answer": "other"}
    )
    assert is_error
    assert again["error_code"] == "ALREADY_ANSWERED"


def _placement_step(call: Any, step_functions: Any, session: str, user: str = ALICE) -> dict[str, Any]:
    """next_placement_question, waiting out the first fill of an empty bank (NO_QUESTION_YET)."""
    for _ in range(3):
        is_error, step = call("next_placement_question", {"session_id": session}, user)
        if not is_error:
            return dict(step)
        assert step["error_code"] == "NO_QUESTION_YET", step
        step_functions.wait_for_running()
    raise AssertionError("the bank was never filled")


def test_a_learner_completes_a_placement_test_over_mcp(call, http, step_functions, cloud, unlimited_rates):
    is_error, started = call("start_placement", {"category": "technical"})
    assert not is_error, started
    assert started["purpose"] == "placement"
    session = started["session_id"]
    step = _placement_step(call, step_functions, session)
    assert step["done"] is False
    assert step["progress"]["answered"] == 0
    assert "answer_schema" not in json.dumps(step)
    # The same question until it is answered, as POST /sessions/{id}/next.
    assert _placement_step(call, step_functions, session)["question"] == step["question"]
    asked = []
    while not step["done"]:
        item = step["question"]
        asked.append(item["question_id"])
        schema = answer_key(cloud, item["question_id"])
        key = schema.get("correct_key") or " ".join(schema.get("correct_keywords", []))
        arguments = {"session_id": session, "question_id": item["question_id"], "user_answer": key}
        is_error, graded = call("score_and_explain", arguments)
        assert not is_error, graded
        step = _placement_step(call, step_functions, session)
        assert len(asked) <= 25
    result = step["result"]
    assert result["items"] == len(asked) == len(set(asked))
    assert result["stopped_because"] in {"precise", "classified", "max_items", "no_items"}
    assert result["range_low"] < result["theta"] < result["range_high"]
    assert result["statement"].startswith(result["level"])
    # The HTTP API tells the same result for the same session: one implementation.
    status, _, same = http("POST", f"/sessions/{session}/next", None, ALICE)
    assert (status, same) == (200, step)


def test_another_learners_placement_is_refused_over_mcp(signed_call, http, step_functions):
    call = signed_call
    status, _, created = http("POST", "/sessions", {"purpose": "placement", "category": "technical"}, BOB)
    assert status == 201, created
    is_error, error = call("next_placement_question", {"session_id": created["session_id"]})
    assert (is_error, error["error_code"]) == (True, "FORBIDDEN")
    # A practice session is not a placement.
    is_error, error = call("next_placement_question", {"session_id": _session_of(http, ALICE)})
    assert (is_error, error["error_code"]) == (True, "NOT_A_PLACEMENT")


def test_an_authors_item_is_kept_outside_every_session_and_queued_for_review(author_call, http, cloud):
    mine = _session_of(http, DAVE)
    round_id = f"{mine}_1_2026-11-23T10:00:00Z"
    is_error, saved = author_call("save_generated_question", question(round_id=round_id, validation_score=0.75))
    assert not is_error, saved
    assert set(saved) >= {"success", "question_id", "round_id", "saved_at"}
    assert saved["success"] is True
    assert saved["round_id"] == f"authored#{DAVE}_{round_id}"
    stored = _stored(cloud, saved["question_id"])
    assert stored["session_id"] == f"authored#{DAVE}"
    assert (stored["origin"], stored["authored_by"]) == ("author", DAVE)
    assert (stored["review_state"], stored["review_reasons"]) == ("open", {"authored"})
    assert http("GET", f"/sessions/{mine}/questions", None, DAVE)[2]["questions"] == []
    # The same save again is the same item (idempotent), not a second one.
    is_error, again = author_call("save_generated_question", question(round_id=round_id, validation_score=0.75))
    assert (is_error, again["question_id"]) == (False, saved["question_id"])


def test_a_failed_authored_write_is_an_error_to_retry_not_a_retry_queue_message(author_call, faults, cloud):
    with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
        is_error, error = author_call("save_generated_question", question())
    assert is_error
    assert error["error_code"] == "SERVICE_UNAVAILABLE"
    assert _stored_all(cloud) == {}


def _stored_all(cloud: Any) -> dict[str, Any]:
    import boto3

    items = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).scan()["Items"]
    return {item["question_id"]: item for item in items if "#" not in item["question_id"]}  # not reference prints


def _stored(cloud: Any, question_id: str) -> dict[str, Any]:
    return _stored_all(cloud)[question_id]


# ---------------------------------------------------------------- over HTTP, as an agent would
@pytest.fixture
def local_server(step_functions: Any) -> Iterator[str]:
    """`python -m slea_local serve --signed-tokens`'s app on an ephemeral 127.0.0.1 port: only
    tokens the local user pool signed pass."""
    with serve_in_background(step_functions.runtime, signed_tokens=True) as url:
        yield f"{url}/mcp"


def test_the_official_client_over_streamable_http_with_a_bearer_token(local_server, user_pool):
    author = user_pool.token_for(AUTHOR_CLAIMS)

    async def run() -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {author}"}, timeout=30) as http_client,
            Client(_transport(local_server, http_client)) as client,
        ):
            tools = (await client.list_tools()).tools
            keywords = await client.call_tool("get_difficulty_keywords", {"difficulty": 3, "category": "business"})
            bad = await client.call_tool("get_difficulty_keywords", {"difficulty": 0, "category": "business"})
            other = await client.call_tool("get_user_profile", {"user_id": BOB})
            return tools, keywords, bad, other

    tools, keywords, bad, other = _run(run)
    assert {tool.name for tool in tools} == SPEC_TOOLS | LEARNER_TOOLS
    assert not keywords.is_error
    assert json.loads(keywords.content[0].text)["category"] == "business"
    assert bad.is_error
    assert json.loads(bad.content[0].text)["error"].startswith("difficulty:")
    assert other.is_error
    assert json.loads(other.content[0].text)["error_code"] == "FORBIDDEN"


def _transport(url: str, http_client: httpx2.AsyncClient) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url, http_client=http_client)


def test_without_a_token_401_with_the_bearer_challenge(local_server):
    response = httpx2.post(
        local_server,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


# ---------------------------------------------------------------- the Lambda handler's pitfalls
def _event(
    body: dict[str, Any] | None,
    host: str = API_HOST,
    sub: str | None = ALICE,
    claims: dict[str, Any] | None = None,
    method: str = "POST",
) -> dict[str, Any]:
    """The event API Gateway hands McpFunction; `claims` replaces the bare subject's."""
    headers = {
        "host": host,
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    return http_api_event(
        method,
        "/mcp",
        "",
        headers,
        body=json.dumps(body) if body is not None else "",
        claims=claims or ({"sub": sub} if sub else None),
        route_key=f"{method} /mcp",
    )


LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def tool_call(
    runtime: LocalRuntime,
    tool: str,
    arguments: dict[str, Any],
    user: str = ALICE,
    claims: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One tools/call as API Gateway hands it to McpFunction: the JSON-RPC result."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    answer = runtime.invoke("McpFunction", _event(body, sub=user, claims=claims))
    assert answer["statusCode"] == 200, answer
    result: dict[str, Any] = json.loads(answer["body"])["result"]
    return result


def test_warm_invocations_answer_like_the_first(step_functions):
    """One execution environment answers invocation after invocation (the SDK's session manager,
    which this handler once ran, refused a second start)."""
    runtime: LocalRuntime = step_functions.runtime
    answers = [runtime.invoke("McpFunction", _event(LIST, claims=AUTHOR_CLAIMS)) for _ in range(3)]
    assert [answer["statusCode"] for answer in answers] == [200, 200, 200]
    assert all(
        len(json.loads(answer["body"])["result"]["tools"]) == len(SPEC_TOOLS | LEARNER_TOOLS) for answer in answers
    )
    called = runtime.invoke(
        "McpFunction",
        _event(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "get_difficulty_keywords", "arguments": {"difficulty": 7, "category": "general"}},
            },
            claims=AUTHOR_CLAIMS,
        ),
    )
    assert json.loads(json.loads(called["body"])["result"]["content"][0]["text"])["difficulty"] == 7


def test_api_gateways_host_is_answered(step_functions):
    """The SDK's default for an app built for 127.0.0.1 answered 421 to API Gateway's host; this
    handler has no Host check (API Gateway confines the Host)."""
    answer = step_functions.runtime.invoke("McpFunction", _event(LIST, host=API_HOST))
    assert answer["statusCode"] == 200


def test_an_event_without_a_subject_is_401_with_the_challenge(step_functions):
    answer = step_functions.runtime.invoke("McpFunction", _event(LIST, sub=None))
    assert answer["statusCode"] == 401
    assert answer["headers"]["WWW-Authenticate"].startswith("Bearer")
    assert json.loads(answer["body"])["error_code"] == "UNAUTHORIZED"


# ---------------------------------------------------------------- stdio, for desktop agents
@pytest.mark.parametrize(
    ("arguments", "groups", "offered"),
    [
        (["--user", ALICE], None, LEARNER_TOOLS),
        (["--user", DAVE, "--groups", "authors"], None, SPEC_TOOLS | LEARNER_TOOLS),
        (["--user", DAVE], "authors", SPEC_TOOLS | LEARNER_TOOLS),  # SLEA_GROUPS
    ],
    ids=["learner", "author", "author-from-environment"],
)
def test_mcp_stdio_serves_each_caller_its_tools_through_the_official_stdio_client(arguments, groups, offered):
    import sys

    from mcp import StdioServerParameters

    from slea_local import REPO_ROOT

    user = arguments[1]
    environment = {"PYTHONPATH": f"{REPO_ROOT / 'layers' / 'slea'}:{REPO_ROOT}", "PATH": "/usr/bin:/bin"}
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "slea_local", "mcp-stdio", *arguments],
        cwd=str(REPO_ROOT),
        env={**environment, **({"SLEA_GROUPS": groups} if groups else {})},
    )

    async def run() -> Any:
        async with Client(parameters) as client:
            tools = (await client.list_tools()).tools
            profile = await client.call_tool("get_user_profile", {"user_id": user})
            other = await client.call_tool("get_user_profile", {"user_id": BOB})
            keywords = await client.call_tool("get_difficulty_keywords", {"difficulty": 3, "category": "business"})
            return tools, profile, other, keywords

    tools, profile, other, keywords = _run(run)
    assert {tool.name for tool in tools} == offered
    assert json.loads(profile.content[0].text)["user_id"] == user
    assert other.is_error
    assert keywords.is_error is ("get_difficulty_keywords" not in offered)


def test_the_handler_answers_when_its_caller_runs_an_event_loop(step_functions):
    """Called from async code (an event loop already running on the thread), the handler runs its
    own loop on another thread instead of failing."""

    async def inside_a_loop() -> Any:
        return step_functions.runtime.invoke("McpFunction", _event(LIST))

    assert _run(inside_a_loop)["statusCode"] == 200


# ---------------------------------------------------------------- bounds: 405, deadlines
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_anything_but_post_is_405_at_once_with_allow_post(step_functions, mcp_module, method):
    """No SSE stream here: the SDK would hold a GET open until the function timed out. (The
    function is loaded first, by `mcp_module`: the bound is on the request alone, not on how long
    the machine takes to import the function.)"""
    event = _event(None, method=method)
    event["headers"]["accept"] = "text/event-stream"
    started = time.monotonic()
    answer = step_functions.runtime.invoke("McpFunction", event)
    assert time.monotonic() - started < 5  # a hang guard, not a performance test
    assert answer["statusCode"] == 405
    assert answer["headers"]["allow"] == "POST"
    error = json.loads(answer["body"])
    assert error["error_code"] == "METHOD_NOT_ALLOWED"
    assert "POST" in error["error"]


HANG_SECONDS = 60  # a hanging tool comes back after this at most: a call that waits for it fails, not hangs


@pytest.fixture
def hanging_tool(mcp_module: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """get_user_profile hangs (a model or storage call that does not come back) until the test
    is over, HANG_SECONDS at most; `entered` is set when it starts, `returned` when it comes back
    (long after its caller was answered: the result goes nowhere). A call answered before
    `returned` was answered at its deadline, whatever the machine's speed."""
    import dataclasses
    import threading

    release = threading.Event()
    hanging = SimpleNamespace(entered=threading.Event(), returned=threading.Event())

    def hang(caller: Caller, request: Any) -> list[Any]:
        hanging.entered.set()
        release.wait(HANG_SECONDS)
        hanging.returned.set()
        return []

    tool = dataclasses.replace(mcp_module.TOOLS_BY_NAME["get_user_profile"], run=hang)
    monkeypatch.setitem(mcp_module.TOOLS_BY_NAME, "get_user_profile", tool)
    yield hanging
    release.set()


def test_a_tool_call_past_its_deadline_is_a_timeout_tool_error(step_functions, mcp_module, monkeypatch, hanging_tool):
    monkeypatch.setattr(mcp_module, "TOOL_SECONDS", 1.5)  # the tool itself: 1.5 - RESPONSE_SECONDS
    result = tool_call(step_functions.runtime, "get_user_profile", {"user_id": ALICE})
    assert hanging_tool.entered.is_set()
    assert not hanging_tool.returned.is_set()  # answered at the deadline, not when the tool came back
    assert result["isError"]
    error = json.loads(result["content"][0]["text"])
    assert error["error_code"] == "TIMEOUT"
    assert error["error"].startswith("get_user_profile")


def _profile_call_with(step_functions: Any, mcp_module: Any, timeout_seconds: int) -> dict[str, Any]:
    """A tools/call of get_user_profile to the MCP function's handler, in an invocation of
    `timeout_seconds`: its answer."""
    from slea_local.runtime import LambdaContext

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_user_profile"}}
    body["params"]["arguments"] = {"user_id": ALICE}
    runtime: LocalRuntime = step_functions.runtime
    with runtime.cloud.environment(runtime.cloud.environment_of("McpFunction")):
        answer: dict[str, Any] = mcp_module.lambda_handler(
            _event(body), LambdaContext("McpFunction", timeout_seconds=timeout_seconds)
        )
    return answer


def test_a_tool_call_never_outlives_the_function(step_functions, mcp_module, monkeypatch, hanging_tool):
    """With less time left in the invocation than TOOL_SECONDS, the function's end decides: 3 s
    left, 1 s for the answer and 1 s for the tool, while TOOL_SECONDS would wait longer than the
    tool hangs (so only the function's end can answer the call before the tool comes back)."""
    monkeypatch.setattr(mcp_module, "TOOL_SECONDS", 10 * HANG_SECONDS)
    answer = _profile_call_with(step_functions, mcp_module, timeout_seconds=3)
    assert hanging_tool.entered.is_set()
    assert not hanging_tool.returned.is_set()  # answered at the function's end, not when the tool came back
    result = json.loads(answer["body"])["result"]
    assert json.loads(result["content"][0]["text"])["error_code"] == "TIMEOUT"


def test_a_request_with_no_time_left_is_answered_504_at_once(step_functions, mcp_module, hanging_tool):
    """The body arrives whole in the event; a request whose invocation has no time left for a
    tool call (under RESPONSE_SECONDS) runs nothing and is answered 504 at once."""
    answer = _profile_call_with(step_functions, mcp_module, timeout_seconds=1)
    assert not hanging_tool.entered.is_set()  # nothing ran: answered without waiting for anything
    assert answer["statusCode"] == 504
    assert json.loads(answer["body"])["error_code"] == "TIMEOUT"
