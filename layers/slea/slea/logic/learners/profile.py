"""Tool 1: the user's latest self-assessment survey, or the spec's fallback profile."""

from pydantic import ValidationError

from slea.constants import FALLBACK_PROFILE
from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.dal import profiles
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer


def fallback_profile(user_id: str) -> UserProfile:
    return UserProfile.model_validate({**FALLBACK_PROFILE, "user_id": user_id})


@tracer.capture_method
def get_user_profile(request: GetUserProfileInput) -> UserProfile:
    profile = _latest_profile(request)
    # 0 or 1 on every call, so the metric's average is the fallback rate.
    metrics.add_metric(name="ProfileFallback", unit="Count", value=0 if profile else 1)
    return profile or fallback_profile(request.user_id)


def _latest_profile(request: GetUserProfileInput) -> UserProfile | None:
    try:
        survey = profiles.latest_survey(request.user_id)
    except DataAccessError as error:
        logger.warning("profile lookup failed, serving the fallback profile", extra={"reason": str(error)})
        return None
    if survey is None:
        logger.info("user has no survey, serving the fallback profile")
        return None
    try:
        return UserProfile.model_validate({**survey, "user_id": request.user_id})
    except ValidationError as error:
        logger.warning("stored survey is malformed, serving the fallback profile", extra={"fields": _fields(error)})
        return None


def _fields(error: ValidationError) -> list[str]:
    return [".".join(map(str, problem["loc"])) for problem in error.errors()]
