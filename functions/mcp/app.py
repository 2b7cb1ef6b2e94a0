"""The MCP server for LLM agents (spec 000: the six tools "registered in the FastMCP server"), on
route /mcp of the HTTP API behind its JWT authorizer: the caller is the token's `sub`.

Streamable HTTP, stateless, JSON responses (no SSE): every POST is one JSON-RPC exchange, so one
Lambda invocation answers it and nothing is kept between requests but the app itself. The tools
call slea.tools.agent, i.e. the same logic as the Lambda functions and the HTTP API.

Lambda pitfalls, and how they are met:
- The SDK's session manager runs a task group for the app's whole life and refuses a second
  `run()` (python-sdk issue 3121). Mangum with its default lifespan runs startup and shutdown on
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

from slea.contracts.agent import AgentAnswerInput, AgentRoundInput, AgentStartRoundInput
from slea.contracts.common import parse_input
from slea.contracts.errors import ErrorResponse
from slea.contracts.keywords import GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.questions import SaveQuestionInput
from slea.contracts.templates import SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionInput
from slea.errors import DataAccessError
from slea.llm import budget
from slea.observability import logger, metrics, tracer
from slea.tools import agent
from slea.tools.errors import ApiError

SERVER_NAME = "slea-ssem"
MCP_PATH = "/mcp"
# No tool call waits longer than this for the model (the HTTP API's 30 s limit, with room for the
# round trip): slea.llm.budget falls back offline when a model call would not fit.
TOOL_SECONDS = 25.0


@dataclass(frozen=True)
class AgentTool:
    name: str
    contract: type[BaseModel]
    description: str
    run: Callable[[str, Any], Any]


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
        "Tool 2: up to 10 few-shot question templates for the interests, within +-1.5 of the"
        " difficulty (1-10) in the category (technical, business, general), best first.",
        agent.search_question_templates,
    ),
    AgentTool(
        "get_difficulty_keywords",
        GetKeywordsInput,
        "Tool 3: keywords, concepts and example questions for a difficulty (1-10) and category"
        " (technical, business, general); a default set when none is stored.",
        agent.get_difficulty_keywords,
    ),
    AgentTool(
        "validate_question_quality",
        ValidateQuestionInput,
        "Tool 4: validate one generated question: rule checks plus an LLM semantic score;"
        " final_score = min(score, rule_score), recommendation pass (>= 0.85), revise (>= 0.70) or reject.",
        agent.validate_question_quality,
    ),
    AgentTool(
        "save_generated_question",
        SaveQuestionInput,
        "Tool 5: save a validated question; a failed write is queued for retry. round_id"
        " ({session_id}_{round}_{timestamp}) must name one of the caller's sessions.",
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
)
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}
# Built once per execution environment: tools/list only hands this list out.
TOOL_LIST = types.ListToolsResult(
    tools=[
        types.Tool(name=tool.name, description=tool.description, input_schema=tool.contract.model_json_schema())
        for tool in TOOLS
    ]
)


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


def _subject(event: dict[str, Any]) -> str | None:
    """The JWT's subject, as API Gateway's authorizer hands it on (slea.api.caller reads the same)."""
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt", {}).get("claims") or {}
    subject = claims.get("sub")
    return str(subject) if subject else None


def _caller_from_request(request: Any) -> str | None:
    """The subject of the API Gateway event that Mangum put in the request's ASGI scope."""
    return _subject(getattr(request, "scope", {}).get("aws.event") or {})


class _Remaining:
    """slea.llm.budget's view of the time a tool call may spend."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return int(max(0.0, self.deadline - time.monotonic()) * 1000)


_invocation_deadline: float | None = None  # set by lambda_handler: the function's own end


def _run(tool: AgentTool, caller: str, request: BaseModel) -> Any:
    deadline = time.monotonic() + TOOL_SECONDS
    if _invocation_deadline is not None:
        deadline = min(deadline, _invocation_deadline)
    budget.start(_Remaining(deadline))
    return agent.as_json(tool.run(caller, request))


async def _call(tool: AgentTool, caller: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Validate against the tool's contract, run it off the event loop, answer its result or a
    tool error in the ErrorResponse shape."""
    try:
        request = tool.contract.model_validate(arguments)
    except ValidationError as error:
        return _validation_error(error, tool.contract)
    try:
        data = await anyio.to_thread.run_sync(_run, tool, caller, request)
    except ApiError as error:
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


def build_server(fixed_caller: str | None = None) -> Server[Any]:
    """The MCP server. Over HTTP the caller is each request's token subject; `fixed_caller` is the
    user of a server without HTTP (stdio, the tests' in-memory client)."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> Any:
        return TOOL_LIST

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Any:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            return _error("UNKNOWN_TOOL", f"name: no tool {params.name!r}")
        caller = _caller_from_request(ctx.request) if ctx.request is not None else fixed_caller
        if caller is None:
            return _error("UNAUTHORIZED", "a bearer token with a subject is required")
        return await _call(tool, caller, params.arguments or {})

    return Server(SERVER_NAME, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def http_app(server: Server[Any]) -> Starlette:
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        # See the module's docstring: API Gateway already confines the Host.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


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


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId")
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    global _environment, _invocation_deadline  # noqa: PLW0603 - kept per execution environment
    parse_input(APIGatewayProxyEventV2Model, event)  # a malformed envelope names its field
    if _subject(event) is None:
        return _unauthorized()
    _invocation_deadline = time.monotonic() + context.get_remaining_time_in_millis() / 1000
    if _environment is None:
        _environment = _Environment()
    return _environment.handle(event, context)


gc.enable()
