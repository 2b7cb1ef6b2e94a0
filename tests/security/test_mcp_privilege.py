"""Least privilege for agents and the MCP endpoint's bounds, tried as a hostile learner's
agent would: through POST /mcp (JSON-RPC as a client sends it, and the official HTTP client
through the local server) and the HTTP API, every request with a token the local user pool
signed and checked as API Gateway's authorizer checks it, roles only from its groups.

What was measured before: a learner's agent read the concept records items are written from
(get_difficulty_keywords: 11 of 11 MC/TF keys), templates with their keys, and saved self-keyed
items into its own graded round (round score 0 -> 77); a look-alike group ("reviewers,x") counted
as the group. (`GET /mcp` answering at once is in tests/security/test_local_server.py.)"""

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client

from slea_local.http import serve_in_background
from tests.integration.test_api import ALICE, BOB, own, start, wait_for_questions
from tests.integration.test_api import sessions_table as _sessions_table  # noqa: F401 - autouse fixture
from tests.integration.test_mcp import (
    AUTHORING_TOOLS,
    DAVE,
    LEARNER_TOOLS,
    LIST,
    _run,
    _transport,
    signed_tool_call,
)
from tests.integration.test_review_api import REVIEWER, token
from tests.integration.test_save_generated_question import question

ROUND_AT = "1_2026-11-23T10:00:00Z"


@pytest.fixture
def http(signed_http: Any) -> Any:
    """The HTTP API through the signed-token path: the local user pool signs each token."""
    return signed_http


@pytest.fixture
def call(signed_mcp: Any) -> Any:
    """call(tool, arguments, user=ALICE, groups=()): one tools/call of a learner's agent, through
    POST /mcp with a token the local user pool signed."""
    return lambda tool, arguments, user=ALICE, groups=(): signed_tool_call(signed_mcp, tool, arguments, user, groups)


@pytest.fixture
def author_call(signed_mcp: Any) -> Any:
    return lambda tool, arguments: signed_tool_call(signed_mcp, tool, arguments, DAVE, ("authors",))


@pytest.fixture
def local_server(step_functions: Any) -> Iterator[str]:
    """/mcp of the local server with signed tokens only (the local user pool's, checked as API
    Gateway's authorizer does): sign a test's claims with `LocalUserPool.token_for`."""
    with serve_in_background(step_functions.runtime, signed_tokens=True) as url:
        yield f"{url}/mcp"


def valid_arguments(tool: str, session: str = "s1") -> dict[str, Any]:
    """Arguments each authoring tool accepts: a refusal is about the caller, not the input."""
    return {
        "search_question_templates": {"interests": ["AI"], "difficulty": 5, "category": "technical"},
        "get_difficulty_keywords": {"difficulty": 5, "category": "technical"},
        "validate_question_quality": {
            "stem": "Which index type does a vector database use to find nearest neighbours quickly?",
            "question_type": "multiple_choice",
            "choices": ["HNSW", "B-tree", "Hash", "Bitmap"],
            "correct_answer": "HNSW",
        },
        "save_generated_question": question(round_id=f"{session}_{ROUND_AT}"),
    }[tool]


def refusal(tool: str) -> str:
    return f"{tool} is an authoring tool: it needs the 'authors' group"


def _session_of(http: Any, user: str) -> str:
    status, _, created = http("POST", "/sessions", None, user)
    assert status == 201, created
    return str(created["session_id"])


# ---------------------------------------------------------------- no answer material for learners
@pytest.mark.parametrize("tool", sorted(AUTHORING_TOOLS))
def test_a_learners_agent_is_refused_each_authoring_tool_and_told_why(call, author_call, http, tool):
    session = _session_of(http, ALICE)
    for arguments in (valid_arguments(tool, session), {}):  # refused before its input is read
        is_error, error = call(tool, arguments)
        assert is_error
        assert (error["error_code"], error["error"]) == ("FORBIDDEN", refusal(tool))
    # The same call from an author's agent is served.
    is_error, served = author_call(tool, valid_arguments(tool, _session_of(http, DAVE)))
    assert not is_error, served


def test_over_http_a_learner_is_offered_no_authoring_tool_and_gets_no_concept_record(local_server, user_pool):
    """The official client with a learner's bearer token, through the local server: tokens the
    local user pool signed, the roles only from their groups."""
    pool = user_pool

    async def session(bearer: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=30) as http_client,
            Client(_transport(local_server, http_client)) as client,
        ):
            tools = {tool.name for tool in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, arguments) for name, arguments in calls]

    calls = [(tool, valid_arguments(tool)) for tool in ("get_difficulty_keywords", "search_question_templates")]
    author = pool.token_for({"sub": DAVE, "cognito:groups": ["authors"]})
    authors_tools, (records, _) = _run(lambda: session(author, calls))
    learners_tools, refused = _run(lambda: session(pool.token_for({"sub": ALICE}), calls))
    assert authors_tools == AUTHORING_TOOLS | LEARNER_TOOLS
    assert learners_tools == LEARNER_TOOLS
    assert [json.loads(result.content[0].text)["error_code"] for result in refused] == ["FORBIDDEN"] * len(calls)
    assert all(result.is_error and result.structured_content is None for result in refused)
    concepts = json.loads(records.content[0].text)["concepts"]
    assert concepts  # what an author reads...
    seen_by_learner = " ".join(result.content[0].text for result in refused)
    for concept in concepts:  # ...and a learner never does
        assert concept["definition"] not in seen_by_learner
        assert not any(point in seen_by_learner for point in concept["key_points"])


@pytest.mark.parametrize(
    "claims",
    [
        {"cognito:groups": ["authors,x"]},
        {"cognito:groups": ["xauthors"]},
        {"cognito:groups": ["authorsx"]},
        {"cognito:groups": ["Authors"]},
        {"cognito:groups": ["author"]},
        {"cognito:groups": ["reviewers"]},
        {"scope": "openid slea/author,x"},
        {"scope": "openid slea/authors"},
        {"scope": "openid slea/author"},  # a scope is the client's, never a user's role
        {"scope": "openid email profile slea/author slea/review"},
    ],
    ids=json.dumps,
)
def test_a_group_or_scope_that_only_looks_like_the_author_role_is_not_it(signed_mcp, claims):
    status, _, answer = signed_mcp(LIST, token(ALICE, **claims))  # the pool signs these claims
    assert status == 200, answer
    assert {tool["name"] for tool in answer["result"]["tools"]} == LEARNER_TOOLS


@pytest.mark.parametrize("group", ["reviewers,x", "reviewersx", "xreviewers", "reviewers,authors"])
def test_a_group_that_only_looks_like_reviewers_is_not_the_reviewer_role(http, group):
    status, _, body = http("GET", "/review/queue", None, token(ALICE, **{"cognito:groups": [group]}))
    assert (status, body["error_code"]) == (403, "FORBIDDEN")


# ---------------------------------------------------------------- no self-keyed items in a graded round
def test_a_learner_cannot_inject_self_keyed_items_into_its_own_round(call, http):
    session = _session_of(http, ALICE)
    for number in range(10):
        injected = question(
            round_id=f"{session}_{ROUND_AT}", stem=f"Is {number} the answer?", correct_key="A) Retrieval"
        )
        is_error, error = call("save_generated_question", injected)
        assert (is_error, error["error_code"]) == (True, "FORBIDDEN")
    assert http("GET", f"/sessions/{session}/questions", None, ALICE)[2]["questions"] == []


def test_an_authors_item_is_in_no_session_and_answerable_through_none(author_call, call, http, step_functions):
    """An author who is also a learner files an item under their own graded round: it stays out of
    that round on every read path (questions, round status, answers, reports, summary), cannot be
    reached through its `authored#...` partition, and waits for a reviewer."""
    assert start(http, session="daves", user=DAVE, count=2)[0] == 202
    shown = wait_for_questions(http, session="daves", user=DAVE, count=2)
    step_functions.wait_for_running()
    is_error, saved = author_call("save_generated_question", question(round_id=f"daves_{ROUND_AT}"))
    assert not is_error, saved
    item = saved["question_id"]
    answer = {"question_id": item, "user_answer": "C"}

    listed = http("GET", "/sessions/daves/questions", None, DAVE)[2]["questions"]
    assert [q["question_id"] for q in listed] == [q["question_id"] for q in shown]
    assert item not in http("GET", "/sessions/daves/rounds/1", None, DAVE)[2]["question_ids"]
    assert item not in json.dumps(http("GET", "/sessions/daves/summary", None, DAVE)[2])
    for user, session in ((DAVE, "daves"), (ALICE, _session_of(http, ALICE))):
        status, _, body = http("POST", f"/sessions/{session}/answers", answer, user)
        assert (status, body["error_code"]) == (404, "QUESTION_NOT_FOUND")
        status, _, body = http("POST", f"/sessions/{session}/questions/{item}/reports", {"reason": "x"}, user)
        assert (status, body["error_code"]) == (404, "QUESTION_NOT_FOUND")
    is_error, error = author_call("score_and_explain", {"session_id": "daves", **answer})
    assert (is_error, error["error_code"]) == (True, "QUESTION_NOT_FOUND")

    # Its partition is no session: no session id can name it.
    partition = f"authored#{DAVE}"
    for method, path, body in (
        ("GET", f"/sessions/{partition}/questions", None),
        ("POST", f"/sessions/{partition}/answers", answer),
        ("GET", f"/sessions/{partition}/attempts", None),
        ("GET", f"/sessions/{partition}/rounds/1", None),
        ("GET", f"/sessions/{partition}/summary", None),
        ("POST", f"/sessions/{partition}/questions/{item}/reports", {"reason": "x"}),
        ("POST", f"/sessions/{partition}/rounds", {"category": "technical"}),
    ):
        status, _, refused = http(method, path, body, DAVE)
        assert 400 <= status < 500, (path, status, refused)
    for tool, arguments in (
        ("score_and_explain", {"session_id": partition, **answer}),
        ("get_round", {"session_id": partition}),
        ("start_round", {"session_id": partition, "category": "technical"}),
        ("next_placement_question", {"session_id": partition}),
    ):
        is_error, error = author_call(tool, arguments)
        assert (is_error, error["error_code"]) == (True, "VALIDATION_ERROR")
        assert error["error"].startswith("session_id:")

    # A reviewer sees it, marked as an author's.
    queue = http("GET", "/review/queue", None, REVIEWER)[2]["entries"]
    assert [entry["reasons"] for entry in queue if entry["entry_id"] == item] == [["authored"]]


def test_a_learner_cannot_answer_another_users_item(call, http, step_functions):
    """A guard kept with the attacks (it held before): Bob's item, answered by Alice's agent
    through her own session or his."""
    assert start(http, session="bobs", user=BOB, count=1)[0] == 202
    (bobs,) = wait_for_questions(http, session="bobs", user=BOB, count=1)
    step_functions.wait_for_running()
    own("alices", ALICE)
    answer = {"question_id": bobs["question_id"], "user_answer": "A"}
    for session, code in (("alices", "QUESTION_NOT_FOUND"), ("bobs", "FORBIDDEN")):
        is_error, error = call("score_and_explain", {"session_id": session, **answer})
        assert (is_error, error["error_code"]) == (True, code)
        assert http("POST", f"/sessions/{session}/answers", answer, ALICE)[2]["error_code"] == code
    assert http("GET", "/sessions/bobs/attempts", None, BOB)[2]["attempts"] == []
