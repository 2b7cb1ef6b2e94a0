"""The tools as LLM agents call them (the MCP server, functions/mcp): the same logic as the Lambda
functions and the HTTP API, with the HTTP API's rules for whoever calls. Each function takes the
caller (the token's subject and roles, or the stdio server's user) and its validated contract.

Least privilege (Step Functions is trusted, an agent is not):
- A learner's agent reads its own profile and its own measured ability (slea.logic.learner_reads),
  starts and follows its own rounds and placement tests, and answers (or skips, counted as wrong)
  the items of its own sessions (graded against the key looked up server-side, one graded answer
  per question, as POST /sessions/{id}/answers).
- The authoring tools (slea.logic.authoring_tools) hand out or write answer material (concept
  records, templates with their keys, an item with a chosen key): only callers with the author
  role (slea.security.roles) may call them.

The tools that answer, skip, start a round or a placement, or take a placement's next step call
the HTTP API's use cases (slea.logic.sessions.answers, progress, placement_steps) from the MCP
handler, which imports each with its first call: the grading path, the skip count and the planner
are no part of the server's cold start.
"""

from typing import Any

from slea.contracts.agent import (
    AgentRoundInput,
    AgentRoundStatus,
)
from slea.contracts.validation import ValidationResult
from slea.logic.sessions import use_cases as sessions
from slea.platform.errors import Forbidden
from slea.security.roles import AUTHOR_GROUP, Caller

# The tools only callers with the author role may call (slea.logic.authoring_tools): they hand
# out or write answer material. Named here, so tools/list can leave them out without loading them.
AUTHORING_TOOLS = frozenset(
    {"search_question_templates", "get_difficulty_keywords", "validate_question_quality", "save_generated_question"}
)


def may_call(caller: Caller, tool: str) -> bool:
    return caller.author or tool not in AUTHORING_TOOLS


def require_may_call(caller: Caller, tool: str) -> None:
    """Forbidden, naming the tool and the role it needs."""
    if not may_call(caller, tool):
        raise Forbidden(
            "FORBIDDEN",
            f"{tool} is an authoring tool: it needs the '{AUTHOR_GROUP}' group",
        )


def get_round(caller: Caller, request: AgentRoundInput) -> AgentRoundStatus:
    status = sessions.round_status(request.session_id, caller.user_id, request.round)
    shown = sessions.list_questions(request.session_id, caller.user_id).questions
    return AgentRoundStatus(
        **status.model_dump(), questions=[question for question in shown if question.round == request.round]
    )


def as_json(result: Any) -> Any:
    """A tool's result as JSON data (a list of contracts for Tool 2)."""
    if isinstance(result, list):
        return [item.model_dump(mode="json") for item in result]
    # As the Lambda functions answer: Tool 4 leaves out its unset `error`.
    return result.model_dump(mode="json", exclude_none=isinstance(result, ValidationResult))
