"""Who is calling and what they may do: the one place roles are decided.

- Reviewer: `cognito:groups` contains `reviewers` (a Cognito user pool group).
- Author: `cognito:groups` contains `authors`. Authors write items for the bank (the MCP
  authoring tools); learners only answer their own.

Roles come only from what the identity provider asserts about the user (its groups), never from a
`scope`: a user pool allows scopes per app client, not per user, so any user of the web app's
client may ask for any scope that client allows, and a scope would make every such user a reviewer.

Membership is an exact match of the name. Cognito group names may hold punctuation but never
whitespace, so a list's items are split on whitespace only: "reviewers,x" is a group of its own,
not `reviewers`. API Gateway's HTTP API hands a JWT authorizer's array claim to the function as
one string, "[reviewers admins]"; a list (a claim not yet through API Gateway) is taken as it is."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slea.contracts.profile import normalised_user_id

REVIEWER_GROUP = "reviewers"
AUTHOR_GROUP = "authors"
# The claim a Cognito user pool puts a user's groups in (ID and access tokens alike).
GROUPS_CLAIM = "cognito:groups"


def groups(value: Any) -> frozenset[str]:
    """The groups of a `cognito:groups` claim, whichever way the claim arrived."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(item) for item in value)
    if not isinstance(value, str):
        return frozenset()
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):  # API Gateway's form of an array claim
        text = text[1:-1]
    return frozenset(text.split())


def _in_group(claims: Mapping[str, Any] | None, group: str) -> bool:
    return group in groups((claims or {}).get(GROUPS_CLAIM))


def is_reviewer(claims: Mapping[str, Any] | None) -> bool:
    return _in_group(claims, REVIEWER_GROUP)


def is_author(claims: Mapping[str, Any] | None) -> bool:
    return _in_group(claims, AUTHOR_GROUP)


@dataclass(frozen=True)
class Caller:
    """A verified token's subject and the roles its claims give it."""

    user_id: str
    reviewer: bool = False
    author: bool = False

    @classmethod
    def from_claims(cls, claims: Mapping[str, Any] | None) -> "Caller | None":
        """None without a subject (no one to act for)."""
        subject = (claims or {}).get("sub")
        if not subject:
            return None
        # One user whatever the case of a UUID subject (sessions, quota and limits key on it).
        return cls(normalised_user_id(str(subject)), reviewer=is_reviewer(claims), author=is_author(claims))
