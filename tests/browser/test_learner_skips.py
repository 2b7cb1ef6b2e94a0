"""Skipped questions on the learner page: a round left open past its time limit is over, its
unanswered questions are shown as skipped in the summary and the history, and the level panel
and the summary say how many were counted as wrong (English and Korean)."""

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
