"""A Korean learner end to end: sign-in, a round, an answer, its feedback, the summary
and the history, with no English UI text.

What counts as UI text: every visible text node and aria-label of the page except content, which
is marked data-content in learner.html / learner.js: the question and its choices, the learner's
own answer, what the server wrote about it (feedback, explanation and its parts, references, the
stems of "what to review"). Also outside the check: the product name (translate="no") and the
local sign-in's picker of seeded learners (their job roles and ids are data). Numbers and
punctuation are allowed; a single Latin letter anywhere else fails."""

import re
from typing import Any

import pytest

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as

KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # 데이터 사이언티스트, profile language ko

ENGLISH_UI = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode()); ) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!/[A-Za-z]/.test(text) || parent.closest("[data-content], [translate=no], #signin-as, script")) continue;
    if (parent.closest("option") ? !parent.closest("select").checkVisibility() : !parent.checkVisibility()) continue;
    found.push(text);
  }
  for (const element of document.querySelectorAll("[aria-label]")) {
    const label = element.getAttribute("aria-label");
    if (element.checkVisibility() && /[A-Za-z]/.test(label)) found.push(label);
  }
  return found;
}"""


def _no_english(page: Any, where: str) -> None:
    assert page.evaluate("document.documentElement.lang") == "ko", where
    assert page.evaluate(ENGLISH_UI) == [], where


@pytest.mark.parametrize(("viewport", "name"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_korean_learner_sees_no_english_ui_from_sign_in_to_history(server, korean_page, viewport, name):
    page = korean_page(viewport)
    page.goto(server)
    page.wait_for_selector("#signin-as-field", state="visible")
    _no_english(page, "sign-in")
    shot(page, f"ko-signin-{name}")
    sign_in_as(page, server, KOREAN_LEARNER)
    page.wait_for_selector("#start-form", state="visible")
    _no_english(page, "start")
    assert page.inner_text("#start-button") == "1라운드 시작"
    shot(page, f"ko-start-{name}")
    page.fill("#count", "2")
    page.click("#start-button")
    page.wait_for_selector("#question", state="visible", timeout=60_000)
    _no_english(page, "question")
    assert page.inner_text("#question-title") == "2문항 중 1번"
    shot(page, f"ko-question-{name}")
    for number in range(2):
        stem = page.inner_text("#stem")
        answer_on_screen(page, "잘 모르겠습니다. 데이터를 먼저 살펴봐야 할 것 같습니다.")
        _no_english(page, f"feedback {number + 1}")
        assert stem in page.inner_text("#feedback-details")  # the question is on the feedback
        if number == 0:
            shot(page, f"ko-feedback-{name}")
        page.click("#next")
    page.wait_for_selector("#summary", state="visible")
    _no_english(page, "summary")
    page.click("#show-answers")
    page.wait_for_selector("#answers-list li.attempt")
    assert page.locator("#answers-list li.attempt").count() == 2
    page.locator("#answers-list summary").first.click()  # an explanation reopened
    _no_english(page, "history")
    shot(page, f"ko-history-{name}")


def test_the_language_switch_is_remembered_per_browser(server, korean_page):
    page = korean_page(LAPTOP)
    sign_in_as(page, server, KOREAN_LEARNER)
    page.wait_for_selector("#start-form", state="visible")
    page.select_option("#language", "en")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.inner_text("#start-button") == "Start round 1"
    assert page.inner_text("#category option[value=technical]") == "Technical"
    page.reload()
    page.wait_for_selector("#start-form", state="visible")
    assert page.evaluate("document.documentElement.lang") == "en"  # remembered over the profile's ko
    assert re.search(r"Start a practice round", page.inner_text("#start"))
    page.select_option("#language", "ko")
    assert page.inner_text("#start-button") == "1라운드 시작"
