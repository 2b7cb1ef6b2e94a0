"""Undoing an override from the recent reviews in headless chromium, laptop and phone: the row
offers "Undo…", a reason is asked for before anything is sent, and the answer returns to the
queue at its earlier score, the undo listed in the record. Screenshots go to build/screenshots/."""

from typing import Any

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.test_review_page import LAPTOP, override_on_the_desk
from tests.browser.test_review_page import sign_in_as_development_reviewer as _sign_in
from tests.integration.test_review_queue_views import seed_queue


@pytest.mark.parametrize("viewport", [pytest.param(LAPTOP, id="laptop"), pytest.param(PHONE, id="phone")])
def test_an_override_is_undone_from_the_recent_reviews_with_a_reason(
    server: Any, new_page: Any, step_functions: Any, viewport: dict[str, int]
) -> None:
    name = "phone" if viewport == PHONE else "laptop"
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}])
    page = new_page(viewport)
    _sign_in(page, server)
    answer = page.locator('article[data-entry="ra-000"]')
    override_on_the_desk(answer)

    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_selector("#recent-rows tr")
    row = page.locator("#recent-rows tr").first
    assert "score 40 → 85" in row.inner_text()
    row.get_by_role("button", name="Undo this grade change").click()
    assert page.is_visible("#undo")
    asked = page.inner_text("#undo-what")
    assert asked == "Undo this grade change on “Explain item 0 of the queue.” (score 85 back to 40)?"
    page.click("#undo-yes")
    assert "Give a reason for undoing" in page.inner_text("#error")
    page.fill("#undo-note", "Misread the answer.")
    screenshot(page, f"undo-override-confirm-{name}", full_page=False)
    with page.expect_response(lambda response: response.url.endswith("/review/attempts/ra-000/undo")) as undone:
        page.click("#undo-yes")
    assert undone.value.status == 200
    page.wait_for_function("() => document.querySelector('#review-status').textContent.startsWith('Grade change')")
    assert page.inner_text("#review-status") == "Grade change undone: the score is 40 again."
    page.wait_for_selector('article[data-entry="ra-000"]')  # back in the queue

    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_function("() => document.querySelector('#recent-rows').innerText.includes('undid a review')")
    rows = page.locator("#recent-rows tr").all_inner_texts()
    assert "undid a review" in rows[0]
    assert "score 85 → 40" in rows[0]
    assert "Misread the answer." in rows[0]
    assert page.locator("#recent-rows button", has_text="Undo").count() == 0  # undone already
    screenshot(page, f"undo-override-recent-{name}", full_page=False)
