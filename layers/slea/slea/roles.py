"""Who may review: the one place the reviewer role is decided.

A reviewer's JWT carries `cognito:groups` containing `reviewers` (a Cognito user pool group) or
`scope` containing `slea/review` (an OAuth resource-server scope, e.g. for a machine client).
API Gateway's HTTP API hands a JWT authorizer's array claims to the function as one string,
"[reviewers admins]"; a JSON list (as a local token carries it) and a comma- or space-separated
string are accepted too."""

import json
import re
from typing import Any

REVIEWER_GROUP = "reviewers"
REVIEW_SCOPE = "slea/review"


def claim_values(value: Any) -> set[str]:
    """A claim's values, whichever way the claim arrived."""
    if isinstance(value, (list, tuple, set)):
        return {str(item) for item in value}
    if not isinstance(value, str):
        return set()
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = json.loads(text)
        except ValueError:  # API Gateway's "[a b]" form is not JSON
            text = text[1:-1]
        else:
            return claim_values(parsed) if isinstance(parsed, list) else set()
    return {part for part in re.split(r"[\s,]+", text) if part}


def is_reviewer(claims: dict[str, Any] | None) -> bool:
    claims = claims or {}
    return REVIEWER_GROUP in claim_values(claims.get("cognito:groups")) or REVIEW_SCOPE in claim_values(
        claims.get("scope")
    )
