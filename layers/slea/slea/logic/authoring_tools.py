"""The authoring tools as an author's agent calls them (the MCP server, functions/mcp): Tools 2-5,
the same logic as the Lambda functions. They hand out or write answer material (concept records,
templates with their keys, an item with a chosen key), so only callers with the author role may
call them: each refuses anyone else itself, whoever called it (slea.logic.agent names them).

An author's item is kept outside every session (session_id `authored#{author}`, which no session
id can be: they match ^[A-Za-z0-9_-]+$), so it is never in anyone's graded round; it waits in the
review queue (reason "authored").

The MCP server loads this module with an author's first call of one of them: Tool 4's word lists
and rapidfuzz stay out of every other cold start.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.contracts.questions import SaveQuestionInput, SaveQuestionResult, SaveQuestionSaved
from slea.contracts.templates import QuestionTemplate, SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionInput, ValidationResult
from slea.dal import questions
from slea.logic.agent import AUTHORING_TOOLS, require_may_call
from slea.logic.generation import keywords, saving, templates, validation
from slea.platform.clock import utc_now
from slea.security.roles import Caller

AUTHORED_SESSION_PREFIX = "authored#"


def authoring[Request, Result](tool: Callable[[Caller, Request], Result]) -> Callable[[Caller, Request], Result]:
    """An authoring tool refuses anyone without the author role at the tool itself too."""
    if tool.__name__ not in AUTHORING_TOOLS:  # tools/list leaves out only the tools named there
        raise NameError(f"{tool.__name__} must be named in slea.logic.agent.AUTHORING_TOOLS")

    @wraps(tool)
    def guarded(caller: Caller, request: Request) -> Result:
        require_may_call(caller, tool.__name__)
        return tool(caller, request)

    return guarded


@authoring
def search_question_templates(caller: Caller, request: SearchTemplatesInput) -> list[QuestionTemplate]:
    return templates.search_question_templates(request)


@authoring
def get_difficulty_keywords(caller: Caller, request: GetKeywordsInput) -> DifficultyKeywords:
    return keywords.get_difficulty_keywords(request)


@authoring
def validate_question_quality(caller: Caller, request: ValidateQuestionInput) -> ValidationResult:
    return validation.validate_question_quality(request)


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
    filed = request.model_copy(update={"round_id": f"{AUTHORED_SESSION_PREFIX}{caller.user_id}_{request.round_id}"})
    question_id = saving.question_id_of(filed)
    saved_at = saving.store(filed, question_id, authored_placement(caller.user_id, utc_now()))
    return SaveQuestionSaved(question_id=question_id, round_id=filed.round_id, saved_at=saved_at)
