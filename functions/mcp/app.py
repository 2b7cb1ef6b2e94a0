"""The MCP server for LLM agents (the six tools, registered in one MCP server), on
route /mcp of the HTTP API behind its JWT authorizer: the caller is the token's `sub`, with the
roles its groups and scopes give it (slea.security.roles). A learner's agent is offered, and may call,
only the learner tools; the authoring tools need the author role (slea.logic.agent).

Streamable HTTP, stateless, JSON responses (no SSE): every POST is one JSON-RPC exchange, so one
Lambda invocation answers it and nothing is kept between requests but the app itself. The tools
call slea.logic.agent, i.e. the same logic as the Lambda functions and the HTTP API.

Bounded: GET (the optional SSE stream) and DELETE (ending a session) answer 405 at once, as the
protocol allows a server without a stream; the SDK would hold a GET open until the function
timed out. Every request has a deadline (`_Bounded`): TOOL_SECONDS, and never past the
function's own remaining time; a tool call that outlives it is a TIMEOUT tool error.

Lambda pitfalls, and how they are met:
- The SDK's session manager runs a task group for the app's whole life and refuses a second
  `run()`. Mangum with its default lifespan runs startup and shutdown on
  every invocation, so the second warm call would fail. Here Mangum runs with `lifespan="off"`
  and the app's lifespan is entered once per execution environment on one event loop that this
  module owns and keeps (`_Environment`), across warm invocations. Mangum over the AWS Lambda Web
  Adapter: the adapter needs an extension layer and a web server process in the image (more cold
  start, and nothing of it runs in `slea_local` or the tests), while this is a plain handler.
- Host check: the SDK's default for an app built for 127.0.0.1 allows only localhost Host headers
  and answers 421 to API Gateway's execute-api host. API Gateway only routes requests addressed to
  its own domains, so DNS rebinding (what the check guards a local server against) cannot reach
  this function: the check is off here, explicitly.
- 401: API Gateway's authorizer refuses a request without a valid token before this function
  runs, with `WWW-Authenticate: Bearer ...` (slea_local.http does the same). A request that still
  arrives without a subject gets 401 from here too; API Gateway renames a function's
  WWW-Authenticate header to x-amzn-Remapped-WWW-Authenticate, so both are set.
"""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

import asyncio
import contextvars
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventV2Model
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slea.constants import MAX_BODY_BYTES
from slea.contracts.ability import AgentAbilityInput
from slea.contracts.agent import AgentAnswerInput, AgentRoundInput, AgentStartRoundInput
from slea.contracts.common import parse_input
from slea.contracts.error_response import ErrorResponse
from slea.contracts.keywords import GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.questions import SaveQuestionInput
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
DEADLINE = "slea.deadline"  # the request's deadline (time.monotonic()), in its ASGI scope


@dataclass(frozen=True)
class AgentTool:
    name: str
    contract: type[BaseModel]
    description: str
    run: Callable[[Caller, Any], Any]


TOOLS = (
    AgentTool(
        "get_user_profile",
        GetUserProfileInput,
        "Tool 1: the learner's latest self-assessment profile (self_level, years_experience, job_role,"
        " duty, interests, previous_score), or the default profile when there is no survey."
        " Only the caller's own user_id (the token's subject).",
        agent.get_user_profile,
    ),
    AgentTool(
        "search_question_templates",
        SearchTemplatesInput,
        "Tool 2 (authors only): up to 10 few-shot question templates for the interests, within +-1.5 of"
        " the difficulty (1-10) in the category (technical, business, general), best first.",
        agent.search_question_templates,
    ),
    AgentTool(
        "get_difficulty_keywords",
        GetKeywordsInput,
        "Tool 3 (authors only): keywords, concepts and example questions for a difficulty (1-10) and"
        " category (technical, business, general); a default set when none is stored.",
        agent.get_difficulty_keywords,
    ),
    AgentTool(
        "validate_question_quality",
        ValidateQuestionInput,
        "Tool 4 (authors only): validate one generated question: rule checks plus an LLM semantic score;"
        " final_score = min(score, rule_score), recommendation pass (>= 0.85), revise (>= 0.70) or reject.",
        agent.validate_question_quality,
    ),
    AgentTool(
        "save_generated_question",
        SaveQuestionInput,
        "Tool 5 (authors only): save a validated question for the bank. It is kept outside every"
        " session (never in a learner's graded round), filed under round_id authored#{author}_{round_id},"
        " and waits in the review queue.",
        agent.save_generated_question,
    ),
    AgentTool(
        "score_and_explain",
        AgentAnswerInput,
        "Tool 6: grade the caller's answer to a stored question of one of the caller's sessions and"
        " explain it. The answer key is looked up server-side; one graded answer per question.",
        agent.score_and_explain,
    ),
    AgentTool(
        "start_round",
        AgentStartRoundInput,
        "Mode 1: start generating a round of questions (in one of the caller's sessions, or a new one"
        " when session_id is absent). Returns at once with the session and round; follow it with get_round.",
        agent.start_round,
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
        " answers it rests on and about how many more would make it precise; and its history, oldest first.",
        agent.get_ability,
    ),
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def _tool_list(caller: Caller) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(name=tool.name, description=tool.description, input_schema=tool.contract.model_json_schema())
            for tool in TOOLS
            if agent.may_call(caller, tool.name)
        ]
    )


# Built once per execution environment: tools/list only hands one of these out.
LEARNER_TOOLS = _tool_list(Caller("learner"))
AUTHOR_TOOLS = _tool_list(Caller("author", author=True))
NO_TOOLS = types.ListToolsResult(tools=[])


def _error(code: str, message: str, detail: str | None = None) -> types.CallToolResult:
    """A tool error in the HTTP API's ErrorResponse shape, as the result's text."""
    body = ErrorResponse(error=message, error_code=code, detail=detail).model_dump_json(exclude_none=True)
    return types.CallToolResult(content=[types.TextContent(text=body)], is_error=True)


def _validation_error(error: ValidationError, contract: type[BaseModel]) -> types.CallToolResult:
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


def _caller_from_request(request: Any) -> Caller | None:
    """The caller of the API Gateway event that Mangum put in the request's ASGI scope."""
    return Caller.from_claims(_claims(getattr(request, "scope", {}).get("aws.event") or {}))


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


async def _call(tool: AgentTool, caller: Caller, arguments: dict[str, Any], deadline: float) -> types.CallToolResult:
    """Validate against the tool's contract, run it off the event loop until `deadline`, answer
    its result or a tool error in the ErrorResponse shape."""
    try:
        request = tool.contract.model_validate(arguments)
    except ValidationError as error:
        return _validation_error(error, tool.contract)
    try:
        # A thread cannot be stopped: past the deadline it is left to finish and the caller hears
        # at once (a repeated call is safe: an answer or a save repeats as the first, a round
        # starts once).
        with anyio.fail_after(max(0.0, deadline - time.monotonic())):
            data = await anyio.to_thread.run_sync(_run, tool, caller, request, deadline, abandon_on_cancel=True)
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
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))], structured_content=structured
    )


def build_server(fixed_caller: Caller | None = None) -> Server[Any]:
    """The MCP server. Over HTTP the caller is each request's token (subject and roles);
    `fixed_caller` is the user of a server without HTTP (stdio, the tests' in-memory client)."""

    def caller_of(ctx: ServerRequestContext[Any]) -> Caller | None:
        return _caller_from_request(ctx.request) if ctx.request is not None else fixed_caller

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        caller = caller_of(ctx)
        if caller is None:
            return NO_TOOLS
        return AUTHOR_TOOLS if caller.author else LEARNER_TOOLS

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            return _error("UNKNOWN_TOOL", f"name: no tool {params.name!r}")
        caller = caller_of(ctx)
        if caller is None:
            return _error("UNAUTHORIZED", "a bearer token with a subject is required")
        try:  # before the arguments are read: a refusal says why, whatever was sent
            agent.require_may_call(caller, tool.name)
        except DomainError as error:
            return _error(error.code, error.message)
        scope = getattr(ctx.request, "scope", None) or {}
        deadline = scope.get(DEADLINE, time.monotonic() + TOOL_SECONDS) - RESPONSE_SECONDS
        return await _call(tool, caller, params.arguments or {}, deadline)

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def _error_reply(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    body = ErrorResponse(error=message, error_code=code).model_dump_json(exclude_none=True)
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers") or []:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _bounded_body(scope: Scope, receive: Receive) -> bytes | None:
    """The whole request body, or None as soon as it is known to be too large (by its declared
    length, else by what has arrived): a client cannot make us hold more than the limit."""
    if _declared_length(scope) > MAX_BODY_BYTES:
        return None
    body, more = bytearray(), True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            return None
        more = bool(message.get("more_body"))
    return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read already, handed to the app as one message; then the real channel."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


class _Bounded:
    """The app's HTTP requests, bounded. POST only: this server has no SSE stream, so GET and
    DELETE answer 405 at once. Each request gets a deadline in its scope (DEADLINE): TOOL_SECONDS
    from now, and RESPONSE_SECONDS before the function's own end; whatever is still running then
    (reading the body, a tool, anything) is cancelled, answered 504 if nothing was sent yet. A
    body larger than the HTTP API's limit (MAX_BODY_BYTES) is refused with 413 before any of it
    is parsed, whether its length was declared or not."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            message = f"{scope['method']} {scope['path']}: this server has no SSE stream; send JSON-RPC with POST"
            await _error_reply(405, "METHOD_NOT_ALLOWED", message, {"Allow": "POST"})(scope, receive, send)
            return
        seconds = TOOL_SECONDS
        context = scope.get("aws.context")
        if context is not None:
            seconds = min(seconds, context.get_remaining_time_in_millis() / 1000 - RESPONSE_SECONDS)
        scope[DEADLINE] = time.monotonic() + max(0.0, seconds)
        answered = False

        async def tracked(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        with anyio.move_on_after(max(0.0, seconds)) as bound:
            body = await _bounded_body(scope, receive)
            if body is None:
                message = f"body: larger than {MAX_BODY_BYTES} bytes"
                await _error_reply(413, "BODY_TOO_LARGE", message)(scope, receive, tracked)
                return
            await self.app(scope, _replay(body, receive), tracked)
        if bound.cancelled_caught:
            logger.error("request past its deadline", extra={"answered": answered})
            if not answered:
                await _error_reply(504, "TIMEOUT", "the request did not finish in time; please retry")(
                    scope, receive, send
                )


def http_app(server: Server[Any]) -> Starlette:
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        # See the module's docstring: API Gateway already confines the Host.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app.add_middleware(_Bounded)
    return app


class _Environment:
    """What one execution environment keeps across warm invocations: one event loop, and the
    app's lifespan (the session manager's task group) entered once on it and never left."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.app = http_app(build_server())
        self.adapter: Mangum | None = None
        self._lifespan: asyncio.Task[None] | None = None

    def _enter_lifespan(self) -> None:
        started: asyncio.Future[None] = self.loop.create_future()

        async def hold() -> None:
            async with self.app.router.lifespan_context(self.app):
                started.set_result(None)
                await asyncio.Event().wait()  # until the environment ends

        self._lifespan = self.loop.create_task(hold())
        self.loop.run_until_complete(started)

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # Lambda's case: no loop runs on this thread
            return self._handle(event, context)
        # A caller already runs an event loop on this thread (async code; in the tests, Playwright's
        # sync API): ours runs on a thread of its own for this call, with the caller's context.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(contextvars.copy_context().run, self._handle, event, context).result()

    def _handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        # Mangum runs each request on the current thread's event loop: ours, every time (the local
        # runtime may call from another thread than the one before).
        asyncio.set_event_loop(self.loop)
        try:
            if self._lifespan is None or self._lifespan.done():
                self._enter_lifespan()
            if self.adapter is None:
                self.adapter = Mangum(self.app, lifespan="off")
            return self.adapter(event, context)
        finally:
            asyncio.set_event_loop(None)


_environment: _Environment | None = None


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
    global _environment  # noqa: PLW0603 - kept per execution environment
    parse_input(APIGatewayProxyEventV2Model, event)  # a malformed envelope names its field
    caller = Caller.from_claims(_claims(event))
    if caller is None:
        return _unauthorized()
    if (refused := _over_budget(caller.user_id)) is not None:
        return refused
    if _environment is None:
        _environment = _Environment()
    return _environment.handle(event, context)


gc.enable()
