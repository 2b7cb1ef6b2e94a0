"""The MCP server for LLM agents (the six tools, registered in one MCP server), on
route /mcp of the HTTP API behind its JWT authorizer: the caller is the token's `sub`, with the
roles its groups and scopes give it (slea.security.roles). A learner's agent is offered, and may call,
only the learner tools; the authoring tools need the author role (slea.logic.agent).

Streamable HTTP, stateless, JSON responses (no SSE): every POST is one JSON-RPC message, so one
Lambda invocation answers it and nothing is kept between requests. The tools call
slea.logic.agent, i.e. the same logic as the Lambda functions and the HTTP API.

The Lambda handler answers the protocol's messages itself (`_dispatch`: initialize with the
SDK's version negotiation, notifications, ping, tools/list, tools/call; JSON-RPC errors otherwise),
validated by the small pydantic models below. Why not the official SDK's server: importing it
(with Starlette, Mangum and asyncio) was most of this function's cold start, 3.2x the baseline
of bench/cold_import.py against about 1.5x without it. The SDK still serves the stdio server
(`build_server`, imported only there), and the tests drive this handler with the SDK's own client
over Streamable HTTP, so the two stay in step.

Bounded: GET (the optional SSE stream) and DELETE (ending a session) answer 405 at once, as the
protocol allows a server without a stream. Every request has a deadline: TOOL_SECONDS, and never
past the function's own remaining time; a tool call that outlives it is a TIMEOUT tool error. A
body larger than the HTTP API's limit is refused (413) before it is parsed.

- Host: API Gateway only routes requests addressed to its own domains, so DNS rebinding (what the
  SDK's Host check guards a local server against) cannot reach this function; there is no check.
- 401: API Gateway's authorizer refuses a request without a valid token before this function
  runs, with `WWW-Authenticate: Bearer ...` (slea_local.http does the same). A request that still
  arrives without a subject gets 401 from here too; API Gateway renames a function's
  WWW-Authenticate header to x-amzn-Remapped-WWW-Authenticate, so both are set.
"""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

import base64
import binascii
import contextvars
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slea.constants import MAX_BODY_BYTES
from slea.contracts.ability import AgentAbilityInput
from slea.contracts.agent import (
    AgentAnswerInput,
    AgentPlacementInput,
    AgentRoundInput,
    AgentSkipInput,
    AgentStartPlacementInput,
    AgentStartRoundInput,
)
from slea.contracts.common import parse_input
from slea.contracts.error_response import ErrorResponse
from slea.contracts.http_event import HttpApiEvent
from slea.contracts.keywords import GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.questions import SaveQuestionInput
from slea.contracts.scoring import AnswerRequest, ScoreAnswerOutput
from slea.contracts.sessions import (
    CreateSessionRequest,
    PlacementNext,
    RoundStarted,
    SessionCreated,
    SkipRecorded,
    StartRoundRequest,
)
from slea.contracts.templates import SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionInput
from slea.llm import budget
from slea.logic import agent
from slea.platform.errors import DataAccessError, DomainError
from slea.platform.observability import logger, metrics, tracer
from slea.security import rate_limits
from slea.security.roles import Caller

SERVER_NAME = "slea-ssem"
MCP_PATH = "/mcp"
# No request runs longer than this (the HTTP API's 30 s limit, with room for the round trip);
# slea.llm.budget falls back offline when a model call would not fit in a tool call's time.
TOOL_SECONDS = 25.0
# Kept back from a request's time to send its answer: a tool call ends this much before it.
RESPONSE_SECONDS = 1.0
# The protocol revisions this server negotiates (the SDK's handshake revisions; the SDK's
# `mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`, which a test compares): a client offering one
# gets it, any other gets the newest, as the SDK's server answers.
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[-1]
# JSON-RPC 2.0's error codes.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}


@dataclass(frozen=True)
class AgentTool:
    name: str
    contract: type[BaseModel]
    description: str
    run: Callable[[Caller, Any], Any]


def authoring_tool(name: str) -> Callable[[Caller, Any], Any]:
    """An authoring tool (slea.logic.authoring_tools), loaded by an author's first call of one:
    its logic (Tool 4's word lists, rapidfuzz) is no part of a learner's cold start."""

    def run(caller: Caller, request: Any) -> Any:
        from slea.logic import authoring_tools  # noqa: PLC0415 - see the docstring

        tool: Callable[[Caller, Any], Any] = getattr(authoring_tools, name)
        return tool(caller, request)

    return run


def learner_read(name: str) -> Callable[[Caller, Any], Any]:
    """A read of the caller's own records (slea.logic.learner_reads), loaded by its first call."""

    def run(caller: Caller, request: Any) -> Any:
        from slea.logic import learner_reads  # noqa: PLC0415 - see the docstring

        tool: Callable[[Caller, Any], Any] = getattr(learner_reads, name)
        return tool(caller, request)

    return run


def score_and_explain(caller: Caller, request: AgentAnswerInput) -> ScoreAnswerOutput:
    """Tool 6, as POST /sessions/{id}/answers: the grading path (slea.logic.sessions.answers) is
    loaded by the first answer, as the HTTP API's answer route loads it."""
    from slea.logic.sessions import answers  # noqa: PLC0415 - see the docstring

    answer = AnswerRequest(question_id=request.question_id, user_answer=request.user_answer)
    return answers.answer_question(request.session_id, caller.user_id, answer)


def skip_question(caller: Caller, request: AgentSkipInput) -> SkipRecorded:
    """The caller skips a question of their own session: it counts as a wrong answer, once
    (slea.logic.sessions.progress, with its first call)."""
    from slea.logic.sessions import progress  # noqa: PLC0415 - see the docstring

    return progress.skip_question(request.session_id, caller.user_id, request.question_id)


def start_round(caller: Caller, request: AgentStartRoundInput) -> RoundStarted:
    """Starts the round's state machine and returns at once; get_round follows it
    (slea.logic.sessions.progress, with its first call)."""
    from slea.logic.sessions import progress  # noqa: PLC0415 - see the docstring

    start = StartRoundRequest.model_validate(request.model_dump(exclude={"session_id"}))
    return progress.start_round_in_any_session(request.session_id, caller.user_id, start)


def start_placement(caller: Caller, request: AgentStartPlacementInput) -> SessionCreated:
    """A new placement test (POST /sessions {purpose: placement}): the same use case."""
    from slea.logic.sessions import progress  # noqa: PLC0415 - see start_round

    return progress.create_session(
        caller.user_id, request=CreateSessionRequest(purpose="placement", category=request.category)
    )


def next_placement_question(caller: Caller, request: AgentPlacementInput) -> PlacementNext:
    """A placement test's open question, its next one or its result (POST /sessions/{id}/next);
    answers go through score_and_explain, as any session's question. The planner
    (slea.logic.sessions.placement_steps) is loaded by a placement's first step."""
    from slea.logic.sessions import placement_steps  # noqa: PLC0415 - see the docstring

    return placement_steps.next_placement_question(request.session_id, caller.user_id)


TOOLS = (
    AgentTool(
        "get_user_profile",
        GetUserProfileInput,
        "Tool 1: the learner's latest self-assessment profile (self_level, years_experience, job_role,"
        " duty, interests, previous_score), or the default profile when there is no survey."
        " Only the caller's own user_id (the token's subject).",
        learner_read("get_user_profile"),
    ),
    AgentTool(
        "search_question_templates",
        SearchTemplatesInput,
        "Tool 2 (authors only): up to 10 few-shot question templates for the interests, within +-1.5 of"
        " the difficulty (1-10) in the category (technical, business, general), best first.",
        authoring_tool("search_question_templates"),
    ),
    AgentTool(
        "get_difficulty_keywords",
        GetKeywordsInput,
        "Tool 3 (authors only): keywords, concepts and example questions for a difficulty (1-10) and"
        " category (technical, business, general); a default set when none is stored.",
        authoring_tool("get_difficulty_keywords"),
    ),
    AgentTool(
        "validate_question_quality",
        ValidateQuestionInput,
        "Tool 4 (authors only): validate one generated question: rule checks plus an LLM semantic score;"
        " final_score = min(score, rule_score), recommendation pass (>= 0.85), revise (>= 0.70) or reject.",
        authoring_tool("validate_question_quality"),
    ),
    AgentTool(
        "save_generated_question",
        SaveQuestionInput,
        "Tool 5 (authors only): save a validated question for the bank. It is kept outside every"
        " session (never in a learner's graded round), filed under round_id authored#{author}_{round_id},"
        " and waits in the review queue.",
        authoring_tool("save_generated_question"),
    ),
    AgentTool(
        "score_and_explain",
        AgentAnswerInput,
        "Tool 6: grade the caller's answer to a stored question of one of the caller's sessions and"
        " explain it. The answer key is looked up server-side; one graded answer per question.",
        score_and_explain,
    ),
    AgentTool(
        "skip_question",
        AgentSkipInput,
        "Skip a question of one of the caller's sessions: it counts as a wrong answer (a score of 0), once;"
        " refused if it was answered. A question left unanswered when the learner moves on (a new session,"
        " a later round) or past the round's time limit counts the same way.",
        skip_question,
    ),
    AgentTool(
        "start_round",
        AgentStartRoundInput,
        "Mode 1: start generating a round of questions (in one of the caller's sessions, or a new one"
        " when session_id is absent). Returns at once with the session and round; follow it with get_round.",
        start_round,
    ),
    AgentTool(
        "get_round",
        AgentRoundInput,
        "Mode 1: a round's status (RUNNING, SUCCEEDED, FAILED) and its saved questions, without answer keys.",
        agent.get_round,
    ),
    AgentTool(
        "get_ability",
        AgentAbilityInput,
        "The caller's measured ability per category (or in `category` only): theta on a logit scale with"
        " its standard error (theta +- 1.96 se holds the ability 95% of the time), its level in words, the"
        " answers it rests on, how many of them wait for a reviewer (`pending_review`: the level may move when"
        " they are reviewed) and about how many more would make it precise; and its history, oldest first.",
        learner_read("get_ability"),
    ),
    AgentTool(
        "start_placement",
        AgentStartPlacementInput,
        "Placement test: start one in a category (technical, business, general); returns its session_id."
        " It asks one question at a time and stops as soon as the learner's level is measured; follow it"
        " with next_placement_question.",
        start_placement,
    ),
    AgentTool(
        "next_placement_question",
        AgentPlacementInput,
        "Placement test: {done: false, question, progress} (the same question until it is answered: answer"
        " it with score_and_explain and this session_id), or once the test stops {done: true, result}: the"
        " level with its chance and the likeliest other level, theta and its 95% range, the questions it"
        " rests on and why it stopped. Error NO_QUESTION_YET: questions are being written, call again in"
        " about 10 seconds.",
        next_placement_question,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def _tool_list(caller: Caller) -> dict[str, Any]:
    """tools/list's result as the protocol writes it."""
    return {
        "tools": [
            {"name": tool.name, "description": tool.description, "inputSchema": tool.contract.model_json_schema()}
            for tool in TOOLS
            if agent.may_call(caller, tool.name)
        ]
    }


# Built once per execution environment: tools/list only hands one of these out.
LEARNER_TOOLS = _tool_list(Caller("learner"))
AUTHOR_TOOLS = _tool_list(Caller("author", author=True))


def _text(text: str, **fields: Any) -> dict[str, Any]:
    """A tools/call result with one text content."""
    return {"content": [{"type": "text", "text": text}], **fields}


def _error(code: str, message: str, detail: str | None = None) -> dict[str, Any]:
    """A tool error in the HTTP API's ErrorResponse shape, as the result's text."""
    body = ErrorResponse(error=message, error_code=code, detail=detail).model_dump_json(exclude_none=True)
    return _text(body, isError=True)


def _validation_error(error: ValidationError, contract: type[BaseModel]) -> dict[str, Any]:
    first = error.errors()[0]
    # A rule across fields (a model validator) has no location; its error type names the field.
    named = first["type"] if first["type"] in contract.model_fields else "arguments"
    field = ".".join(str(part) for part in first["loc"]) or named
    detail = json.dumps([{"field": ".".join(map(str, p["loc"])), "type": p["type"]} for p in error.errors()])
    return _error("VALIDATION_ERROR", f"{field}: {first['msg']}", detail)


def _claims(event: dict[str, Any]) -> dict[str, Any]:
    """The JWT's claims, as API Gateway's authorizer hands them on (slea.http.api reads the same)."""
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt", {}).get("claims")
    return claims if isinstance(claims, dict) else {}


class _Remaining:
    """slea.llm.budget's view of the time a tool call may spend."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return int(max(0.0, self.deadline - time.monotonic()) * 1000)


def _run(tool: AgentTool, caller: Caller, request: BaseModel, deadline: float) -> Any:
    # Every tool call counts against the caller's own limit (an agent loops much faster than a
    # person); answers and round starts count against theirs as well, as over the HTTP API.
    rate_limits.take(caller.user_id, "mcp_call")
    budget.start(_Remaining(deadline))
    return agent.as_json(tool.run(caller, request))


def _before(deadline: float, function: Callable[..., Any], *arguments: Any) -> Any:
    """`function(*arguments)` on a thread of its own (with this context), its result if it ends
    before `deadline`, else TimeoutError. A thread cannot be stopped: past the deadline it is
    left to finish (a daemon: it holds nothing up) and the caller hears at once (a repeated call
    is safe: an answer or a save repeats as the first, a round starts once)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            outcome["value"] = function(*arguments)
        except BaseException as error:  # handed to the waiting caller as it was
            outcome["error"] = error
        finally:
            done.set()

    threading.Thread(target=contextvars.copy_context().run, args=(work,), daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        raise TimeoutError
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def call_tool(  # noqa: PLR0911 - one answer per way a call ends
    name: str, caller: Caller | None, arguments: dict[str, Any], deadline: float
) -> dict[str, Any]:
    """tools/call's result: the tool's result, or a tool error in the ErrorResponse shape. The
    arguments are validated against the tool's contract; the tool runs until `deadline`."""
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        return _error("UNKNOWN_TOOL", f"name: no tool {name!r}")
    if caller is None:
        return _error("UNAUTHORIZED", "a bearer token with a subject is required")
    try:  # before the arguments are read: a refusal says why, whatever was sent
        agent.require_may_call(caller, tool.name)
    except DomainError as error:
        return _error(error.code, error.message)
    try:
        request = tool.contract.model_validate(arguments)
    except ValidationError as error:
        return _validation_error(error, tool.contract)
    try:
        data = _before(deadline, _run, tool, caller, request, deadline)
    except TimeoutError:
        logger.error("tool call past its deadline", extra={"tool": tool.name})
        return _error("TIMEOUT", f"{tool.name} did not finish in time; please retry")
    except DomainError as error:
        return _error(error.code, error.message)
    except (ValueError, TypeError) as error:  # the tools' own input errors (parse_input's shape)
        return _error("VALIDATION_ERROR", str(error))
    except DataAccessError as error:
        logger.error("storage unavailable", extra={"reason": str(error), "tool": tool.name})
        return _error("SERVICE_UNAVAILABLE", "storage is temporarily unavailable, please retry")
    structured = data if isinstance(data, dict) else {"result": data}
    return _text(json.dumps(data, ensure_ascii=False), structuredContent=structured, isError=False)


def build_server(caller: Caller | None) -> Any:
    """The same tools in the official SDK's server, for a server without HTTP (stdio, the tests'
    in-memory client) whose user is `caller`. The SDK is imported here, never by the Lambda."""
    import anyio  # noqa: PLC0415 - the SDK, for stdio only
    import mcp_types as types  # noqa: PLC0415 - the SDK, for stdio only
    from mcp.server import Server  # noqa: PLC0415 - the SDK, for stdio only
    from mcp.server.context import ServerRequestContext  # noqa: PLC0415 - the SDK, for stdio only

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        offered = {"tools": []} if caller is None else AUTHOR_TOOLS if caller.author else LEARNER_TOOLS
        return types.ListToolsResult.model_validate(offered)

    async def on_call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        deadline = time.monotonic() + TOOL_SECONDS - RESPONSE_SECONDS
        arguments = params.arguments or {}
        result = await anyio.to_thread.run_sync(call_tool, params.name, caller, arguments, deadline)
        return types.CallToolResult.model_validate(result)

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=on_call_tool)


# ---------------------------------------------------------------- JSON-RPC over Streamable HTTP
class _Message(BaseModel):
    """One JSON-RPC 2.0 message: a request (method and id), a notification (method, no id) or a
    response (result or error, which this server never asked for and only acknowledges)."""

    model_config = ConfigDict(extra="allow")
    jsonrpc: Literal["2.0"]
    id: int | str | None = None
    method: str | None = None
    params: dict[str, Any] | None = None


class _Implementation(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    version: str


class _InitializeParams(BaseModel):
    model_config = ConfigDict(extra="allow")
    protocol_version: str = Field(alias="protocolVersion")
    capabilities: dict[str, Any]
    client_info: _Implementation = Field(alias="clientInfo")


class _CallParams(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    arguments: dict[str, Any] | None = None


class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _reply(status: int, body: str = "", headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json", **(headers or {})},
        "body": body,
        "isBase64Encoded": False,
    }


def _error_reply(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = ErrorResponse(error=message, error_code=code).model_dump_json(exclude_none=True)
    return _reply(status, body, headers)


def _rpc_error(status: int, message_id: int | str | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return _reply(status, json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}))


def _media_types(value: str) -> set[str]:
    return {part.split(";")[0].strip().lower() for part in value.split(",")}


def _headers(event: dict[str, Any]) -> dict[str, str]:
    return {name.lower(): value for name, value in (event.get("headers") or {}).items()}


def _body(event: dict[str, Any]) -> bytes:
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return b"\xff"  # not JSON: a parse error
    return body.encode() if isinstance(body, str) else bytes(body)


def _result(message: _Message, caller: Caller, deadline: float) -> Any:
    """A request's result, or _RpcError."""
    if message.method == "initialize":
        try:
            params = _InitializeParams.model_validate(message.params or {})
        except ValidationError as error:
            raise _RpcError(INVALID_PARAMS, "Invalid request parameters", str(error)) from error
        requested = params.protocol_version
        return {
            "capabilities": CAPABILITIES,
            "protocolVersion": requested if requested in PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION,
            "serverInfo": {"name": SERVER_NAME, "version": "1.0.0"},
        }
    if message.method == "ping":
        return {}
    if message.method == "tools/list":
        return AUTHOR_TOOLS if caller.author else LEARNER_TOOLS
    if message.method == "tools/call":
        try:
            call = _CallParams.model_validate(message.params or {})
        except ValidationError as error:
            raise _RpcError(INVALID_PARAMS, "Invalid request parameters", str(error)) from error
        return call_tool(call.name, caller, call.arguments or {}, deadline)
    raise _RpcError(METHOD_NOT_FOUND, "Method not found", message.method)


def _dispatch(event: dict[str, Any], caller: Caller, seconds: float) -> dict[str, Any]:  # noqa: PLR0911
    """One Streamable HTTP exchange, as the SDK's stateless JSON-response transport answers it."""
    method = ((event.get("requestContext") or {}).get("http") or {}).get("method", "POST")
    if method != "POST":
        refusal = f"{method} {MCP_PATH}: this server has no SSE stream; send JSON-RPC with POST"
        return _error_reply(405, "METHOD_NOT_ALLOWED", refusal, {"allow": "POST"})
    body = _body(event)
    if len(body) > MAX_BODY_BYTES:  # refused before any of it is parsed
        return _error_reply(413, "BODY_TOO_LARGE", f"body: larger than {MAX_BODY_BYTES} bytes")
    if seconds <= 0:
        logger.error("request past its deadline", extra={"answered": False})
        return _error_reply(504, "TIMEOUT", "the request did not finish in time; please retry")
    deadline = time.monotonic() + seconds - RESPONSE_SECONDS
    headers = _headers(event)
    accepted = _media_types(headers.get("accept", ""))
    if not accepted & {"application/json", "application/*", "*/*"}:
        return _rpc_error(406, None, INVALID_REQUEST, "Not Acceptable: Client must accept application/json")
    if "application/json" not in _media_types(headers.get("content-type", "")):
        return _rpc_error(415, None, INVALID_REQUEST, "Unsupported Media Type: Content-Type must be application/json")
    try:
        raw = json.loads(body)
    except ValueError as error:
        return _rpc_error(400, None, PARSE_ERROR, f"Parse error: {error}")
    try:
        message = _Message.model_validate(raw)
    except ValidationError as error:
        return _rpc_error(400, None, INVALID_REQUEST, f"Invalid Request: {error}")
    if message.method is None or message.id is None:
        if message.method is None and "result" not in (extra := message.model_extra or {}) and "error" not in extra:
            return _rpc_error(400, message.id, INVALID_REQUEST, "Invalid Request: no method, result or error")
        return _reply(202)  # a notification or a response: accepted, nothing to answer
    version = headers.get("mcp-protocol-version")
    if message.method != "initialize" and version is not None and version not in PROTOCOL_VERSIONS:
        supported = ", ".join(PROTOCOL_VERSIONS)
        text = f"Bad Request: unsupported protocol version {version!r} (supported: {supported})"
        return _rpc_error(400, message.id, INVALID_PARAMS, text)
    try:
        result = _result(message, caller, deadline)
    except _RpcError as error:
        return _rpc_error(200, message.id, error.code, error.message, error.data)
    except Exception:  # a fault of ours: logged, and the caller hears no more than the SDK says
        logger.exception("MCP request failed", extra={"method": message.method})
        return _rpc_error(200, message.id, INTERNAL_ERROR, "Internal error")
    return _reply(200, json.dumps({"jsonrpc": "2.0", "id": message.id, "result": result}, ensure_ascii=False))


def _unauthorized() -> dict[str, Any]:
    challenge = 'Bearer error="invalid_token", error_description="a bearer token with a subject is required"'
    body = ErrorResponse(error="a bearer token with a subject is required", error_code="UNAUTHORIZED")
    return {
        "statusCode": 401,
        "headers": {
            "Content-Type": "application/json",
            "WWW-Authenticate": challenge,
            "x-amzn-Remapped-WWW-Authenticate": challenge,
        },
        "body": body.model_dump_json(exclude_none=True),
        "isBase64Encoded": False,
    }


def _over_budget(user_id: str) -> dict[str, Any] | None:
    """429 with Retry-After when the caller has spent their per-user request budget, the one
    the HTTP API spends from too (slea.security.rate_limits): every MCP request counts as it
    enters, a listing of tools as much as a tool call; tool calls also spend their own."""
    try:
        rate_limits.take(user_id, "request")
    except rate_limits.RateLimited as refused:
        body = ErrorResponse(error=refused.message, error_code=refused.code)
        return {
            "statusCode": 429,
            "headers": {"Content-Type": "application/json", "Retry-After": str(refused.retry_after)},
            "body": body.model_dump_json(exclude_none=True),
            "isBase64Encoded": False,
        }
    return None


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId")
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    parse_input(HttpApiEvent, event)  # a malformed envelope names its field
    caller = Caller.from_claims(_claims(event))
    if caller is None:
        return _unauthorized()
    if (refused := _over_budget(caller.user_id)) is not None:
        return refused
    seconds = TOOL_SECONDS
    if context is not None:
        seconds = min(seconds, context.get_remaining_time_in_millis() / 1000 - RESPONSE_SECONDS)
    return _dispatch(event, caller, seconds)


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
