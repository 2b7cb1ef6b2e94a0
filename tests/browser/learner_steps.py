"""Steps the learner-page tests share: sign in as a seeded learner, answer what is on
screen, and read where the page stands."""

from typing import Any

from tests.browser.conftest import screenshot

LAPTOP = {"width": 1366, "height": 850}


def sign_in_as(page: Any, url: str, user_id: str) -> None:
    """The local sign-in, acting as one of the seeded learners (GET /config.json lists them)."""
    page.goto(url)
    page.wait_for_selector("#signin-as-field", state="visible")
    page.select_option("#signin-as", user_id)
    page.locator("#local-signin button[type=submit]").click()
    page.wait_for_selector("#signout", state="visible")


def start_round(page: Any, count: int) -> None:
    page.wait_for_selector("#start-form", state="visible")
    page.fill("#count", str(count))
    page.click("#start-button")
    page.wait_for_selector("#question", state="visible", timeout=60_000)


def answer_on_screen(page: Any, text: str = "I am not sure.") -> None:
    """Answer the question on screen (the first choice, or `text`) and wait for the feedback."""
    page.wait_for_selector("#question", state="visible")
    if page.is_visible("#short"):
        page.fill("#short-answer", text)
    else:
        page.locator("button.choice").first.click()
    page.click("#submit-answer")
    page.wait_for_selector("#feedback", state="visible")


def shot(page: Any, name: str, full_page: bool = True) -> None:
    screenshot(page, name, full_page=full_page)
