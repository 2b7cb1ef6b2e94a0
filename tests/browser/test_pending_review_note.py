"""The "Your level" panel says how many answers wait for a reviewer and that the level may move
when they are reviewed (the API's pending_review): on a laptop in English, on a phone in Korean."""

import json
import time
import urllib.request
from typing import Any

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.learner_steps import LAPTOP, sign_in_as
from tests.browser.test_level_panel import ENGLISH_LEARNER, KOREAN_LEARNER, api_ability

ANSWERS = 2
NOTE = {
    "en": "{count} answers are waiting for a reviewer: they count provisionally, and your level may move when"
    " they are reviewed.",
    "ko": "답 {count}개가 검토를 기다리고 있습니다. 지금은 잠정적으로 반영되어 있어, 검토되면 수준이 바뀔 수 있습니다.",
}


def api(server: str, user: str, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {user}", "Content-Type": "application/json"}
    request = urllib.request.Request(f"{server}{path}", data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=60) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def short_answers_waiting(server: str, user: str) -> None:
    """A round of short answers answered with text the grader cannot finalise (they wait for review)."""
    session = api(server, user, "POST", "/sessions", {})["session_id"]
    request = {"category": "technical", "count": ANSWERS, "question_types": ["short_answer"]}
    api(server, user, "POST", f"/sessions/{session}/rounds", request)
    for _ in range(600):
        questions = api(server, user, "GET", f"/sessions/{session}/questions")["questions"]
        if len(questions) >= ANSWERS:
            break
        time.sleep(0.1)
    for question in questions:
        body = {"question_id": question["question_id"], "user_answer": "asdf qwer zxcv"}
        assert api(server, user, "POST", f"/sessions/{session}/answers", body)["needs_review"]


@pytest.mark.parametrize(
    ("viewport", "device", "user", "language"),
    [(LAPTOP, "laptop", ENGLISH_LEARNER, "en"), (PHONE, "phone", KOREAN_LEARNER, "ko")],
)
def test_the_level_panel_says_how_many_answers_wait_for_review(
    server, new_page, korean_page, unlimited_rates, viewport, device, user, language
):
    short_answers_waiting(server, user)
    (technical,) = [entry for entry in api_ability(server, user)["abilities"] if entry["category"] == "technical"]
    assert technical["pending_review"] == ANSWERS
    page = korean_page(viewport) if language == "ko" else new_page(viewport)
    sign_in_as(page, server, user)
    note = page.locator("#ability .ability[data-category=technical] .ability-pending")
    note.wait_for(state="visible")
    assert note.inner_text() == NOTE[language].format(count=ANSWERS)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(page, f"level-panel-pending-{language}-{device}")
