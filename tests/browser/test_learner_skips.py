"""Skipped questions on the learner page: a round left open past its time limit is over, its
unanswered questions are shown as skipped in the summary and the history, and the level panel
and the summary say how many were counted as wrong; a question skipped on purpose with its effect
on the button, and a new session that asks first when questions are open (English and Korean)."""

import datetime
from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as, start_round

LEARNER = "e50428f2-3090-4290-896d-0e7ee0cffb54"  # a seeded learner (Security Engineer, English)


def _age_the_round(cloud: Any, session_id: str) -> None:
    """As if round 1 had been started three hours ago (past the round time limit)."""
    long_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=3)
    boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable")).update_item(
        Key={"session_id": f"{session_id}#round#1"},
        UpdateExpression="SET started_at = :at",
        ExpressionAttributeValues={":at": long_ago.isoformat(timespec="seconds").replace("+00:00", "Z")},
    )


def test_skipped_questions_are_marked_and_the_panel_counts_them(server, step_functions, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    start_round(page, 3)
    answer_on_screen(page)
    page.click("#next")
    page.wait_for_selector("#question", state="visible")
    session_id = parse_qs(urlparse(page.url).fragment)["s"][0]  # the address names the session
    _age_the_round(step_functions.runtime.cloud, session_id)

    page.click("#resume")  # the summary: the round is over, two questions were left
    page.wait_for_selector("#summary", state="visible")
    assert page.locator("#rounds tbody tr").first.inner_text().split("\t")[1] == "1 of 3 (2 skipped)"
    assert not page.is_visible("#continue-round")
    assert "2 questions you left unanswered are counted as wrong." in page.inner_text("#summary-ability")
    page.click("#show-answers")
    page.wait_for_selector("#answers-list li.attempt")
    statuses = page.locator("#answers-list li.attempt .status").all_inner_texts()
    assert sorted(statuses)[-2:] == ["skipped: counted as wrong"] * 2
    assert page.locator("#answers-list li.attempt .answer-text").all_inner_texts().count("(no answer)") == 2
    shot(page, "skips-summary-history-en-laptop")

    page.select_option("#language", "ko")
    assert page.locator("#answers-list li.attempt .status").all_inner_texts().count("건너뜀: 오답으로 계산") == 2
    assert "답하지 않고 넘긴 2문항은 오답으로 계산됩니다." in page.inner_text("#summary-ability")
    assert "(건너뜀 2)" in page.locator("#rounds tbody tr").first.inner_text()
    page.set_viewport_size(PHONE)
    shot(page, "skips-summary-history-ko-phone")

    page.select_option("#language", "en")
    page.click("#new-session")  # the level panel on the start screen
    page.wait_for_selector("#ability", state="visible")
    assert page.locator("#ability li.skipped").inner_text() == "2 questions you left unanswered are counted as wrong."
    shot(page, "skips-level-panel-en-phone")


def _session_questions(page: Any) -> list[dict[str, Any]]:
    """The session on screen's questions as the API lists them (the page's own token)."""
    session_id = parse_qs(urlparse(page.url).fragment)["s"][0]
    return page.evaluate(f"Slea.api('GET', '/sessions/{session_id}/questions')")["questions"]


def _skip_then_leave(page: Any, language: str, texts: dict[str, str]) -> None:
    """Skip question 1 (its effect written on the button), answer question 2, leave question 3
    open: the summary says it is open (never "finished"), and New session asks first."""
    start_round(page, 3)
    assert page.inner_text("#skip-question") == texts["skip"]  # the effect, before the click
    shot(page, f"skips-skip-button-{language}")
    with page.expect_response(lambda r: r.url.endswith("/skip")) as skipped:
        page.click("#skip-question")
    assert skipped.value.status == 200
    page.wait_for_function("() => document.querySelector('#question-title').textContent.includes('2')")
    first = _session_questions(page)[0]
    assert (first["skipped"], first["answered"]) == (True, True)
    answer_on_screen(page)
    page.click("#next")
    page.wait_for_selector("#question", state="visible")
    page.click("#resume")  # the summary mid-round: one question still open
    page.wait_for_selector("#summary", state="visible")
    assert page.inner_text("#next-round-text") == texts["open_left"]
    assert texts["done"] not in page.inner_text("#summary")
    assert page.is_visible("#continue-round")
    assert page.locator("#rounds tbody tr").first.inner_text().split("\t")[1] == texts["row"]
    shot(page, f"skips-summary-open-{language}")

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#new-session")  # dismissed: nothing happens, the round stays open
    page.wait_for_timeout(300)
    assert asked == [texts["confirm"]]
    assert page.is_visible("#summary")
    assert sum(not q["answered"] for q in _session_questions(page)) == 1

    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("#new-session")
    page.wait_for_selector("#start-form", state="visible")
    # The panel read again after the move: the question left open is counted now, with the skip.
    page.wait_for_function(
        "(text) => (document.querySelector('#ability li.skipped') || {}).textContent === text", arg=texts["panel"]
    )
    assert len(asked) == 2
    shot(page, f"skips-left-counted-{language}")


def test_skip_button_and_leaving_with_open_questions_laptop_english(server, step_functions, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    _skip_then_leave(
        page,
        "en-laptop",
        {
            "skip": "Skip — counts as a wrong answer",
            "open_left": "1 question of round 1 is still open: continue the round, or it counts as a wrong answer "
            "when you move on.",
            "done": "You have finished",
            "row": "1 of 3 (1 skipped)",
            "confirm": "1 question of this session is still open. Start a new session? It will count as a wrong "
            "answer.",
            "panel": "2 questions you left unanswered are counted as wrong.",
        },
    )


def test_skip_button_and_leaving_with_open_questions_phone_korean(server, step_functions, new_page):
    page = new_page(PHONE)
    sign_in_as(page, server, LEARNER)
    page.wait_for_selector("#start-form", state="visible")
    page.select_option("#language", "ko")
    _skip_then_leave(
        page,
        "ko-phone",
        {
            "skip": "건너뛰기 — 오답으로 계산됩니다",
            "open_left": "1라운드에 아직 답하지 않은 문항이 1개 있습니다. 라운드를 계속하세요. 다른 곳으로 넘어가면 "
            "오답으로 계산됩니다.",
            "done": "모두 마쳤습니다",
            "row": "3문항 중 1 (건너뜀 1)",
            "confirm": "이 세션에 아직 답하지 않은 문항이 1개 있습니다. 새 세션을 시작할까요? 그 문항은 오답으로 "
            "계산됩니다.",
            "panel": "답하지 않고 넘긴 2문항은 오답으로 계산됩니다.",
        },
    )
