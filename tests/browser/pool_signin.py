"""Signing in on `signed_server` (tests/browser/conftest.py), where only tokens of the local user
pool are accepted: through the pool's hosted sign-in page, as a person does, or, for speed,
with a token of the pool put where the page's OAuth sign-in (finishOAuth in common.js) keeps it."""

from typing import Any

from slea.security.roles import REVIEWER_GROUP
from slea_local.identity import LocalUserPool

TOKEN_KEY = "slea.token"  # common.js: the page's token, in this tab's sessionStorage


def sign_in_through_page(page: Any, url: str, email: str, password: str, path: str = "/") -> None:
    """The page's "Sign in with your account", the pool's form, and back on `path` signed in."""
    page.goto(f"{url}{path}")
    page.locator("#oauth-signin").click()
    page.wait_for_url("**/oauth2/authorize?**")
    fill_sign_in_form(page, email, password)
    page.wait_for_selector("#signout", state="visible")


def fill_sign_in_form(page: Any, email: str, password: str) -> None:
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def sign_in_with_token(page: Any, url: str, token: str, path: str = "/") -> None:
    """`token` where the page keeps the one its sign-in gave it (this tab's sessionStorage, as
    finishOAuth stores the ID token), then `path` opened signed in."""
    page.goto(f"{url}/config.json")  # the origin, without running the page's sign-in
    page.evaluate("([key, token]) => sessionStorage.setItem(key, token)", [TOKEN_KEY, token])
    page.goto(f"{url}{path}")


def reviewer_token(pool: LocalUserPool, name: str | None = None) -> str:
    """The ID token of a new member of the pool's reviewers group; with `name`, one that also
    carries the person's name (Cognito adds claims so through a pre-token-generation trigger),
    so that what the desk records shows it."""
    if name is None:
        return pool.user([REVIEWER_GROUP]).id_token
    email = f"{name.lower().replace(' ', '.')}@example.com"
    pool.create_user(email, [REVIEWER_GROUP])
    return pool.signed(email, "id", **{"cognito:groups": [REVIEWER_GROUP], "name": name})
