"""The web app in a real browser: Debian's headless chromium (never a browser build of
Playwright's own) driven by Playwright, against the local server (template.yaml's HTTP API over
moto) in a thread on a free port. Screenshots go to build/screenshots/ (gitignored).

`server` is the development mode (the page's own sign-in, unsigned tokens); `signed_server` the
mode of AWS (tokens of the local user pool, through its hosted sign-in): tests of who may see
what run there (tests/browser/pool_signin.py signs in)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slea_local import REPO_ROOT
from slea_local.http import serve_in_background

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = REPO_ROOT / "build" / "screenshots"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def server(step_functions: Any) -> Iterator[str]:
    """The app's URL: the local HTTP API (pages and routes) over this test's seeded local AWS."""
    try:
        with serve_in_background(step_functions.runtime) as url:
            yield url
    finally:
        step_functions.wait_for_running()


@pytest.fixture
def signed_server(step_functions: Any) -> Iterator[str]:
    """The app's URL with signed tokens, as in AWS: the API takes only tokens the local user pool
    signed, and the pages sign in through the pool's hosted sign-in (slea_local/hosted_signin.py)."""
    try:
        with serve_in_background(step_functions.runtime, signed_tokens=True) as url:
            yield url
    finally:
        step_functions.wait_for_running()


@pytest.fixture
def pool(step_functions: Any) -> Any:
    """The local user pool of this test's stack (users, groups, the tokens it signs)."""
    from slea_local.identity import LocalUserPool

    return LocalUserPool(step_functions.runtime.cloud)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    assert CHROMIUM.exists(), "tests/browser need Debian's chromium: apt-get install -y chromium (make test does)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        yield launched
        launched.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """new_page(viewport=...) -> a page in a fresh context (its own storage: one user each)."""
    contexts, errors = [], []

    def _open(viewport: dict[str, int] | None = None) -> Any:
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if _unexpected(message) else None)
        return page

    yield _open
    for context in contexts:
        context.close()
    assert not errors, f"errors on the page: {errors}"


@pytest.fixture
def korean_page(browser: Any) -> Iterator[Any]:
    """page(viewport) in a browser context whose preferred language is Korean."""
    contexts, errors = [], []

    def _open(viewport: dict[str, int]) -> Any:
        context = browser.new_context(viewport=viewport, locale="ko-KR")
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield _open
    for context in contexts:
        context.close()
    assert not errors, errors


def screenshot(page: Any, name: str, full_page: bool = True) -> Path:
    """Saved under build/screenshots/ for a person to look at (CI keeps none)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def _unexpected(message: Any) -> bool:
    """A console error other than the browser's own note of an HTTP error status (the pages show
    those to the user in words; the tests check that)."""
    return bool(message.type == "error" and not message.text.startswith("Failed to load resource"))
