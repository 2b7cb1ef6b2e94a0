"""The tools as LLM agents call them (the MCP server, functions/mcp): the same logic as the Lambda
functions and the HTTP API, with the HTTP API's rules for whoever calls. Each function takes the
caller (the token's subject and roles, or the stdio server's user) and its validated contract.

Least privilege (Step Functions is trusted, an agent is not):
- A learner's agent reads its own profile and its own measured ability, starts and follows its
  own rounds and placement tests, and answers (or skips, counted as wrong) the items of its own
  sessions (graded against the key looked up server-side, one graded answer per question, as POST
  /sessions/{id}/answers).
- The authoring tools hand out or write answer material (concept records, templates with their
  keys, an item with a chosen key): only callers with the author role (slea.security.roles) may call them.
  An author's item is kept outside every session (session_id `authored#{author}`, which no
  session id can be: they match ^[A-Za-z0-9_-]+$), so it is never in anyone's graded round; it
  waits in the review queue (reason "authored").
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from slea.contracts.ability import AgentAbilityInput, LearnerAbility
from slea.contracts.agent import (
    AgentAnswerInput,
    AgentPlacementInput,
    AgentRoundInput,
    AgentRoundStatus,
    AgentSkipInput,
    AgentStartPlacementInput,
    AgentStartRoundInput,
)
from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.contracts.questions import SaveQuestionInput, SaveQuestionResult, SaveQuestionSaved
from slea.contracts.scoring import AnswerRequest, ScoreAnswerOutput
from slea.contracts.sessions import (
    CreateSessionRequest,
    PlacementNext,
    RoundStarted,
    SessionCreated,
    SkipRecorded,
    StartRoundRequest,
)
from slea.contracts.templates import QuestionTemplate, SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionInput, ValidationResult
from slea.dal import questions
from slea.logic.sessions import use_cases as sessions
from slea.platform.clock import utc_now
from slea.platform.errors import DomainError, Forbidden
from slea.security.roles import AUTHOR_GROUP, Caller

AUTHORED_SESSION_PREFIX = "authored#"
AUTHORING_TOOLS: set[str] = set()  # filled by @authoring


def may_call(caller: Caller, tool: str) -> bool:
    return caller.author or tool not in AUTHORING_TOOLS


def require_may_call(caller: Caller, tool: str) -> None:
    """Forbidden, naming the tool and the role it needs."""
    if not may_call(caller, tool):
        raise Forbidden(
            "FORBIDDEN",
            f"{tool} is an authoring tool: it needs the '{AUTHOR_GROUP}' group",
        )


def authoring[Request, Result](tool: Callable[[Caller, Request], Result]) -> Callable[[Caller, Request], Result]:
    """Marks a tool as one for authors only, and refuses anyone else at the tool itself too."""
    AUTHORING_TOOLS.add(tool.__name__)

    @wraps(tool)
    def guarded(caller: Caller, request: Request) -> Result:
        require_may_call(caller, tool.__name__)
        return tool(caller, request)

    return guarded


def get_user_profile(caller: Caller, request: GetUserProfileInput) -> UserProfile:
    from slea.logic.learners.profile import get_user_profile as tool  # noqa: PLC0415 - only this tool needs it

    if request.user_id.lower() != caller.user_id.lower():
        raise Forbidden("FORBIDDEN", "user_id: an agent may read only its own user's profile")
    return tool(request)


@authoring
def search_question_templates(caller: Caller, request: SearchTemplatesInput) -> list[QuestionTemplate]:
    from slea.logic.generation.templates import search_question_templates as tool  # noqa: PLC0415

    return tool(request)


@authoring
def get_difficulty_keywords(caller: Caller, request: GetKeywordsInput) -> DifficultyKeywords:
    from slea.logic.generation.keywords import get_difficulty_keywords as tool  # noqa: PLC0415

    return tool(request)


@authoring
def validate_question_quality(caller: Caller, request: ValidateQuestionInput) -> ValidationResult:
    from slea.logic.generation.validation import validate_question_quality as tool  # noqa: PLC0415

    return tool(request)


def authored_placement(author: str, at: str) -> dict[str, Any]:
    """Where an author's item is kept: outside every session, waiting for a reviewer."""
    return {
        **questions.queue_fields("authored", at),
        "session_id": f"{AUTHORED_SESSION_PREFIX}{author}",
        "origin": "author",
        "authored_by": author,
    }


@authoring
def save_generated_question(caller: Caller, request: SaveQuestionInput) -> SaveQuestionResult:
    """Tool 5 for an author. The item is filed under the author's own round id
    (`authored#{author}_{round_id}`): a question of a learner's round is never its twin, so saving
    cannot confirm a learner's key by colliding with its id. It is written at once: a failed
    write is an error the author can retry, not a retry-queue message (which would lose the
    placement)."""
    from slea.logic.generation.saving import question_id_of, store  # noqa: PLC0415

    filed = request.model_copy(update={"round_id": f"{AUTHORED_SESSION_PREFIX}{caller.user_id}_{request.round_id}"})
    question_id = question_id_of(filed)
    saved_at = store(filed, question_id, authored_placement(caller.user_id, utc_now()))
    return SaveQuestionSaved(question_id=question_id, round_id=filed.round_id, saved_at=saved_at)


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


def get_ability(caller: Caller, request: AgentAbilityInput) -> LearnerAbility:
    """The caller's own ability: the tool takes no user id, so no agent reads another learner's."""
    from slea.logic.learners.ability import learner_ability  # noqa: PLC0415 - only this tool needs it

    return learner_ability(caller.user_id, request.category)


def as_json(result: Any) -> Any:
    """A tool's result as JSON data (a list of contracts for Tool 2)."""
    if isinstance(result, list):
        return [item.model_dump(mode="json") for item in result]
    # As the Lambda functions answer: Tool 4 leaves out its unset `error`.
    return result.model_dump(mode="json", exclude_none=isinstance(result, ValidationResult))
