"""The review trail and the item analysis in headless chromium, laptop and phone: a reason is
asked for before a retirement, an override or a bulk accept; retire and bulk accept are confirmed
and can be undone; the recent reviews name the item and the learner and say "kept as it was" for
an accept, and scroll sideways on a phone; the item analysis explains itself in plain words and
says when calibration last ran, and lists the learners person fit flagged with why. Screenshots go
to build/screenshots/."""

from decimal import Decimal
from typing import Any

import boto3
import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.test_review_page import LAPTOP, _shown
from tests.browser.test_review_page import sign_in_as_development_reviewer as _sign_in
from tests.integration.test_item_analysis_api import ITEMS
from tests.integration.test_review_queue_views import seed_queue

VIEWPORTS = [pytest.param(LAPTOP, id="laptop"), pytest.param(PHONE, id="phone")]


def _name(viewport: dict[str, int]) -> str:
    return "phone" if viewport == PHONE else "laptop"


def _error(page: Any) -> str:
    return str(page.inner_text("#error"))


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_retire_and_bulk_accept_ask_for_a_reason_are_confirmed_and_can_be_undone(
    server, new_page, step_functions, viewport
):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}, {"kind": "attempt"}, {"kind": "question"}])
    page = new_page(viewport)
    _sign_in(page, server)
    page.wait_for_selector("#entries article")
    assert _shown(page) == ["ra-000", "ra-001", "rq-002"]
    # Entries are named by their stem and time, never "Graded answer 1".
    heading = page.locator('article[data-entry="rq-002"] h3').inner_text()
    assert heading.startswith("Question “Explain item 2 of the queue.” · ")

    # Retire: one click only opens the confirmation; without a reason nothing is sent.
    question = page.locator('article[data-entry="rq-002"]')
    question.get_by_role("button", name="Retire question").click()
    assert "Retire this question?" in question.locator(".confirm").inner_text()
    screenshot(page, f"trail-retire-confirm-{_name(viewport)}", full_page=False)
    question.get_by_role("button", name="Yes, retire").click()
    assert "Give a reason to retire" in _error(page)
    assert page.locator("#entries article").count() == 3
    question.get_by_label("Reason for your decision").fill("Two choices are right.")
    with page.expect_response(lambda response: "/review/questions/rq-002" in response.url):
        question.get_by_role("button", name="Yes, retire").click()
    question.wait_for(state="detached")
    assert page.inner_text("#review-status") == "Question retired."
    assert page.is_visible("#undo")
    page.click("#undo-yes")
    assert "Give a reason for undoing" in _error(page)
    page.fill("#undo-note", "Retired by mistake.")
    with page.expect_response(lambda response: response.url.endswith("/review/questions/rq-002/unretire")) as undone:
        page.click("#undo-yes")
    assert undone.value.status == 200
    page.wait_for_function("() => document.querySelector('#review-status').textContent.startsWith('Retirement undone')")
    # The reported question is back in the queue, its learner's report with it.
    page.wait_for_selector('#entries > article[data-entry="rq-002"]')
    assert "unclear" in page.locator('article[data-entry="rq-002"]').inner_text()

    # Bulk accept: confirmed with a reason, then reverted: the answers come back to the queue.
    page.check("#select-all")
    page.click("#bulk-accept")
    assert page.inner_text("#bulk-question").startswith("Accept 2 grades")
    page.get_by_role("button", name="Yes, accept them").click()
    assert "Give a reason for accepting" in _error(page)
    assert page.locator("#entries article").count() == 3
    page.fill("#bulk-note", "Both name the retrieval step.")
    screenshot(page, f"trail-bulk-confirm-{_name(viewport)}", full_page=False)
    with page.expect_response(lambda response: response.url.endswith("/review/attempts/accept")):
        page.get_by_role("button", name="Yes, accept them").click()
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 1")  # the question
    assert page.inner_text("#undo-what") == "Revert accepting 2 grades?"
    page.fill("#undo-note", "Accepted too fast.")
    with page.expect_response(lambda response: response.url.endswith("/revert")):
        page.click("#undo-yes")
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 3")
    assert page.inner_text("#review-status") == "2 grades back in the queue."
    screenshot(page, f"trail-after-undo-{_name(viewport)}")

    # The record: every action and its undo, with the item's stem, the learner and the reason.
    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_selector("#recent-rows tr")
    rows = page.locator("#recent-rows tr").all_inner_texts()
    text = "\n".join(rows)
    for words in ("reverted a bulk accept", "reverted an accept", "accepted in bulk", "un-retired", "retired"):
        assert words in text, words
    accepted = next(row for row in rows if row.split("\t")[2].strip() == "accepted")
    assert "kept as it was" in accepted
    assert "40 → 40" not in text
    assert "Explain item 1 of the queue." in accepted  # the newest accept: ra-001
    assert "learner 5d7c1e2a" in accepted
    assert "Retired by mistake." in text
    assert page.locator("#recent-rows button", has_text="Undo").count() == 0  # both were undone already
    # A link opens the answer's whole history.
    reverted = page.locator("#recent-rows tr", has_text="reverted an accept").first
    reverted.get_by_role("link", name="answer history").click()
    page.wait_for_selector("#target-history:not([hidden]) li.audit")
    history = page.inner_text("#target-records")
    assert "accepted" in history
    assert "reverted an accept" in history
    scroller = page.locator("#recent .scroll")
    widths = scroller.evaluate("(box) => [box.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX]")
    if viewport == PHONE:
        assert widths[0] > widths[1]  # wider than the phone: it scrolls ...
        assert widths[2] == "scroll"  # ... with a scrollbar that stays
        assert page.is_visible(".scroll-hint")
    screenshot(page, f"trail-recent-{_name(viewport)}", full_page=False)
    screenshot(page, f"trail-recent-{_name(viewport)}-full")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_item_analysis_explains_itself_and_says_when_calibration_ran(server, new_page, step_functions, viewport):
    page = new_page(viewport)
    _sign_in(page, server)
    page.get_by_role("button", name="Item analysis").click()
    page.wait_for_function("() => document.querySelector('#items-status').textContent !== ''")
    assert "No item has been calibrated yet" in page.inner_text("#items-status")
    # When the figures come, in words a teacher reads (no operator command, no cloud name).
    assert "at the next regular recalculation" in page.inner_text("#items-status")
    assert "make serve" not in page.inner_text("#items")
    glossary = page.inner_text("#items-glossary")
    for plain in ("How hard the item turned out to be", "stronger learners do better", "near 1 is good"):
        assert plain in glossary  # in the page, not only in a tooltip
    screenshot(page, f"items-empty-{_name(viewport)}", full_page=False)

    questions = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("QuestionsTable"))
    for item in ITEMS:
        questions.put_item(Item=item)
    page.get_by_role("button", name="Review queue").click()
    page.get_by_role("button", name="Item analysis").click()
    page.wait_for_function("() => document.querySelector('#items-status').textContent.includes('of 5 items')")
    assert page.inner_text("#items-calibrated").startswith("Calibration last changed an item at ")
    flagged = page.locator('#items-rows tr[data-item="q-d"]').inner_text()
    assert "misfit" in flagged
    assert "check for an ambiguous wording or a wrong key" in flagged
    assert "correct the label" in page.locator('#items-rows tr[data-item="q-b"]').inner_text()
    screenshot(page, f"items-{_name(viewport)}", full_page=False)
    screenshot(page, f"items-{_name(viewport)}-full")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_item_analysis_lists_the_learners_person_fit_flagged_with_why(server, new_page, step_functions, viewport):
    abilities = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("AbilitiesTable"))
    reason = (
        "Right on hard items and wrong on easy ones far more often than their level explains "
        "(lz -3.10 over 24 answers; below -2.33 is flagged)."
    )
    learner = {
        "reason": reason,
        "lz": Decimal("-3.1"),
        "exposure_z": None,
        "answers": 24,
        "categories": ["technical"],
        "flagged_at": "2026-11-20T10:00:00Z",
    }
    abilities.put_item(Item={"user_id": "#review", "entry": "person-fit", "learners": {"4a0c-flagged": learner}})
    page = new_page(viewport)
    _sign_in(page, server)
    page.get_by_role("button", name="Item analysis").click()
    page.wait_for_selector("#flagged-learners:not([hidden])")
    listed = page.inner_text("#flagged-learners")
    assert "Learners whose answers need a look" in listed
    assert "4a0c-flagged" in listed
    # What was seen and what to do in words; the stored reason and the statistic in the fold.
    assert "Got hard questions right and easy ones wrong" in listed
    assert "What to do: read their recent answers" in listed
    assert reason not in listed
    page.locator("#flagged-learners .details-fold summary").click()
    assert reason in page.inner_text("#flagged-learners")
    assert "Their level is unchanged and they are not told" in listed
    screenshot(page, f"items-flagged-learners-{_name(viewport)}", full_page=False)
