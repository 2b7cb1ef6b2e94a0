"""Signing in as in AWS, locally: the pages (unchanged) take the OAuth sign-in to the local user
pool's hosted sign-in (authorization code + PKCE), and the API accepts only the pool's tokens.
A learner (no group) practises and is refused the review desk; a reviewer (group `reviewers`)
reaches the queue; a development token is refused."""

import base64
import json
from typing import Any

from slea.security.roles import REVIEWER_GROUP
from tests.browser.conftest import PHONE, screenshot
from tests.browser.learner_steps import LAPTOP, start_round
from tests.browser.pool_signin import TOKEN_KEY, fill_sign_in_form, sign_in_through_page, sign_in_with_token

LEARNER, REVIEWER = "learner@example.com", "reviewer@example.com"


def _token_claims(page: Any) -> dict[str, Any]:
    token = page.evaluate(f"() => sessionStorage.getItem('{TOKEN_KEY}')")
    payload = token.split(".")[1]
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return claims


def test_a_learner_signs_in_on_the_pools_page_practises_and_is_refused_the_review_desk(signed_server, pool, new_page):
    password = pool.create_user(LEARNER)
    page = new_page(PHONE)
    page.goto(signed_server)
    page.wait_for_selector("#oauth-signin", state="visible")
    assert page.is_hidden("#local-signin")  # no development sign-in with signed tokens

    # A wrong password: the form again, saying so, and no way back to the app.
    page.locator("#oauth-signin").click()
    page.wait_for_url("**/oauth2/authorize?**")
    fill_sign_in_form(page, LEARNER, "Wrong1!password")
    assert page.get_by_role("alert").inner_text() == "Incorrect e-mail or password."
    assert "/oauth2/authorize" in page.url
    assert page.get_by_label("E-mail").input_value() == LEARNER
    screenshot(page, "hosted-signin-wrong-password-phone")

    # The right one: back on the learner page with the pool's ID token, named by their e-mail
    # (an access token would name them by the pool's opaque user name), ready to practise.
    fill_sign_in_form(page, LEARNER, password)
    page.wait_for_selector("#start-form", state="visible")
    assert page.url.split("#")[0] == f"{signed_server}/"  # the code is off the address bar
    claims = _token_claims(page)
    assert claims["token_use"] == "id"
    assert claims["iss"] == pool.issuer
    assert claims["aud"] == pool.client_id
    assert "cognito:groups" not in claims
    assert page.inner_text("#who") == f"Signed in as {LEARNER}"
    with page.expect_response(lambda response: response.url.endswith("/rounds")) as started:
        start_round(page, 3)
    assert started.value.ok
    screenshot(page, "hosted-signin-learner-question-phone")

    # The same learner on the review desk: the API refuses the queue and the page says why.
    with page.expect_response(lambda response: "/review/queue" in response.url) as refused:
        page.goto(f"{signed_server}/review")
    assert refused.value.status == 403
    assert refused.value.json()["error_code"] == "FORBIDDEN"
    page.wait_for_selector("#forbidden", state="visible")
    assert "does not have the reviewer role" in page.inner_text("#forbidden")


def test_a_reviewer_signs_in_on_the_pools_page_and_the_queue_loads(signed_server, pool, new_page):
    password = pool.create_user(REVIEWER, [REVIEWER_GROUP])
    page = new_page(LAPTOP)
    with page.expect_response(lambda response: "/review/queue" in response.url) as queue:
        sign_in_through_page(page, signed_server, REVIEWER, password, path="/review")
    assert queue.value.status == 200
    page.wait_for_selector("#queue", state="visible")
    assert page.url.split("#")[0] == f"{signed_server}/review"
    assert page.is_hidden("#forbidden")
    assert _token_claims(page)["cognito:groups"] == [REVIEWER_GROUP]
    assert page.inner_text("#who") == f"Signed in as {REVIEWER}"
    screenshot(page, "hosted-signin-reviewer-queue")

    # Signing out forgets the token: the page asks to sign in again.
    page.click("#signout")
    page.wait_for_selector("#oauth-signin", state="visible")
    assert page.evaluate(f"() => sessionStorage.getItem('{TOKEN_KEY}')") is None


def test_a_development_token_claiming_the_reviewer_group_is_refused(signed_server, new_page):
    claims = {"sub": "0f4b2d9e-6a71-4c3e-9d55-2b8f3c1e7a10", "cognito:groups": [REVIEWER_GROUP]}
    unsigned = [{"alg": "none", "typ": "JWT"}, claims]  # what the page's development sign-in makes
    forged = ".".join(base64.urlsafe_b64encode(json.dumps(part).encode()).decode().rstrip("=") for part in unsigned)
    page = new_page(LAPTOP)
    with page.expect_response(lambda response: "/review/queue" in response.url) as refused:
        sign_in_with_token(page, signed_server, f"{forged}.", path="/review")
    assert refused.value.status == 401
    page.wait_for_selector("#error", state="visible")
    assert "sign-in has expired or is missing" in page.inner_text("#error")
    assert page.is_hidden("#queue")
