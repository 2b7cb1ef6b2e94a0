"""Resume anywhere: a reload, a new tab and another device (another browser context
signed in as the same learner) continue at the next unanswered question; a finished round shows
its summary, never a restart; no answered question is replayed."""

from typing import Any

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as, start_round

LEARNER = "e50428f2-3090-4290-896d-0e7ee0cffb54"  # a seeded learner (Security Engineer, English)


def _where(page: Any) -> tuple[str, str]:
    page.wait_for_selector("#question", state="visible")
    return page.inner_text("#question-title"), page.inner_text("#stem")


def _refused(page: Any, seen: list[int]) -> None:
    page.on("response", lambda response: seen.append(response.status) if response.status == 409 else None)


def test_a_reload_a_new_tab_and_another_device_continue_at_the_next_unanswered_question(server, new_page):
    conflicts: list[int] = []
    page = new_page(LAPTOP)
    _refused(page, conflicts)
    sign_in_as(page, server, LEARNER)
    start_round(page, 5)
    for number in range(1, 4):
        assert _where(page)[0] == f"Question {number} of 5"
        answer_on_screen(page)
        page.click("#next")
    fourth = _where(page)
    assert fourth[0] == "Question 4 of 5"

    page.reload()
    assert _where(page) == fourth  # the reload lands on question 4, not on a start screen

    tab = page.context.new_page()  # a new tab signs in again (the token lives in its tab)
    _refused(tab, conflicts)
    sign_in_as(tab, server, LEARNER)
    assert _where(tab) == fourth
    tab.close()

    device = new_page(PHONE)  # another device: its own browser context, the same learner
    _refused(device, conflicts)
    sign_in_as(device, server, LEARNER)
    assert _where(device) == fourth
    shot(device, "resume-other-device-phone")
    answer_on_screen(device)
    device.click("#next")
    fifth = _where(device)
    assert fifth[0] == "Question 5 of 5"

    page.reload()
    assert _where(page) == fifth  # what the other device answered is not offered again
    answer_on_screen(page)
    page.click("#next")
    page.wait_for_selector("#summary", state="visible")
    page.click("#show-answers")
    page.wait_for_selector("#answers-list li.attempt")
    assert page.locator("#answers-list li.attempt").count() == 5  # every answer, from both devices
    shot(page, "resume-summary-history-en-laptop")

    device.reload()  # a finished round: its summary, never a restart
    device.wait_for_selector("#summary", state="visible")
    assert device.locator("#rounds tbody tr").first.inner_text().split("\t")[:2] == ["1", "5 of 5"]
    assert device.is_visible("#next-round")
    assert not device.is_visible("#continue-round")
    assert not device.is_visible("#start")
    shot(device, "resume-finished-round-phone")
    assert conflicts == []  # no answered question was sent again


def test_the_summary_mid_round_offers_to_continue_the_round(server, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    start_round(page, 3)
    answer_on_screen(page)
    page.click("#next")
    second = _where(page)
    page.click("#resume")  # "This session's summary", from a question
    page.wait_for_selector("#summary", state="visible")
    assert page.inner_text("#continue-round") == "Continue round 1"
    assert not page.is_visible("#next-round")
    page.click("#continue-round")
    assert _where(page) == second
