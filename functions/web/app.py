"""The web app on the HTTP API, without a token (template.yaml: Auth NONE on these routes only):

GET /                the learner app
GET /review          the reviewer app (the review routes themselves are refused to non-reviewers)
GET /assets/{file}   its scripts and style sheet
GET /config.json     how the pages sign in: the local stand-in token, or OAuth 2 (code + PKCE)

The pages are static files shipped with this function (static/), read once per execution
environment; nothing here touches AWS, so the function has no policy.
"""

import gc

# Cyclic garbage collection is paused while the modules below load (cold start), as in every handler.
gc.disable()

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.platform.observability import logger

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {"/": "learner.html", "/review": "review.html"}
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Only same-origin scripts, styles and API calls: no inline script, nothing from a CDN. The
# token endpoint is the one other origin a page talks to (the OAuth code exchange).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{token};"
    " frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def _load_static() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in STATIC.iterdir() if path.suffix in CONTENT_TYPES}


FILES = _load_static()
ASSETS = {name for name in FILES if not name.endswith(".html")}


def local_learners() -> list[dict[str, str]]:
    """Under the local runtime only: the seeded learners (their latest profile each), so the local
    sign-in can act as one of them. The seed file is named by the local runtime and never set in
    AWS; even if it were, this is read only with SLEA_LOCAL_RUNTIME."""
    path = os.environ.get("SLEA_LOCAL_SEED_FILE")
    if not os.environ.get("SLEA_LOCAL_RUNTIME") or not path or not Path(path).is_file():
        return []
    profiles = json.loads(Path(path).read_text(encoding="utf-8")).get("profiles") or []
    latest: dict[str, dict[str, Any]] = {}
    for profile in sorted(profiles, key=lambda p: str(p.get("submitted_at", ""))):
        latest[str(profile["user_id"]).lower()] = profile
    return [
        {"user_id": user_id, "job_role": str(p.get("job_role", "")), "language": str(p.get("language") or "en")}
        for user_id, p in latest.items()
    ]


def sign_in_config() -> dict[str, Any]:
    """`local` under the local runtime (the page mints the stand-in token slea_local.http reads),
    else the identity provider's OAuth endpoints and app client from template.yaml's parameters.
    The local runtime with signed tokens has the user pool's hosted sign-in at its own address
    (SLEA_LOCAL_HOSTED_SIGN_IN, with the OAUTH_* URLs pointing there): the pages use OAuth too."""
    if os.environ.get("SLEA_LOCAL_RUNTIME") and not os.environ.get("SLEA_LOCAL_HOSTED_SIGN_IN"):
        learners = local_learners()
        return {"mode": "local", "learners": learners} if learners else {"mode": "local"}
    return {
        "mode": "oauth",
        "authorize_url": os.environ.get("OAUTH_AUTHORIZE_URL", ""),
        "token_url": os.environ.get("OAUTH_TOKEN_URL", ""),
        "client_id": os.environ.get("OAUTH_CLIENT_ID", ""),
        "scope": os.environ.get("OAUTH_SCOPE", ""),
    }


def _token_origin() -> str:
    url = os.environ.get("OAUTH_TOKEN_URL", "")
    parts = url.split("/")
    return f" {parts[0]}//{parts[2]}" if url.startswith("https://") and len(parts) > 2 else ""


def _response(status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {
            "content-type": content_type,
            "x-content-type-options": "nosniff",
            # An OAuth code in the address must not leak to another site through Referer.
            "referrer-policy": "no-referrer",
            "content-security-policy": CSP.format(token=_token_origin()),
            **(headers or {}),
        },
        "body": body.decode("utf-8"),
        "isBase64Encoded": False,
    }


def _not_found(path: str) -> dict[str, Any]:
    body = {"error": f"no page at {path}", "error_code": "NOT_FOUND", "detail": None}
    return _response(404, json.dumps(body).encode(), "application/json")


def serve(method: str, path: str, if_none_match: str | None) -> dict[str, Any]:
    if method != "GET":
        return _not_found(path)
    if path == "/config.json":
        return _response(200, json.dumps(sign_in_config()).encode(), "application/json", {"cache-control": "no-store"})
    if path in PAGES:
        name = PAGES[path]
    elif path.startswith("/assets/") and path.removeprefix("/assets/") in ASSETS:
        name = path.removeprefix("/assets/")
    else:  # only the files shipped in static/, never a path built from the request
        return _not_found(path)
    content = FILES[name]
    # Revalidated on every load (a deploy changes them at once), answered 304 when unchanged.
    etag = '"' + hashlib.sha256(content).hexdigest()[:32] + '"'
    headers = {"cache-control": "no-cache", "etag": etag}
    if if_none_match == etag:
        return {"statusCode": 304, "headers": headers, "body": "", "isBase64Encoded": False}
    return _response(200, content, CONTENT_TYPES[Path(name).suffix], headers)


def _request(event: Any) -> tuple[str, str, str | None]:
    """(method, path, If-None-Match) of an HTTP API payload 2.0 event. A malformed envelope is
    refused naming its field (without pydantic: these pages must stay light to load)."""
    if not isinstance(event, dict):
        raise TypeError("event must be an HTTP API (payload 2.0) event object")
    context = event.get("requestContext")
    if not isinstance(context, dict) or not isinstance(context.get("http"), dict):
        raise ValueError("requestContext.http: missing (not an HTTP API payload 2.0 event)")
    method = context["http"].get("method")
    if not isinstance(method, str):
        raise ValueError("requestContext.http.method: must be a string")
    path = event.get("rawPath", "/")
    if not isinstance(path, str):
        raise ValueError("rawPath: must be a string")
    headers = event.get("headers") or {}
    if not isinstance(headers, dict):
        raise ValueError("headers: must be an object")
    etag = {str(key).lower(): value for key, value in headers.items()}.get("if-none-match")
    return method, path, etag if isinstance(etag, str) else None


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return serve(*_request(event))


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
