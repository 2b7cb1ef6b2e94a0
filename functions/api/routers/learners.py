"""The caller as a learner: their measured ability per category and its history, and their
answers across all their sessions."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from slea.contracts.ability import LearnerAbility
from slea.contracts.scoring import AttemptHistory
from slea.http.api import SESSION_ID_PATTERN, caller, caller_responses, responses

from . import CURSOR_PATTERN

HISTORY_PAGE_MAX = 20  # a page whose answers all held text back in different sessions reads 41 items

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]


@router.get(
    "/learners/me/ability",
    summary="The caller's ability per category (logit scale, with its standard error and level) and its history",
    responses=caller_responses(200, LearnerAbility, "The abilities and the newest history points, oldest first"),
)
def get_my_ability() -> LearnerAbility:
    from slea.logic.learners.ability import learner_ability  # noqa: PLC0415 - loaded by the first such request

    return learner_ability(caller(router))


@router.get(
    "/learners/me/attempts",
    summary="The caller's answers across all their sessions, newest first, a page at a time (optionally one session's)",
    responses=responses(200, AttemptHistory, "A page of answers"),
)
def list_my_attempts(
    limit: Annotated[int, Query(ge=1, le=HISTORY_PAGE_MAX)] = 20,
    cursor: Annotated[str | None, Query(min_length=1, max_length=1024, pattern=CURSOR_PATTERN)] = None,
    session_id: Annotated[str | None, Query(min_length=1, max_length=64, pattern=SESSION_ID_PATTERN)] = None,
) -> AttemptHistory:
    from slea.logic.sessions.history import learner_attempts  # noqa: PLC0415 - loaded by the first such request

    return learner_attempts(caller(router), limit, cursor, session_id)
