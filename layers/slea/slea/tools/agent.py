"""The tools as LLM agents call them (the MCP server, functions/mcp): the same logic as the Lambda
functions and the HTTP API, with the HTTP API's rules for whoever calls. Each function takes the
caller (the token's subject, or the stdio server's user) and its validated contract.

Restricted compared with direct invocation (Step Functions is trusted, an agent is not):
- get_user_profile: only the caller's own profile.
- save_generated_question: only into a round of one of the caller's sessions (round_id's session).
- score_and_explain: only a stored question of one of the caller's sessions, graded against the
  key looked up server-side, one graded answer per question (as POST /sessions/{id}/answers).
"""

from typing import Any

from slea.contracts.agent import AgentAnswerInput, AgentRoundInput, AgentRoundStatus, AgentStartRoundInput
from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.contracts.questions import SaveQuestionInput, SaveQuestionResult, parse_round_id
from slea.contracts.scoring import AnswerRequest, ScoreAnswerOutput
from slea.contracts.sessions import RoundStarted, StartRoundRequest
from slea.contracts.templates import QuestionTemplate, SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionInput, ValidationResult
from slea.tools import sessions
from slea.tools.errors import ApiError


def get_user_profile(caller: str, request: GetUserProfileInput) -> UserProfile:
    from slea.tools.user_profile import get_user_profile as tool  # noqa: PLC0415 - only this tool needs it

    if request.user_id.lower() != caller.lower():
        raise ApiError(403, "FORBIDDEN", "user_id: an agent may read only its own user's profile")
    return tool(request)


def search_question_templates(caller: str, request: SearchTemplatesInput) -> list[QuestionTemplate]:
    from slea.tools.question_templates import search_question_templates as tool  # noqa: PLC0415

    return tool(request)


def get_difficulty_keywords(caller: str, request: GetKeywordsInput) -> DifficultyKeywords:
    from slea.tools.difficulty_keywords import get_difficulty_keywords as tool  # noqa: PLC0415

    return tool(request)


def validate_question_quality(caller: str, request: ValidateQuestionInput) -> ValidationResult:
    from slea.tools.validate_question import validate_question_quality as tool  # noqa: PLC0415

    return tool(request)


def save_generated_question(caller: str, request: SaveQuestionInput) -> SaveQuestionResult:
    from slea.tools.save_question import save_generated_question as tool  # noqa: PLC0415

    sessions.require_owner(parse_round_id(request.round_id).session_id, caller)
    return tool(request)


def score_and_explain(caller: str, request: AgentAnswerInput) -> ScoreAnswerOutput:
    answer = AnswerRequest(question_id=request.question_id, user_answer=request.user_answer)
    return sessions.answer_question(request.session_id, caller, answer)


def start_round(caller: str, request: AgentStartRoundInput) -> RoundStarted:
    """Starts the round's state machine and returns at once; get_round follows it."""
    session_id = request.session_id or sessions.create_session(caller).session_id
    start = StartRoundRequest.model_validate(request.model_dump(exclude={"session_id"}))
    return sessions.start_round(session_id, caller, start)


def get_round(caller: str, request: AgentRoundInput) -> AgentRoundStatus:
    status = sessions.round_status(request.session_id, caller, request.round)
    shown = sessions.list_questions(request.session_id, caller).questions
    return AgentRoundStatus(
        **status.model_dump(), questions=[question for question in shown if question.round == request.round]
    )


def as_json(result: Any) -> Any:
    """A tool's result as JSON data (a list of contracts for Tool 2)."""
    if isinstance(result, list):
        return [item.model_dump(mode="json") for item in result]
    # As the Lambda functions answer: Tool 4 leaves out its unset `error`.
    return result.model_dump(mode="json", exclude_none=isinstance(result, ValidationResult))
