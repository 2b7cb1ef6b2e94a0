"""Who is calling and what they may do: the one place roles are decided.

- Reviewer: `cognito:groups` contains `reviewers` (a Cognito user pool group), or `scope`
  contains `slea/review` (an OAuth resource-server scope, e.g. for a machine client).
- Author: `cognito:groups` contains `authors`, or `scope` contains `slea/author`. Authors write
  items for the bank (the MCP authoring tools); learners only answer their own.

Membership is an exact match of the name. Cognito group names may hold punctuation but never
whitespace, so a list's items are split on whitespace only: "reviewers,x" is a group of its own,
not `reviewers`. API Gateway's HTTP API hands a JWT authorizer's array claim to the function as
one string, "[reviewers admins]"; a list (a claim not yet through API Gateway) is taken as it is.
`scope` is space-separated (RFC 6749, section 3.3)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from slea.contracts.profile import normalised_user_id

REVIEWER_GROUP = "reviewers"
REVIEW_SCOPE = "slea/review"
AUTHOR_GROUP = "authors"
AUTHOR_SCOPE = "slea/author"


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


def scopes(value: Any) -> frozenset[str]:
    """The scopes of a `scope` claim: one space-separated string (or a list)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(item) for item in value)
    return frozenset(value.split()) if isinstance(value, str) else frozenset()


def _has_role(claims: Mapping[str, Any] | None, group: str, scope: str) -> bool:
    claims = claims or {}
    return group in groups(claims.get("cognito:groups")) or scope in scopes(claims.get("scope"))


def is_reviewer(claims: Mapping[str, Any] | None) -> bool:
    return _has_role(claims, REVIEWER_GROUP, REVIEW_SCOPE)


def is_author(claims: Mapping[str, Any] | None) -> bool:
    return _has_role(claims, AUTHOR_GROUP, AUTHOR_SCOPE)


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
