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
"""

from typing import Any

from slea.contracts.agent import (
    AgentAnswerInput,
    AgentPlacementInput,
    AgentRoundInput,
    AgentRoundStatus,
    AgentSkipInput,
    AgentStartPlacementInput,
    AgentStartRoundInput,
)
from slea.contracts.scoring import AnswerRequest, ScoreAnswerOutput
from slea.contracts.sessions import (
    CreateSessionRequest,
    PlacementNext,
    RoundStarted,
    SessionCreated,
    SkipRecorded,
    StartRoundRequest,
)
from slea.contracts.validation import ValidationResult
from slea.logic.sessions import use_cases as sessions
from slea.platform.errors import DomainError, Forbidden
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


def score_and_explain(caller: Caller, request: AgentAnswerInput) -> ScoreAnswerOutput:
    answer = AnswerRequest(question_id=request.question_id, user_answer=request.user_answer)
    return sessions.answer_question(request.session_id, caller.user_id, answer)


def skip_question(caller: Caller, request: AgentSkipInput) -> SkipRecorded:
    """The caller skips a question of their own session: it counts as a wrong answer, once."""
    return sessions.skip_question(request.session_id, caller.user_id, request.question_id)


def start_round(caller: Caller, request: AgentStartRoundInput) -> RoundStarted:
    """Starts the round's state machine and returns at once; get_round follows it."""
    start = StartRoundRequest.model_validate(request.model_dump(exclude={"session_id"}))
    if request.session_id:
        return sessions.start_round(request.session_id, caller.user_id, start)
    # A new session for this round only: a refused start (the rate limit, the daily quota) leaves
    # nothing behind, so refused calls cannot pile up empty sessions.
    session_id = sessions.create_session(caller.user_id).session_id
    try:
        return sessions.start_round(session_id, caller.user_id, start)
    except DomainError:
        sessions.discard_new_session(session_id, caller.user_id)
        raise


def get_round(caller: Caller, request: AgentRoundInput) -> AgentRoundStatus:
    status = sessions.round_status(request.session_id, caller.user_id, request.round)
    shown = sessions.list_questions(request.session_id, caller.user_id).questions
    return AgentRoundStatus(
        **status.model_dump(), questions=[question for question in shown if question.round == request.round]
    )


def start_placement(caller: Caller, request: AgentStartPlacementInput) -> SessionCreated:
    """A new placement test (POST /sessions {purpose: placement}): the same use case."""
    return sessions.create_session(
        caller.user_id, request=CreateSessionRequest(purpose="placement", category=request.category)
    )


def next_placement_question(caller: Caller, request: AgentPlacementInput) -> PlacementNext:
    """A placement test's open question, its next one or its result (POST /sessions/{id}/next);
    answers go through score_and_explain, as any session's question."""
    return sessions.next_placement_question(request.session_id, caller.user_id)


def as_json(result: Any) -> Any:
    """A tool's result as JSON data (a list of contracts for Tool 2)."""
    if isinstance(result, list):
        return [item.model_dump(mode="json") for item in result]
    # As the Lambda functions answer: Tool 4 leaves out its unset `error`.
    return result.model_dump(mode="json", exclude_none=isinstance(result, ValidationResult))
