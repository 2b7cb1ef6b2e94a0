"""The "Your level" panel says what the API measured, and nothing it did not: the 95% range it
prints is the API's (theta -+ 1.96 se), the trend names the answers it compares, the count of
answers is the count of points drawn, the axis stays readable when every answer is on one day,
and the panel is there on the round's summary screen, not only on the start screen. On a laptop
and a phone, in English and Korean."""

import json
import urllib.request
from typing import Any

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.learner_steps import LAPTOP, answer_on_screen, sign_in_as

ENGLISH_LEARNER = "550e8400-e29b-41d4-a716-446655440000"  # the demo's backend engineer, profile language en
KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # profile language ko
TREND_ANSWERS = 5  # SleaAbility.TREND_ANSWERS


def fixed(value: float) -> str:
    """A number as the page prints it: one decimal, a true minus sign."""
    return "0.0" if abs(value) < 0.05 else f"{value:.1f}".replace("-", "\u2212")


def api_ability(server: str, user: str) -> dict[str, Any]:
    """GET /learners/me/ability as the learner (locally the bearer token is the subject)."""
    request = urllib.request.Request(f"{server}/learners/me/ability", headers={"Authorization": f"Bearer {user}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body: dict[str, Any] = json.loads(response.read())
    return body


def expected_trend(points: list[dict[str, Any]]) -> tuple[str, int, str, str]:
    """(direction, answers compared, from, to) as the panel must say it."""
    last, then = points[-1], points[max(0, len(points) - 1 - TREND_ANSWERS)]
    start, end = fixed(then["theta"]), fixed(last["theta"])
    change = round(float(end.replace("\u2212", "-")) - float(start.replace("\u2212", "-")), 1)
    # "Steady" only where the printed numbers are equal; a smaller move than 0.2 is "slightly".
    slight = "slightly_up" if change > 0 else "slightly_down"
    direction = "steady" if change == 0 else slight if abs(change) < 0.2 else "up" if change > 0 else "down"
    return direction, last["answers"] - then["answers"], start, end


WORDS = {
    "en": {
        "range": "we are 95% sure your ability lies between {low} and {high}",
        "answers": "From {count} answers,",
        "title": "Technical ability over your last {count} answers",
        "trend": {
            "up": "Up {change} over your last {count} answers (from {start} to {end}).",
            "down": "Down {change} over your last {count} answers (from {start} to {end}).",
            "steady": "Steady over your last {count} answers (from {start} to {end}).",
            "slightly_up": "Slightly up ({change}) over your last {count} answers (from {start} to {end}).",
            "slightly_down": "Slightly down ({change}) over your last {count} answers (from {start} to {end}).",
        },
        "axis": "answer {number}",
    },
    "ko": {
        "range": "95% 확률로 {low}에서 {high} 사이에 있습니다",
        "answers": "답 {count}개로 볼 때",
        "title": "마지막 답 {count}개에 따른 기술 능력",
        "trend": {
            "up": "마지막 답 {count}개 동안 {change} 상승 ({start} → {end}).",
            "down": "마지막 답 {count}개 동안 {change} 하락 ({start} → {end}).",
            "steady": "마지막 답 {count}개 동안 변화 없음 ({start} → {end}).",
            "slightly_up": "마지막 답 {count}개 동안 {change} 소폭 상승 ({start} → {end}).",
            "slightly_down": "마지막 답 {count}개 동안 {change} 소폭 하락 ({start} → {end}).",
        },
        "axis": "{number}번째 답",
    },
}


def assert_panel_matches(page: Any, measured: dict[str, Any], language: str) -> None:
    words = WORDS[language]
    (entry,) = [ability for ability in measured["abilities"] if ability["category"] == "technical"]
    points = [point for point in measured["history"] if point["category"] == "technical"]
    block = page.locator("#ability .ability[data-category=technical]")
    estimate = block.locator(".ability-estimate").inner_text()
    # Words and numbers agree: the range printed is the API's, and no unnamed "±" stands beside it.
    low, high = fixed(entry["theta"] - 1.96 * entry["se"]), fixed(entry["theta"] + 1.96 * entry["se"])
    assert words["range"].format(low=low, high=high) in estimate, estimate
    assert "±" not in estimate
    # Counts agree: the answers the estimate rests on, the points drawn, the chart's name.
    assert words["answers"].format(count=entry["answers"]) in estimate, estimate
    assert len(points) == entry["answers"] == block.locator("svg circle.estimate").count()
    assert [point["answers"] for point in points] == list(range(1, entry["answers"] + 1))
    assert block.get_by_role("img", name=words["title"].format(count=entry["answers"])).count() == 1
    # The trend names what it compares, and it is the data's.
    direction, count, start, end = expected_trend(points)
    change = f"{abs(round(float(end.replace(chr(0x2212), '-')) - float(start.replace(chr(0x2212), '-')), 1)):.1f}"
    trend = block.locator(".ability-trend").inner_text()
    assert trend == words["trend"][direction].format(count=count, change=change, start=start, end=end), trend
    # Every answer was today: the axis names the first and the last answer, which differ.
    axis = block.locator("svg text").all_text_contents()
    first, last = words["axis"].format(number=1), words["axis"].format(number=entry["answers"])
    assert first in axis, axis
    assert last in axis, axis
    assert first != last


@pytest.mark.parametrize(("viewport", "device"), [(LAPTOP, "laptop"), (PHONE, "phone")])
@pytest.mark.parametrize(("user", "language"), [(ENGLISH_LEARNER, "en"), (KOREAN_LEARNER, "ko")])
def test_the_round_summary_shows_the_level_the_api_measured(
    server, new_page, korean_page, unlimited_rates, viewport, device, user, language
):
    page = korean_page(viewport) if language == "ko" else new_page(viewport)
    sign_in_as(page, server, user)
    page.wait_for_selector("#start-form", state="visible")
    page.fill("#count", "3")
    page.click("#start-button")
    page.wait_for_selector("#question", state="visible", timeout=60_000)
    for _ in range(3):
        answer_on_screen(page)
        page.click("#next")
    page.wait_for_selector("#summary", state="visible")
    # The panel is on the round's end screen, with the level after this round's answers.
    page.wait_for_selector("#ability .ability[data-category=technical] svg", state="visible")
    assert page.is_visible("#summary")
    assert page.is_visible("#ability")
    measured = api_ability(server, user)
    assert_panel_matches(page, measured, language)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(page, f"level-panel-summary-{language}-{device}")


def _history_of_one_day(thetas: list[float], se: float = 0.4) -> list[dict[str, Any]]:
    return [
        {"at": f"2026-11-26T10:{number:02d}:00Z", "category": "technical", "theta": theta, "se": se, "answers": number}
        for number, theta in enumerate(thetas, start=1)
    ]


def _one_day_of(thetas: list[float], se: float, level: str, updated_at: str) -> dict[str, Any]:
    """GET /learners/me/ability after one day of answers in technical, each's estimate in `thetas`."""
    ability = {
        "category": "technical",
        "theta": thetas[-1],
        "se": se,
        "level": level,
        "answers": len(thetas),
        "updated_at": updated_at,
        "answers_to_precision": 40,
    }
    return {"abilities": [ability], "history": _history_of_one_day(thetas)}


def _panel_showing(page: Any, server: str, learner: str, measured: dict[str, Any]) -> None:
    """The learner page of `learner`, its ability read as `measured`: the panel and its chart shown."""
    page.route("**/learners/me/ability", lambda route: route.fulfill(json=measured))
    sign_in_as(page, server, learner)
    page.wait_for_selector("#ability .ability svg", state="visible")


@pytest.mark.parametrize(("viewport", "device"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_five_right_answers_in_a_row_read_as_a_rise_over_those_five(server, new_page, viewport, device):
    # The case the panel once got wrong: after five right answers (-1.6 -> -1.0) it said
    # "Falling: from -0.8 to -1.0", comparing with the very first answer.
    thetas = [-0.3, -0.5, -0.8, -0.9, -1.1, -1.2, -1.3, -1.4, -1.5, -1.4, -1.6, -1.6, -1.6, -1.5, -1.3, -1.2, -1.0]
    measured = _one_day_of(thetas, se=0.66, level="beginner", updated_at="2026-11-26T10:17:00Z")
    page = new_page(viewport)
    _panel_showing(page, server, ENGLISH_LEARNER, measured)
    assert_panel_matches(page, measured, "en")
    block = page.locator("#ability .ability")
    assert block.locator(".ability-trend").inner_text() == (
        "Up 0.6 over your last 5 answers (from \u22121.6 to \u22121.0)."
    )
    assert "between \u22122.3 and 0.3" in block.locator(".ability-estimate").inner_text()
    assert "From 17 answers," in block.locator(".ability-estimate").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(page, f"level-panel-trend-{device}")


def test_an_answers_row_keeps_its_value_and_a_re_estimate_is_a_row_that_says_why(server, new_page):
    """The table under the chart: each answer's row reads the estimate stored when it was graded;
    a reviewer's change of a grade and questions counted as wrong are rows of their own that say
    so, in English and in Korean (an answer's row once took the later value: -0.5, then -0.9)."""
    history = [
        {"at": "2026-11-26T10:01:00Z", "category": "technical", "theta": -0.5, "se": 0.9, "answers": 1},
        {
            "at": "2026-11-26T10:02:00Z",
            "category": "technical",
            "theta": -0.9,
            "se": 0.9,
            "answers": 1,
            "event": "review",
        },
        {"at": "2026-11-26T10:03:00Z", "category": "technical", "theta": -0.7, "se": 0.8, "answers": 2},
        {
            "at": "2026-11-26T10:04:00Z",
            "category": "technical",
            "theta": -1.1,
            "se": 0.8,
            "answers": 2,
            "event": "skipped",
        },
    ]
    measured = {
        "abilities": [
            {
                "category": "technical",
                "theta": -1.1,
                "se": 0.8,
                "level": "beginner",
                "answers": 2,
                "skipped": 1,
                "updated_at": "2026-11-26T10:04:00Z",
                "answers_to_precision": 40,
            }
        ],
        "history": history,
    }
    page = new_page(LAPTOP)
    _panel_showing(page, server, ENGLISH_LEARNER, measured)
    rows = page.locator("#ability .ability tbody tr")

    def cells(index: int) -> tuple[str, str]:
        row = rows.nth(index).locator("td")
        return row.nth(0).text_content() or "", row.nth(2).text_content() or ""

    assert [cells(i) for i in range(4)] == [
        ("Answer 1", "\u22120.5"),
        ("Answer 1, re-estimated: a reviewer changed a grade", "\u22120.9"),
        ("Answer 2", "\u22120.7"),
        ("After answer 2: unanswered questions counted as wrong", "\u22121.1"),
    ]
    block = page.locator("#ability .ability")
    assert block.get_by_role("img", name="Technical ability over your last 2 answers").count() == 1
    page.select_option("#language", "ko")
    assert cells(1)[0] == "1번째 답 이후 다시 추정: 검토자가 점수를 고쳤습니다"


@pytest.mark.parametrize(("viewport", "device"), [(LAPTOP, "laptop"), (PHONE, "phone")])
def test_a_small_fall_is_said_with_its_size_and_the_level_word_in_korean(server, korean_page, viewport, device):
    # The case a Korean learner met: "변화 없음" beside -1.7 -> -1.8, and "지금 기술 수준: novice".
    thetas = [-1.7, -1.8]
    measured = _one_day_of(thetas, se=0.9, level="novice", updated_at="2026-11-26T10:02:00Z")
    page = korean_page(viewport)
    _panel_showing(page, server, KOREAN_LEARNER, measured)
    block = page.locator("#ability .ability")
    trend = block.locator(".ability-trend").inner_text()
    assert trend == "마지막 답 1개 동안 0.1 소폭 하락 (\u22121.7 → \u22121.8).", trend
    assert "변화 없음" not in trend
    panel = page.locator("#ability").inner_text()
    assert "입문" in panel
    assert "novice" not in panel
    screenshot(page, f"level-panel-small-fall-ko-{device}")
