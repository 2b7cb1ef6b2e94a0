"""Tool 1 get_user_profile: the user's latest self-assessment survey, or the fallback
profile (echoing `user_id`) when there is none, it is malformed, or DynamoDB fails."""

from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.logic.learners import profile


def get_user_profile(request: GetUserProfileInput) -> UserProfile:
    return profile.get_user_profile(request)
