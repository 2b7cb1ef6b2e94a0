"""The placement test in the learner page ("Find my level"), end to end against the local server:
the bank is empty at first, so the page waits ("Preparing questions…", asking again by itself)
while generation fills it; then one question at a time with a progress line that says what the
stopping rule waits for (the API's more_expected and max_questions), focus on each new question's
heading; then the result: the level with how sure it is, its 95% range in numbers and level
words, the questions and why the test stopped, what the level means, focus on its heading, and a
way back to the start. On a laptop in English and on a phone in Korean (no English UI text)."""

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as
from tests.browser.test_learner_korean import _no_english

ENGLISH_LEARNER = "550e8400-e29b-41d4-a716-446655440000"  # profile language en
KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # profile language ko
MAX_QUESTIONS = 25  # the test never asks more (PlacementProgress.max_questions)
KOREAN_LEVELS = {"novice": "입문", "beginner": "초급", "intermediate": "중급", "advanced": "고급", "expert": "전문가"}
BANDS = (("novice", -math.inf), ("beginner", -1.5), ("intermediate", -0.5), ("advanced", 0.5), ("expert", 1.5))
STOPPED = {
    "en": {
        "precise": "The test stopped because the estimate reached the precision it aims for.",
        "classified": "The test stopped because your level was settled.",
        "max_items": "The test stopped because it reached its maximum length.",
        "no_items": "The test stopped because the question bank had no further question for you.",
    },
    "ko": {
        "precise": "추정이 목표한 정밀도에 이르러 검사를 마쳤습니다.",
        "classified": "수준이 분명히 정해져 검사를 마쳤습니다.",
        "max_items": "최대 문항 수에 이르러 검사를 마쳤습니다.",
        "no_items": "문항 은행에 더 낼 문항이 없어 검사를 마쳤습니다.",
    },
}


def half_up(value: float) -> int:
    """Math.round: halves up."""
    return math.floor(value + 0.5)


def fixed(value: float) -> str:
    """A number as the page prints it (toFixed(1): ties away from zero; a true minus sign)."""
    if abs(value) < 0.05:
        return "0.0"
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)).replace("-", "\u2212")


def level_of(theta: float) -> str:
    return [word for word, floor in BANDS if theta >= floor][-1]


def word(level: str, language: str) -> str:
    return KOREAN_LEVELS[level] if language == "ko" else level


def progress_line(progress: dict[str, Any], language: str) -> str:
    more, most = progress["more_expected"], progress["max_questions"]
    if language == "ko":
        if not more:
            return f"이 문항이 마지막일 수 있습니다 (모두 최대 {most}문항)."
        return f"수준을 정밀하게 잴 때까지 약 {more}문항 더 (모두 최대 {most}문항)."
    if not more:
        return f"This may be the last question (at most {most} in all)."
    questions = "question" if more == 1 else "questions"
    return f"About {more} more {questions} until your level is measured precisely (at most {most} in all)."


def level_sentence(result: dict[str, Any], language: str) -> str:
    level = word(result["level"], language)
    level = level[0].upper() + level[1:]
    if result["other_level"] is None:
        percent = half_up(result["level_chance"] * 100)
        return f"{level} — 약 {percent}% 확실" if language == "ko" else f"{level} — about {percent}% sure"
    count = max(2, half_up(1 / result["other_level_chance"]))
    other = word(result["other_level"], language)
    return (
        f"{level} — {other}일 확률 {count}분의 1"
        if language == "ko"
        else f"{level} — 1 chance in {count} that it is {other}"
    )


def range_sentence(result: dict[str, Any], language: str) -> str:
    low, high, theta = fixed(result["range_low"]), fixed(result["range_high"]), fixed(result["theta"])
    start, end = word(level_of(result["range_low"]), language), word(level_of(result["range_high"]), language)
    if language == "ko":
        where = f"모두 {start} 범위입니다." if start == end else f"{start}에서 {end}까지입니다."
        return f"95% 구간: 능력 척도에서 {low} ~ {high} (가장 가능성 높은 값 {theta}), {where}"
    where = f"all within {start}." if start == end else f"from {start} to {end}."
    return f"95% range: {low} to {high} on the ability scale (best estimate {theta}), {where}"


def next_response(response: Any) -> bool:
    return response.url.endswith("/next") and response.request.method == "POST" and response.status == 200


def focused(page: Any) -> str:
    return str(page.evaluate("document.activeElement && document.activeElement.id"))


def _question_shown(page: Any, title: str, question: dict[str, Any], progress: str, title_focused: bool) -> None:
    """The open question on the page under `title` (the title focused, unless the page was just
    loaded): its stem and the progress line as the server sent them."""
    on_the_title = " && document.activeElement.id === 'question-title'" if title_focused else ""
    page.wait_for_function(
        f"title => !document.querySelector('#question').hidden{on_the_title}"
        " && document.querySelector('#question-title').textContent === title",
        arg=title,
    )
    assert page.text_content("#stem") == question["stem"]
    assert page.text_content("#placement-progress") == progress


@pytest.mark.parametrize(
    ("viewport", "device", "user", "language"),
    [(LAPTOP, "laptop", ENGLISH_LEARNER, "en"), (PHONE, "phone", KOREAN_LEARNER, "ko")],
)
def test_find_my_level_from_an_empty_bank_to_the_result(
    server, new_page, korean_page, unlimited_rates, viewport, device, user, language
):
    page = korean_page(viewport) if language == "ko" else new_page(viewport)
    sign_in_as(page, server, user)
    page.wait_for_selector("#start-form", state="visible")
    assert page.inner_text("#placement-button") == ("내 수준 찾기" if language == "ko" else "Find my level")
    if language == "ko":
        _no_english(page, "start")
    shot(page, f"placement-start-{language}-{device}")
    page.select_option("#category", "technical")

    # The bank is empty: the page waits for generation, asking again by itself, then shows the
    # first question (the first 200 of POST .../next).
    with page.expect_response(next_response, timeout=120_000) as first:
        page.click("#placement-button")
        page.wait_for_selector("#progress", state="visible")
        preparing = page.inner_text("#progress-title")
        assert preparing == ("문항을 준비하는 중…" if language == "ko" else "Preparing questions…")
        assert focused(page) == "progress-title"
        shot(page, f"placement-waiting-{language}-{device}")
        if language == "ko":
            _no_english(page, "waiting")
    step = first.value.json()
    assert page.is_hidden("#error"), page.inner_text("#error")

    asked: list[str] = []
    while not step["done"]:
        question = step["question"]
        assert question["question_id"] not in asked
        asked.append(question["question_id"])
        number = len(asked)
        title = f"수준 찾기 · {number}번째 문항" if language == "ko" else f"Level test · question {number}"
        _question_shown(page, title, question, progress_line(step["progress"], language), title_focused=True)
        assert page.get_attribute("#placement-progress", "aria-live") == "polite"
        assert step["progress"]["answered"] == len(asked) - 1
        if len(asked) == 2:
            shot(page, f"placement-question-{language}-{device}")
            if language == "ko":
                _no_english(page, "question")
            # A reload resumes the test at the same open question (the server's record).
            page.reload()
            _question_shown(page, title, question, progress_line(step["progress"], language), title_focused=False)
        answer_on_screen(page)
        with page.expect_response(next_response, timeout=60_000) as following:
            page.click("#next")
        step = following.value.json()
        assert len(asked) <= MAX_QUESTIONS

    result = step["result"]
    page.wait_for_selector("#placement-result", state="visible")
    assert focused(page) == "placement-heading"
    level = word(result["level"], language)
    heading = page.inner_text("#placement-heading")
    assert heading == (f"기술 분야의 내 수준: {level}" if language == "ko" else f"Your level in Technical: {level}")
    assert page.inner_text("#placement-sentence") == level_sentence(result, language)
    assert page.inner_text("#placement-range") == range_sentence(result, language)
    items = page.inner_text("#placement-items")
    assert result["items"] == len(asked)
    counted = f"{len(asked)}문항으로 측정했습니다." if language == "ko" else f"Measured from {len(asked)} question"
    assert items.startswith(counted), items
    assert items.endswith(STOPPED[language][result["stopped_because"]]), items
    assert page.inner_text("#placement-meaning").startswith(
        f"{level}의 뜻: " if language == "ko" else f"What {level} means: "
    )
    assert page.locator("#placement-chances tbody tr").count() == len(BANDS)
    assert page.is_visible("#placement-pending") == bool(result["pending_review"])
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    if language == "ko":
        _no_english(page, "result")
    shot(page, f"placement-result-{language}-{device}")

    # Back to the start; a practice round from there is a new practice session, not the test's.
    page.click("#placement-back")
    page.wait_for_selector("#start-form", state="visible")
    page.fill("#count", "1")
    page.click("#start-button")
    page.wait_for_selector("#question:visible, #error:visible, #retry-round:visible", timeout=60_000)
    shot(page, f"placement-after-{language}-{device}")
    assert page.is_hidden("#error"), page.inner_text("#error")
    assert page.is_visible("#question"), page.inner_text("main")
    assert page.is_hidden("#placement-progress")
