"""The MCP endpoint is bounded as the HTTP API is: a body past the same 64 KiB limit is refused
with 413 before it is parsed (the server keeps serving), and a round start an agent makes
without a session creates nothing when it is refused."""

import json

import boto3

from slea.constants import MAX_BODY_BYTES
from tests.integration.test_mcp import ALICE, _event, in_memory_call

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def test_a_body_past_the_limit_is_refused_before_it_is_read_and_the_server_keeps_serving(step_functions):
    runtime = step_functions.runtime
    padding = "x" * (MAX_BODY_BYTES + 1)
    oversized = {**LIST, "params": {"cursor": padding}}  # valid JSON-RPC, only too long
    answer = runtime.invoke("McpFunction", _event(oversized))
    assert answer["statusCode"] == 413, answer
    body = json.loads(answer["body"])
    assert body["error_code"] == "BODY_TOO_LARGE"
    assert "body" in body["error"]
    # Just under the limit is read as usual, and the next request is served.
    fitting = {**LIST, "params": {"cursor": "x" * (MAX_BODY_BYTES // 2)}}
    assert runtime.invoke("McpFunction", _event(fitting))["statusCode"] != 413
    listed = runtime.invoke("McpFunction", _event(LIST))
    assert listed["statusCode"] == 200
    assert json.loads(listed["body"])["result"]["tools"]


def _sessions(cloud):
    table = boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable"))
    return [item for item in table.scan()["Items"] if "#" not in item["session_id"]]


def test_a_refused_round_start_without_a_session_leaves_no_session(step_functions, monkeypatch):
    from slea.security import rate_limits

    runtime = step_functions.runtime
    generous = rate_limits.Limit(burst=1_000, interval_seconds=0.001)
    one_round = rate_limits.Limit(burst=1, interval_seconds=3600)
    monkeypatch.setattr(rate_limits, "limit", lambda action: one_round if action == "round_start" else generous)
    request = {"category": "technical", "count": 1}
    first_error, first = in_memory_call(runtime, "start_round", request)
    assert not first_error, first
    assert len(_sessions(runtime.cloud)) == 1
    refused = [in_memory_call(runtime, "start_round", request) for _ in range(5)]
    assert all(is_error and data["error_code"] == "RATE_LIMITED" for is_error, data in refused), refused
    # Five refusals, no session left behind; the started round's session is untouched.
    assert [item["session_id"] for item in _sessions(runtime.cloud)] == [first["session_id"]]
    assert _sessions(runtime.cloud)[0]["user_id"] == ALICE
