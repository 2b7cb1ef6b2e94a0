"""The caller as a learner: their measured ability per category, and its history."""

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from slea.contracts.ability import LearnerAbility
from slea.contracts.error_response import ErrorResponse
from slea.http.api import caller

router = APIGatewayHttpRouter()  # type: ignore[no-untyped-call]


@router.get(
    "/learners/me/ability",
    summary="The caller's ability per category (logit scale, with its standard error and level) and its history",
    responses={
        200: {
            "description": "The abilities and the newest history points, oldest first",
            "content": {"application/json": {"model": LearnerAbility}},
        },
        401: {
            "description": "No bearer token, or one without a subject",
            "content": {"application/json": {"model": ErrorResponse}},
        },
        503: {
            "description": "Storage is temporarily unavailable; retry",
            "content": {"application/json": {"model": ErrorResponse}},
        },
    },
)
def get_my_ability() -> LearnerAbility:
    from slea.logic.learners.ability import learner_ability  # noqa: PLC0415 - loaded by the first such request

    return learner_ability(caller(router))
