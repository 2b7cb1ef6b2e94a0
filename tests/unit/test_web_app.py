"""The web app's function (functions/web/app.py) and its static files, without a browser."""

import gzip
import json
from html.parser import HTMLParser

import pytest

from slea_local import REPO_ROOT
from slea_local.runtime import load_function_module
from slea_local.template import repository_template

STATIC = REPO_ROOT / "functions" / "web" / "static"
WEB_ROUTES = {("GET", "/"), ("GET", "/review"), ("GET", "/assets/{file}"), ("GET", "/config.json")}


@pytest.fixture(scope="module")
def web():
    return load_function_module("web")


def test_scripts_and_styles_fit_in_50_kb_gzipped():
    assets = [path for path in STATIC.iterdir() if path.suffix in (".js", ".css")]
    assert {path.name for path in assets} >= {"common.js", "learner.js", "review.js", "app.css"}
    total = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in assets)
    assert total <= 50 * 1024, f"{total} bytes gzipped"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.references: list[str] = []
        self.inline_scripts = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in ("src", "href"):
            if tag in ("script", "link") and attributes.get(name):
                self.references.append(attributes[name])
        self._in_script = tag == "script"

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts += 1

    def handle_endtag(self, tag):
        self._in_script = False


@pytest.mark.parametrize("page", ["learner.html", "review.html"])
def test_pages_load_only_their_own_assets(page):
    parsed = _Page()
    parsed.feed((STATIC / page).read_text(encoding="utf-8"))
    assets = [reference for reference in parsed.references if reference != "data:,"]
    assert assets
    assert all(reference.startswith("/assets/") for reference in assets)
    assert all((STATIC / reference.removeprefix("/assets/")).is_file() for reference in assets)
    assert parsed.inline_scripts == 0  # the CSP allows scripts from 'self' only


def _get(web, path, headers=None):
    return web.serve("GET", path, (headers or {}).get("if-none-match"))


def test_pages_and_assets_are_served_with_their_types(web):
    assert _get(web, "/")["headers"]["content-type"] == "text/html; charset=utf-8"
    assert "Start a practice round" in _get(web, "/")["body"]
    assert "Review queue" in _get(web, "/review")["body"]
    assert _get(web, "/assets/learner.js")["headers"]["content-type"] == "text/javascript; charset=utf-8"
    assert _get(web, "/assets/app.css")["headers"]["content-type"] == "text/css; charset=utf-8"


@pytest.mark.parametrize("path", ["/assets/app.py", "/assets/../app.py", "/assets/learner.html", "/assets/", "/x"])
def test_only_the_shipped_assets_are_served(web, path):
    response = _get(web, path)
    assert response["statusCode"] == 404
    assert json.loads(response["body"])["error_code"] == "NOT_FOUND"


def test_an_unchanged_asset_is_not_sent_again(web):
    first = _get(web, "/assets/common.js")
    again = _get(web, "/assets/common.js", {"if-none-match": first["headers"]["etag"]})
    assert (again["statusCode"], again["body"]) == (304, "")


def test_pages_allow_only_their_origin_and_the_token_endpoint(web, monkeypatch):
    monkeypatch.setenv("OAUTH_TOKEN_URL", "https://idp.example.com/oauth2/token")
    policy = _get(web, "/")["headers"]["content-security-policy"]
    assert "script-src 'self';" in policy
    assert "connect-src 'self' https://idp.example.com;" in policy
    assert "frame-ancestors 'none'" in policy


def test_sign_in_is_local_under_the_local_runtime(web, monkeypatch):
    monkeypatch.setenv("SLEA_LOCAL_RUNTIME", "1")
    assert json.loads(_get(web, "/config.json")["body"]) == {"mode": "local"}


def test_sign_in_in_aws_is_oauth_from_the_templates_parameters(web, monkeypatch):
    monkeypatch.delenv("SLEA_LOCAL_RUNTIME", raising=False)
    settings = {
        "OAUTH_AUTHORIZE_URL": "https://idp.example.com/oauth2/authorize",
        "OAUTH_TOKEN_URL": "https://idp.example.com/oauth2/token",
        "OAUTH_CLIENT_ID": "client-1",
        "OAUTH_SCOPE": "openid profile",
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    response = _get(web, "/config.json")
    assert response["headers"]["cache-control"] == "no-store"
    assert json.loads(response["body"]) == {
        "mode": "oauth",
        "authorize_url": settings["OAUTH_AUTHORIZE_URL"],
        "token_url": settings["OAUTH_TOKEN_URL"],
        "client_id": "client-1",
        "scope": "openid profile",
    }


def test_the_web_routes_alone_are_served_without_a_token():
    functions = repository_template().of_type("AWS::Serverless::Function")
    open_routes = {
        (event["Properties"]["Method"], event["Properties"]["Path"])
        for spec in functions.values()
        for event in spec["Properties"].get("Events", {}).values()
        if event["Type"] == "HttpApi" and event["Properties"].get("Auth") == {"Authorizer": "NONE"}
    }
    assert open_routes == WEB_ROUTES
    web_function = functions["WebFunction"]["Properties"]
    assert {(e["Properties"]["Method"], e["Properties"]["Path"]) for e in web_function["Events"].values()} == WEB_ROUTES
    assert "Policies" not in web_function  # it touches no AWS resource
    variables = web_function["Environment"]["Variables"]
    assert variables["OAUTH_CLIENT_ID"] == {"Ref": "JwtAudience"}  # the client the authorizer accepts
