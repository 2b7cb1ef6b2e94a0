"""The web app's function (functions/web/app.py) and its static files, without a browser."""

import gzip
import json
from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest

from slea.measurement.scale import answers_to_precision
from slea_local import REPO_ROOT
from slea_local.runtime import load_function_module
from slea_local.template import repository_template
from tests.unit.web.learner_js import run_in_node

STATIC = REPO_ROOT / "functions" / "web" / "static"
WEB_ROUTES = {("GET", "/"), ("GET", "/review"), ("GET", "/assets/{file}"), ("GET", "/config.json")}


@pytest.fixture(scope="module")
def web():
    return load_function_module("web")


@pytest.mark.parametrize("page", ["learner.html", "review.html"])
def test_scripts_and_styles_fit_in_50_kb_gzipped(page):
    """What a page loads: its scripts and styles, at most 50 KB gzipped (the review desk's words
    are a file of their own, loaded by the review page only)."""
    assets = [path for path in STATIC.iterdir() if path.suffix in (".js", ".css")]
    assert {path.name for path in assets} >= {"common.js", "learner.js", "review.js", "app.css"}
    loaded = {asset for html in ("learner.html", "review.html") for asset in _assets_of(html)}
    assert {path.name for path in assets} <= loaded  # no asset escapes every page's budget
    total = sum(len(gzip.compress((STATIC / name).read_bytes(), compresslevel=9)) for name in _assets_of(page))
    assert total <= 50 * 1024, f"{total} bytes gzipped"


def _assets_of(page: str) -> list[str]:
    parsed = _Page()
    parsed.feed((STATIC / page).read_text(encoding="utf-8"))
    return [reference.removeprefix("/assets/") for reference in parsed.references if reference.startswith("/assets/")]


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


def _oauth_settings(monkeypatch, origin, client_id):
    """The web function's OAuth parameters (template.yaml's) for an identity provider at `origin`."""
    monkeypatch.setenv("OAUTH_AUTHORIZE_URL", f"{origin}/oauth2/authorize")
    monkeypatch.setenv("OAUTH_TOKEN_URL", f"{origin}/oauth2/token")
    monkeypatch.setenv("OAUTH_CLIENT_ID", client_id)
    monkeypatch.setenv("OAUTH_SCOPE", "openid profile")


def test_the_local_runtime_with_the_hosted_sign_in_gives_the_pages_oauth(web, monkeypatch):
    """Signed tokens locally: the pool's hosted sign-in at the local server, the pool's client."""
    monkeypatch.setenv("SLEA_LOCAL_RUNTIME", "1")
    monkeypatch.setenv("SLEA_LOCAL_HOSTED_SIGN_IN", "1")
    _oauth_settings(monkeypatch, "http://127.0.0.1:8123", "local-client")
    assert json.loads(_get(web, "/config.json")["body"]) == {
        "mode": "oauth",
        "authorize_url": "http://127.0.0.1:8123/oauth2/authorize",
        "token_url": "http://127.0.0.1:8123/oauth2/token",
        "client_id": "local-client",
        "scope": "openid profile",
    }
    # Same origin as the pages: the policy needs no other origin for the code exchange.
    assert "connect-src 'self';" in _get(web, "/")["headers"]["content-security-policy"]


def test_sign_in_in_aws_is_oauth_from_the_templates_parameters(web, monkeypatch):
    monkeypatch.delenv("SLEA_LOCAL_RUNTIME", raising=False)
    _oauth_settings(monkeypatch, "https://idp.example.com", "client-1")
    response = _get(web, "/config.json")
    assert response["headers"]["cache-control"] == "no-store"
    assert json.loads(response["body"]) == {
        "mode": "oauth",
        "authorize_url": "https://idp.example.com/oauth2/authorize",
        "token_url": "https://idp.example.com/oauth2/token",
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
    # The client the authorizer accepts (the stack's own pool's, or the given audience).
    (api,) = repository_template().of_type("AWS::Serverless::HttpApi").values()
    authorizer = api["Properties"]["Auth"]["Authorizers"][api["Properties"]["Auth"]["DefaultAuthorizer"]]
    assert [variables["OAUTH_CLIENT_ID"]] == authorizer["JwtConfiguration"]["audience"]


# ---------------------------------------------------------------- the learner's "Your level" panel
def test_the_learner_page_has_a_level_panel_hidden_until_there_is_an_estimate(web):
    body = _get(web, "/")["body"]
    assert '<aside id="ability" aria-labelledby="ability-title" hidden>' in body
    assert '<h2 id="ability-title" data-i18n="level.title">Your level</h2>' in body
    assert '<p id="summary-ability" hidden></p>' in body
    script = (STATIC / "learner.js").read_text(encoding="utf-8")
    assert 'api("GET", "/learners/me/ability")' in script


# The panel's pure functions (SleaAbility in learner.js) run in Node (on the machine, v20): the
# script is loaded as the browser loads it, with stubs for the page-wiring half.
_NODE_HARNESS = r"""
const vm = require("vm");
const fs = require("fs");
const context = { document: { addEventListener() {} }, Slea: {} };
vm.createContext(context);
// i18n.js first, as the page loads it: the panel's words come from its catalogue (English here).
const i18n = fs.readFileSync(process.argv[1].replace(/learner\.js$/, "i18n.js"), "utf8");
const script = i18n + "\n" + fs.readFileSync(process.argv[1], "utf8");
vm.runInContext(script + "\n;globalThis.SleaAbility = SleaAbility;", context);
const A = context.SleaAbility;
const escape = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
const xml = (node) => node === null ? null :
  `<${node.tag}${Object.entries(node.attrs || {}).map(([k, v]) => ` ${k}="${escape(v)}"`).join("")}>` +
  (node.text === undefined ? "" : escape(node.text)) + (node.children || []).map(xml).join("") + `</${node.tag}>`;
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const chart = (history, category) => {
  const tree = A.chart(history, category, "c");
  return tree && { svg: xml(tree), summary: tree.summary, points: tree.points.length };
};
process.stdout.write(JSON.stringify({
  charts: input.charts.map(([history, category]) => chart(history, category)),
  precision: input.ses.map((se) => A.answersToPrecision(se)),
  words: input.abilities.map((ability) => A.describe(ability)),
}));
"""


def _run_panel_functions(charts=(), ses=(), abilities=()):
    return run_in_node(_NODE_HARNESS, {"charts": list(charts), "ses": list(ses), "abilities": list(abilities)})


def _history(thetas_and_ses, category="technical"):
    return [
        {"at": f"2026-11-{day + 1:02d}T09:00:00Z", "category": category, "theta": theta, "se": se, "answers": day + 1}
        for day, (theta, se) in enumerate(thetas_and_ses)
    ]


SVG = "{http://www.w3.org/2000/svg}"
MINUS = "\u2212"  # the page writes negative numbers with a true minus sign


def test_the_chart_is_valid_accessible_svg_with_the_band_and_the_line():
    history = _history([(-0.4, 1.1), (-0.1, 0.8), (0.3, 0.65), (0.7, 0.55)]) + _history([(2.0, 0.4)], "business")
    history.reverse()  # the API's order does not matter: the chart sorts by time
    (drawn, business, nothing) = _run_panel_functions(
        charts=[(history, "technical"), (history, "business"), (history, "general")]
    )["charts"]
    assert nothing is None  # no history in a category: no chart
    assert business["points"] == 1
    svg = ElementTree.fromstring(drawn["svg"])  # well-formed XML in the SVG namespace
    assert svg.tag == f"{SVG}svg"
    assert svg.get("role") == "img"
    title, desc = svg.find(f"{SVG}title"), svg.find(f"{SVG}desc")
    assert svg.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert title.text == "Technical ability over your last 4 answers"
    # The trend names what it compares: the estimate now against the first of these 4 answers.
    assert desc.text.startswith(f"Up 1.1 over your last 3 answers (from {MINUS}0.4 to 0.7).")
    assert "95%" in desc.text
    assert f"from {MINUS}0.4 to 1.8" in desc.text  # 0.7 -+ 1.96 x 0.55, the latest interval
    assert drawn["summary"] == f"{title.text}. {desc.text}"
    _, _, width, height = map(float, svg.get("viewBox").split())
    line = [tuple(map(float, point.split(","))) for point in svg.find(f"{SVG}polyline").get("points").split()]
    assert len(line) == 4
    assert [x for x, _ in line] == sorted(x for x, _ in line)  # oldest on the left
    assert line[0][1] > line[-1][1]  # a rising ability is drawn going up (SVG y grows downwards)
    band = svg.find(f"{SVG}path[@class='band']").get("d")
    corners = [tuple(map(float, point.split(","))) for point in band.strip("MZ").split("L")]
    assert len(corners) == 8  # upper edge forwards, lower edge back
    for (_, y), (_, upper), (_, lower) in zip(line, corners[:4], reversed(corners[4:]), strict=True):
        assert upper < y < lower  # the line runs inside its band
    assert all(0 <= x <= width and 0 <= y <= height for x, y in corners + line)


def test_answers_to_precision_in_the_page_is_the_cores_formula():
    ses = [0.05, 0.3, 0.31, 0.45, 0.6, 0.9, 1.2, 2.0]
    assert _run_panel_functions(ses=ses)["precision"] == [answers_to_precision(se) for se in ses]


def test_the_panel_says_the_level_and_the_range_in_words():
    abilities = [
        {"category": "technical", "theta": 0.42, "se": 0.61, "level": "intermediate", "answers": 12},
        {"category": "business", "theta": -1.2, "se": 0.25, "level": "beginner", "answers": 1},
    ]
    technical, business = _run_panel_functions(abilities=abilities)["words"]
    assert technical["heading"] == "Technical: intermediate"
    # Only the 95% range and the best estimate inside it: no unnamed standard error beside it.
    assert technical["estimate"].startswith(
        f"From 12 answers, we are 95% sure your ability lies between {MINUS}0.8 and 1.6"
    )
    assert "(best estimate 0.4;" in technical["estimate"]  # 0.42 -+ 1.96 x 0.61
    assert "±" not in technical["estimate"]
    assert technical["precision"] == "About 43 more answers would make this estimate precise (a 95% range 1.2 wide)."
    assert business["estimate"].startswith("From 1 answer, ")
    assert business["precision"] == "This estimate is already precise."


def test_the_trend_compares_the_last_five_answers_and_the_axis_numbers_answers_of_one_day():
    # Five right answers in a row after a first wrong one: the trend is the last five answers'
    # (-1.6 -> -1.0), not the change since the very first answer (-0.8 -> -1.0).
    thetas = [-0.8, -1.6, -1.5, -1.3, -1.2, -1.1, -1.0]
    history = [
        {"at": f"2026-11-26T10:{minute:02d}:00Z", "category": "technical", "theta": theta, "se": 0.4, "answers": n}
        for n, (minute, theta) in enumerate(zip(range(0, 70, 10), thetas, strict=True), start=1)
    ]
    (drawn,) = _run_panel_functions(charts=[(history, "technical")])["charts"]
    svg = ElementTree.fromstring(drawn["svg"])
    assert svg.find(f"{SVG}desc").text.startswith(f"Up 0.6 over your last 5 answers (from {MINUS}1.6 to {MINUS}1.0).")
    assert svg.find(f"{SVG}title").text == "Technical ability over your last 7 answers"
    assert drawn["points"] == 7
    # All on one day: the axis names the first and last answer, never the same date twice.
    axis = [node.text for node in svg.findall(f"{SVG}text") if node.text and node.text.startswith("answer")]
    assert axis == ["answer 1", "answer 7"]
