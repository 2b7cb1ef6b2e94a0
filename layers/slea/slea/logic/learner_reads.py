"""The learner's own records as their agent reads them (the MCP server, functions/mcp): the
survey profile (Tool 1) and the measured ability, each only the caller's own. The MCP server loads
this module with the first call of one of them: the learner model's reads are no part of the
cold start of a server whose calls are mostly answers."""

from slea.contracts.ability import AgentAbilityInput, LearnerAbility
from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.logic.learners import ability, profile
from slea.platform.errors import Forbidden
from slea.security.roles import Caller


def get_user_profile(caller: Caller, request: GetUserProfileInput) -> UserProfile:
    if request.user_id.lower() != caller.user_id.lower():
        raise Forbidden("FORBIDDEN", "user_id: an agent may read only its own user's profile")
    return profile.get_user_profile(request)


def get_ability(caller: Caller, request: AgentAbilityInput) -> LearnerAbility:
    """The caller's own ability: the tool takes no user id, so no agent reads another learner's."""
    return ability.learner_ability(caller.user_id, request.category)
