"""Shared pieces of the HTTP API: who is calling, and the ErrorResponse body of every error."""

import base64
import binascii
import json
from typing import Any, Protocol

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from slea.constants import MAX_BODY_BYTES
from slea.contracts.common import ID_PATTERN
from slea.contracts.error_response import ErrorResponse
from slea.contracts.profile import normalised_user_id
from slea.platform import errors
from slea.platform.errors import Forbidden, Unauthenticated
from slea.security import rate_limits
from slea.security.roles import is_reviewer

SESSION_ID_PATTERN = ID_PATTERN


class HasCurrentEvent(Protocol):
    """The resolver or one of its routers (Powertools' APIGatewayHttpRouter): either holds the
    request being handled as `current_event`."""

    @property
    def current_event(self) -> APIGatewayProxyEventV2: ...


def caller(source: HasCurrentEvent) -> str:
    """The JWT's subject (API Gateway's authorizer has verified the token), normalised once here:
    a UUID subject lower-cased, so "ABC..." and "abc..." are one user (sessions, quota, limits)."""
    claims = source.current_event.request_context.authorizer.jwt_claim or {}
    subject = claims.get("sub")
    if not subject:
        raise Unauthenticated("UNAUTHORIZED", "a bearer token with a subject is required")
    return normalised_user_id(str(subject))


REVIEW_PREFIX = "/review"


def is_review_path(path: str) -> bool:
    return path == REVIEW_PREFIX or path.startswith(REVIEW_PREFIX + "/")


def review_refusal(event: dict[str, Any]) -> dict[str, Any] | None:
    """403 for a caller without the reviewer role on any review path, else None. Checked before
    routing, so no review route (nor its request validation) is reached without the role."""
    path = str(event.get("rawPath") or "")
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt", {}).get("claims")
    if not is_review_path(path) or is_reviewer(claims):
        return None
    return _gateway_error(403, "FORBIDDEN", "reviewing needs the reviewer role")


def reviewer(source: HasCurrentEvent) -> str:
    """The reviewing caller's subject: 401 without a subject, 403 without the reviewer role."""
    subject = caller(source)
    if not is_reviewer(source.current_event.request_context.authorizer.jwt_claim):
        raise Forbidden("FORBIDDEN", "reviewing needs the reviewer role")
    return subject


REVIEWER_KEY = "reviewer"  # in the resolver's per-request context: who reviewers_only let through


def reviewers_only(app: APIGatewayHttpResolver, next_middleware: NextMiddleware) -> Response[Any]:
    """The review router's middleware (router.use): a review route runs only for a reviewer (401
    without a subject, 403 without the role, as `reviewer` refuses) and reads who with `reviewing`.
    It runs after request validation, as a check inside each route would. The handler has refused
    non-reviewers before routing already (app.py: review_refusal); this holds for whatever reaches
    the resolver.

    Powertools' include_router merges a router's middlewares into the resolver's, which runs them
    for every route, its other routers' too: the check applies to review paths only."""
    if is_review_path(app.current_event.path):
        app.context[REVIEWER_KEY] = reviewer(app)
    return next_middleware(app)


class HasContext(Protocol):
    """The resolver or one of its routers: the context of the request being handled."""

    @property
    def context(self) -> dict[str, Any]: ...


def reviewing(source: HasContext) -> str:
    """The subject of the reviewer that reviewers_only let through for this request."""
    who = source.context.get(REVIEWER_KEY)
    if not isinstance(who, str):
        raise RuntimeError("a review route was reached without the reviewers_only middleware")
    return who


def error_response(
    status: int, code: str, message: str, detail: str | None = None, *, retry_after: int | None = None
) -> Response[Any]:
    body = ErrorResponse(error=message, error_code=code, detail=detail)
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return Response(status_code=status, content_type="application/json", body=body.model_dump_json(), headers=headers)


# The one place a domain refusal becomes an HTTP status (the MCP server maps the same classes to
# tool errors). A subclass maps as its nearest listed ancestor.
STATUS_OF_REFUSAL: dict[type[errors.DomainError], int] = {
    errors.Invalid: 422,
    errors.Unauthenticated: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.RateLimited: 429,
    errors.Unavailable: 503,
}


def status_of(error: errors.DomainError) -> int:
    for kind in type(error).__mro__:
        if kind in STATUS_OF_REFUSAL:
            return STATUS_OF_REFUSAL[kind]
    return 400


def domain_error_response(error: errors.DomainError) -> Response[Any]:
    return error_response(status_of(error), error.code, error.message, retry_after=error.retry_after)


def validation_error_response(error: RequestValidationError) -> Response[Any]:
    """422 naming the offending field, in the ErrorResponse shape (not Powertools' default)."""
    problems = error.errors()
    first = problems[0] if problems else {"loc": (), "msg": "invalid request"}
    location = [part for part in first.get("loc", ()) if isinstance(part, str)]
    field = ".".join(part for part in location if part not in ("body", "path", "query")) or "body"
    message = f"{field}: {first.get('msg', 'invalid value')}"
    detail = json.dumps([{"field": ".".join(map(str, p.get("loc", ()))), "type": p.get("type")} for p in problems])
    return error_response(422, "VALIDATION_ERROR", message, detail)


def documented(description: str, model: type[Any]) -> OpenAPIResponse:
    """One response as a route documents it (OpenAPI): what it means and its JSON body's model."""
    return {"description": description, "content": {"application/json": {"model": model}}}


def documented_refusal(description: str) -> OpenAPIResponse:
    """A documented refusal: every error a route can give has the ErrorResponse body."""
    return documented(description, ErrorResponse)


def _no_subject() -> OpenAPIResponse:
    return documented_refusal("No bearer token, or one without a subject")


def responses(status: int, model: type[Any], description: str, *, too_fast: str | None = None) -> dict[int, Any]:
    """A route's documented responses: its success, and the errors every session route can give;
    with `too_fast` (what the caller did too fast), the 429 of the route's own limit."""
    documented_responses = {
        status: documented(description, model),
        401: _no_subject(),
        403: documented_refusal("The session belongs to another user"),
        404: documented_refusal("Unknown session or question"),
        409: documented_refusal(
            "The question has already been answered, was retired by a reviewer, or its round is over"
        ),
        413: documented_refusal("The body is larger than 64 KiB"),
        415: documented_refusal("The body is not declared as application/json"),
        503: documented_refusal("Storage, or starting the round, is temporarily unavailable; retry"),
    }
    if too_fast is not None:
        documented_responses[429] = documented_refusal(
            f"The caller has {too_fast}; the Retry-After header says in how many seconds to try again"
        )
    return documented_responses


def caller_responses(
    status: int, model: type[Any], description: str, *, forbidden: str | None = None
) -> dict[int, Any]:
    """The documented responses of a route that needs nothing but its caller: its success, no
    subject, `forbidden` (why the subject itself is refused, where it can be) and storage down."""
    documented_responses = {status: documented(description, model), 401: _no_subject()}
    if forbidden is not None:
        documented_responses[403] = documented_refusal(forbidden)
    documented_responses[503] = documented_refusal("Storage is temporarily unavailable; retry")
    return documented_responses


def review_responses(status: int, model: type[Any], description: str) -> dict[int, Any]:
    """A review route's documented responses."""
    return {
        status: documented(description, model),
        401: _no_subject(),
        403: documented_refusal("The caller does not have the reviewer role"),
        404: documented_refusal("Unknown attempt or question"),
        409: documented_refusal("The item changed while it was reviewed, or is retired"),
        503: documented_refusal("Storage is temporarily unavailable; retry"),
    }


def openapi_document(app: APIGatewayHttpResolver) -> dict[str, Any]:
    """The API's OpenAPI document. Powertools documents every 422 as its HTTPValidationError
    (whose schema marks `msg` required although its body omits it); our 422 body is
    ErrorResponse, so the shared component is made to say so — once, where all 422s point."""
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer  # noqa: PLC0415 - docs only

    document: dict[str, Any] = json.loads(
        app.get_openapi_json_schema(
            title="slea-ssem Mode 2 API",
            version="1.0.0",
            description="Adaptive testing sessions: start rounds, read questions, answer and get graded.",
            security_schemes={"bearerAuth": HTTPBearer(bearerFormat="JWT")},
            security=[{"bearerAuth": []}],
        )
    )
    schemas = document["components"]["schemas"]
    schemas.setdefault("ErrorResponse", ErrorResponse.model_json_schema())
    schemas["HTTPValidationError"] = {"$ref": "#/components/schemas/ErrorResponse"}
    for unused in ("ResponseValidationError", "ValidationError"):  # only each other refer to them now
        schemas.pop(unused, None)
    if "schemas/ValidationError" in json.dumps(document["paths"]):
        raise RuntimeError("a route still refers to Powertools' ValidationError schema")
    # Every route can answer 429: the per-user request budget is spent before routing (over_budget).
    over = {
        "description": "Too many requests from this user (the per-user budget, or the action's own); see Retry-After",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
    }
    for operations in document["paths"].values():
        for operation in operations.values():
            operation.setdefault("responses", {}).setdefault("429", over)
    return document


def _subject(event: dict[str, Any]) -> str | None:
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt", {}).get("claims") or {}
    subject = claims.get("sub") if isinstance(claims, dict) else None
    return normalised_user_id(str(subject)) if subject else None


def over_budget(event: dict[str, Any]) -> dict[str, Any] | None:
    """429 with Retry-After when the caller has spent their per-user request budget
    (slea.security.rate_limits), else None. Checked first, before anything reads storage or
    routes: every authenticated request counts, whatever it asks and however it ends (a listing,
    a repeat, an unknown id, a refused body). A request without a subject is refused by its route
    (401) and spends nothing: it reaches no one's data."""
    subject = _subject(event)
    if subject is None:
        return None
    try:
        rate_limits.take(subject, "request")
    except errors.RateLimited as refused:
        return _gateway_error(429, refused.code, refused.message, retry_after=refused.retry_after)
    return None


def unparseable_body(event: dict[str, Any]) -> dict[str, Any] | None:
    """The API Gateway response for a body no route could read (422 naming `body`, as route
    validation answers, or 413), else None. Checked before routing
    because Python's own limits raise outside any validation: JSON nested 100,000 deep is a
    RecursionError, an integer of 4,300+ digits a ValueError, and both would answer 500."""
    body = event.get("body")
    if not body:
        return None
    raw = body.encode() if isinstance(body, str) else body
    if event.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            return _gateway_error(422, "VALIDATION_ERROR", "body: not valid base64")
    if len(raw) > MAX_BODY_BYTES:
        return _gateway_error(413, "BODY_TOO_LARGE", f"body: larger than {MAX_BODY_BYTES} bytes")
    try:
        json.loads(raw)
    except RecursionError:
        return _gateway_error(422, "VALIDATION_ERROR", "body: JSON nested too deeply")
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, the int digit limit
        return _gateway_error(422, "VALIDATION_ERROR", f"body: not valid JSON ({str(error).split(':')[0]})")
    return None


def unsupported_media_type(event: dict[str, Any]) -> dict[str, Any] | None:
    """415 for a body declared as something other than JSON (a form, text/plain): refused rather
    than guessed at. A body without a content type is read as JSON, as before."""
    content_type = str((event.get("headers") or {}).get("content-type") or "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if not event.get("body") or not media_type:
        return None
    if media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json")):
        return None
    return _gateway_error(415, "UNSUPPORTED_MEDIA_TYPE", "content-type: the body must be application/json")


def _gateway_error(status: int, code: str, message: str, *, retry_after: int | None = None) -> dict[str, Any]:
    """A refusal answered before routing, as API Gateway takes it: the ErrorResponse body of
    `error_response`, with the same Retry-After header when the caller should wait."""
    body = ErrorResponse(error=message, error_code=code)
    headers = {"Content-Type": "application/json"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return {"statusCode": status, "headers": headers, "body": body.model_dump_json(), "isBase64Encoded": False}
