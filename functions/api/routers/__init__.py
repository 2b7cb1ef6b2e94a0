"""The HTTP API's routes, one Powertools router per resource (app.py includes them): sessions.py
(/sessions/...), learners.py (/learners/me/ability), review.py (/review/..., reviewers only);
and the parameter types they share."""

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path

from slea.http.api import SESSION_ID_PATTERN

SessionId = Annotated[str, Path(min_length=1, max_length=64, pattern=SESSION_ID_PATTERN)]
ItemId = Annotated[str, Path(min_length=1, max_length=128, pattern=SESSION_ID_PATTERN)]
CURSOR_PATTERN = r"^[A-Za-z0-9_\-]+$"  # base64url without padding
