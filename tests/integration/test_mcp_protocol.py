"""The MCP handler's JSON-RPC over Streamable HTTP, message by message, as the SDK's stateless
JSON-response server answers (the official client's session over HTTP is in test_mcp.py)."""

import json
import subprocess
import sys
from typing import Any

import pytest

from slea_local import REPO_ROOT
from tests.integration.test_mcp import ALICE, LIST, _event

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _invoke(step_functions: Any, event: dict[str, Any]) -> tuple[int, Any]:
    answer = step_functions.runtime.invoke("McpFunction", event)
    return answer["statusCode"], json.loads(answer["body"]) if answer.get("body") else None


def test_the_versions_negotiated_are_the_sdks_handshake_versions(step_functions):
    mcp_module = step_functions.runtime.module("McpFunction")
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    assert mcp_module.PROTOCOL_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert mcp_module.LATEST_PROTOCOL_VERSION == LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize(("offered", "agreed"), [("2025-06-18", "2025-06-18"), ("1999-01-01", "2025-11-25")])
def test_initialize_agrees_the_offered_version_or_the_newest(step_functions, offered, agreed):
    message = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": offered}}
    status, body = _invoke(step_functions, _event(message))
    assert status == 200
    assert body["result"] == {
        "capabilities": {"tools": {"listChanged": False}},
        "protocolVersion": agreed,
        "serverInfo": {"name": "slea-ssem", "version": "1.0.0"},
    }


def test_initialize_without_its_params_is_invalid_params(step_functions):
    status, body = _invoke(step_functions, _event({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}))
    assert (status, body["id"], body["error"]["code"]) == (200, 1, -32602)


def test_a_notification_is_accepted_with_nothing_to_answer(step_functions):
    answer = step_functions.runtime.invoke(
        "McpFunction", _event({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    assert answer["statusCode"] == 202
    assert not answer["body"]


def test_ping_and_an_unknown_method(step_functions):
    assert _invoke(step_functions, _event({"jsonrpc": "2.0", "id": "p", "method": "ping"})) == (
        200,
        {"jsonrpc": "2.0", "id": "p", "result": {}},
    )
    status, body = _invoke(step_functions, _event({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}))
    assert (status, body["error"]["code"], body["error"]["data"]) == (200, -32601, "resources/list")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("{not json", 400, -32700),
        (json.dumps({"id": 3, "method": "tools/list"}), 400, -32600),  # no "jsonrpc": "2.0"
        (json.dumps({"jsonrpc": "2.0", "id": 3}), 400, -32600),  # neither request nor response
        (json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}}), 200, -32602),  # no name
    ],
    ids=["parse-error", "not-json-rpc", "no-method", "call-without-name"],
)
def test_malformed_messages_are_json_rpc_errors(step_functions, body, status, code):
    event = _event(LIST)
    event["body"] = body
    answer_status, answer = _invoke(step_functions, event)
    assert (answer_status, answer["error"]["code"]) == (status, code)


def test_an_unsupported_protocol_version_header_is_refused(step_functions):
    """The SDK client's `server/discover` probe (a newer revision) is refused like this; it then
    falls back to initialize, which the official client test drives."""
    event = _event({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}})
    event["headers"]["mcp-protocol-version"] = "2026-07-28"
    status, body = _invoke(step_functions, event)
    assert (status, body["id"], body["error"]["code"]) == (400, 2, -32602)


def test_accept_and_content_type_are_checked(step_functions):
    event = _event(LIST)
    event["headers"]["accept"] = "text/html"
    assert _invoke(step_functions, event)[0] == 406
    event = _event(LIST)
    event["headers"]["content-type"] = "text/plain"
    assert _invoke(step_functions, event)[0] == 415


def test_a_base64_body_is_read_like_a_plain_one(step_functions):
    import base64

    event = _event(LIST, sub=ALICE)
    event["body"] = base64.b64encode(json.dumps(LIST).encode()).decode()
    event["isBase64Encoded"] = True
    status, body = _invoke(step_functions, event)
    assert status == 200
    assert {tool["name"] for tool in body["result"]["tools"]} >= {"get_user_profile"}


def test_the_handler_imports_neither_the_sdk_nor_an_asgi_stack():
    """The SDK's server was most of this function's cold start: the handler answers without it."""
    code = (
        "import importlib.util, sys, json;"
        f"sys.path.insert(0, {str(REPO_ROOT / 'functions' / 'mcp')!r});"
        f"spec = importlib.util.spec_from_file_location('app', {str(REPO_ROOT / 'functions' / 'mcp' / 'app.py')!r});"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec));"
        "print(json.dumps(sorted(m for m in ('mcp', 'mcp_types', 'starlette', 'mangum', 'anyio') if m in sys.modules)))"
    )
    environment = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO_ROOT / "layers" / "slea"),
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    output = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    assert json.loads(output.stdout.strip().splitlines()[-1]) == []


def test_a_fault_in_a_tool_is_an_internal_error_that_says_nothing_of_it(step_functions, monkeypatch):
    """The SDK's server answered an unexpected exception's own message (code 0); this handler logs
    it and answers JSON-RPC's internal error, without the detail."""
    import dataclasses

    mcp_module = step_functions.runtime.module("McpFunction")

    def broken(caller: Any, request: Any) -> Any:
        raise RuntimeError("table arn:aws:dynamodb:secret")

    tool = dataclasses.replace(mcp_module.TOOLS_BY_NAME["get_user_profile"], run=broken)
    monkeypatch.setitem(mcp_module.TOOLS_BY_NAME, "get_user_profile", tool)
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "get_user_profile"}}
    call["params"]["arguments"] = {"user_id": ALICE}
    status, body = _invoke(step_functions, _event(call))
    assert (status, body) == (200, {"jsonrpc": "2.0", "id": 9, "error": {"code": -32603, "message": "Internal error"}})
