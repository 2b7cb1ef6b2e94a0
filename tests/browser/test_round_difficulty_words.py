"""A difficulty reads on its scale, in words, in English and Korean: "4 of 10: beginner" on each
question and in the summary's announcement of round 2 (made once round 1 is over); a round with
fewer questions than asked says how many came and why."""

import re
from typing import Any

import pytest

from slea.measurement import scale
from tests.browser.conftest import screenshot
from tests.browser.learner_steps import LAPTOP, answer_on_screen, sign_in_as, start_round

ENGLISH_LEARNER = "550e8400-e29b-41d4-a716-446655440000"  # profile language en
KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # profile language ko
LEVELS = {
    "en": {
        "novice": "novice",
        "beginner": "beginner",
        "intermediate": "intermediate",
        "advanced": "advanced",
        "expert": "expert",
    },
    "ko": {"novice": "입문", "beginner": "초급", "intermediate": "중급", "advanced": "고급", "expert": "전문가"},
}
ON_SCALE = {"en": re.compile(r"(\d+) of 10: (\w+)"), "ko": re.compile(r"10단계 중 (\d+)단계: ([가-힣]+)")}
SHORT = {
    "en": "This round has 2 of the 3 questions you asked for: there are not enough concepts left",
    "ko": "요청한 3문항 중 2문항만 준비되었습니다. 이 난이도 근처에 아직 묻지 않은 개념이",
}


def on_scale(text: str, language: str) -> int:
    found = ON_SCALE[language].search(text)
    assert found, text
    label, level = int(found.group(1)), found.group(2)
    assert level == LEVELS[language][scale.label_level(label)], text
    return label


def said_short(route: Any) -> None:
    """The round's status as a short round would say it (the page trusts the API's counts)."""
    response = route.fetch()
    body = response.json()
    if body.get("status") == "SUCCEEDED":
        body |= {"delivered": 2, "shortfall_reason": "too_few_concepts", "from_neighbours": 0}
    route.fulfill(response=response, json=body)


@pytest.mark.parametrize(("user", "language"), [(ENGLISH_LEARNER, "en"), (KOREAN_LEARNER, "ko")])
def test_difficulty_reads_on_its_scale_and_a_short_round_says_so(
    server, new_page, korean_page, unlimited_rates, user, language
):
    page = korean_page(LAPTOP) if language == "ko" else new_page(LAPTOP)
    page.route(re.compile(r".*/sessions/[^/]+/rounds/1$"), said_short)
    sign_in_as(page, server, user)
    start_round(page, 3)
    assert page.locator("#round-shortfall").inner_text().startswith(SHORT[language])
    for number in range(3):
        on_scale(page.locator("#question-meta").inner_text(), language)
        answer_on_screen(page)
        page.click("#next")
        if number < 2:
            page.wait_for_selector("#question", state="visible")
    page.wait_for_selector("#summary", state="visible")
    page.wait_for_selector("#next-round", state="visible")
    on_scale(page.locator("#next-round-text").inner_text(), language)
    screenshot(page, f"difficulty-words-{language}")
