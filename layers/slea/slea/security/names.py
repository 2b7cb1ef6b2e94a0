"""A person's display name from their token's claims, safe to show to other people."""

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

# Longest display name kept with an action or a session (a token's `name` or `email` claim).
NAME_MAX = 128
_SPACES = re.compile(r"\s+")


def display_name(claims: Mapping[str, Any] | None, subject: str) -> str:
    """The name to record with a reviewer's action or a learner's session: the token's `name`,
    else its `email` (a Cognito ID token, which the web app sends, carries it), else its user name
    (an access token carries only `username`), else the subject. Control and format characters (bidirectional overrides
    among them) are dropped and the name bounded, so a claim cannot reorder or flood what other
    people read."""
    for claim in ("name", "email", "cognito:username", "username"):
        value = (claims or {}).get(claim)
        if isinstance(value, str):
            kept = "".join(c for c in value if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
            cleaned = _SPACES.sub(" ", kept).strip()[:NAME_MAX]
            if cleaned:
                return cleaned
    return subject
