"""Navigation a person expects: Back and Forward move between the app's screens (never out of
the app while there is a screen to go back to); a reload shows the screen it was on, a feedback
screen included; the chosen round length is kept; start and submit send one request however
often they are clicked; an answer already given in another tab shows what was recorded there."""

import json
from typing import Any

from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as, start_round

LEARNER = "e50428f2-3090-4290-896d-0e7ee0cffb54"  # a seeded learner (Security Engineer, English)
KOREAN_LEARNER = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # 데이터 사이언티스트, profile language ko


def _screen(page: Any, section: str) -> None:
    page.wait_for_selector(f"#{section}", state="visible", timeout=60_000)


def _posts(page: Any, ending: str) -> list[dict[str, Any]]:
    """The bodies of the page's POST requests to a path ending in `ending`."""
    bodies: list[dict[str, Any]] = []

    def seen(request: Any) -> None:
        if request.method == "POST" and request.url.endswith(ending):
            bodies.append(json.loads(request.post_data or "{}"))

    page.on("request", seen)
    return bodies


def test_back_and_forward_move_between_the_apps_screens(server, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    start_round(page, 3)
    answer_on_screen(page)
    first_feedback = page.inner_text("#feedback-details")
    page.click("#next")
    _screen(page, "question")
    second = page.inner_text("#question-title"), page.inner_text("#stem")
    assert second[0] == "Question 2 of 3"

    page.go_back()
    _screen(page, "feedback")  # the feedback of question 1, not the browser's previous page
    assert page.url.startswith(server)
    assert page.inner_text("#feedback-details") == first_feedback
    page.go_back()
    _screen(page, "start")
    assert page.url.startswith(server)
    page.go_forward()
    _screen(page, "feedback")
    assert page.inner_text("#feedback-details") == first_feedback
    page.go_forward()
    _screen(page, "question")
    assert (page.inner_text("#question-title"), page.inner_text("#stem")) == second
    shot(page, "navigation-forward-question-laptop")


def test_a_reload_on_a_feedback_screen_shows_that_feedback_again(server, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    start_round(page, 3)
    answer_on_screen(page)
    verdict, details = page.inner_text("#verdict"), page.inner_text("#feedback-details")
    page.reload()
    _screen(page, "feedback")
    assert (page.inner_text("#verdict"), page.inner_text("#feedback-details")) == (verdict, details)
    shot(page, "navigation-reloaded-feedback-laptop")
    page.click("#next")
    _screen(page, "question")
    assert page.inner_text("#question-title") == "Question 2 of 3"


def test_the_chosen_round_length_is_kept_after_a_reload(server, new_page):
    page = new_page(LAPTOP)
    rounds = _posts(page, "/rounds")
    sign_in_as(page, server, LEARNER)
    start_round(page, 2)
    page.reload()
    _screen(page, "question")
    for _ in range(2):
        answer_on_screen(page)
        page.click("#next")
    _screen(page, "summary")
    page.reload()
    _screen(page, "summary")
    page.click("#next-round")
    _screen(page, "question")
    assert page.inner_text("#question-title") == "Question 1 of 2"
    assert [(body["round"], body["count"]) for body in rounds] == [(1, 2), (2, 2)]
    page.click("#resume")  # the session's summary, then a new session: its start form has 2 again
    _screen(page, "summary")
    # Round 2's two questions are open: leaving asks first, naming them (test changed to the new
    # behaviour: a new session used to leave them without a word).
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("#new-session")
    _screen(page, "start")
    assert len(asked) == 1
    assert "2 questions" in asked[0]
    assert page.input_value("#count") == "2"


def _held(page: Any, pattern: str) -> tuple[list[Any], list[int]]:
    """POSTs to `pattern` are counted and held (not sent on) until the test lets them go."""
    held: list[Any] = []
    count = [0]

    def hold(route: Any) -> None:
        if route.request.method != "POST":
            return route.continue_()
        count[0] += 1
        held.append(route)
        return None

    page.route(pattern, hold)
    return held, count


def _click_again(page: Any, button: str, form: str, count: list[int]) -> None:
    """A second click (and an Enter-like submit of the form) while the first is in flight: once
    the first request is held (`count`, from _held), however long the browser took to send it."""
    page.wait_for_selector(f"{button}:disabled")
    for _ in range(600):
        if count[0]:
            break
        page.wait_for_timeout(50)  # lets Playwright deliver the held request
    page.locator(button).click(force=True)
    page.evaluate(f"document.querySelector('{form}').requestSubmit()")
    page.wait_for_timeout(300)


def test_start_and_submit_send_one_request_while_theirs_is_in_flight(server, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    _screen(page, "start")
    rounds, started = _held(page, "**/sessions/*/rounds")
    page.fill("#count", "2")
    page.click("#start-button")
    _click_again(page, "#start-button", "#start-form", started)
    assert started == [1]
    rounds.pop().continue_()
    _screen(page, "question")

    answers, submitted = _held(page, "**/sessions/*/answers")
    if page.is_visible("#short"):
        page.fill("#short-answer", "I am not sure.")
    else:
        page.locator("button.choice").first.click()
    page.click("#submit-answer")
    _click_again(page, "#submit-answer", "#answer-form", submitted)
    assert submitted == [1]
    answers.pop().continue_()
    _screen(page, "feedback")
    assert submitted == [1]
    assert page.is_hidden("#error")


def test_an_answer_given_in_another_tab_shows_what_was_recorded_there(server, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, KOREAN_LEARNER)
    start_round(page, 2)
    stem = page.inner_text("#stem")
    tab = page.context.new_page()
    sign_in_as(tab, server, KOREAN_LEARNER)
    _screen(tab, "question")
    assert tab.inner_text("#stem") == stem
    answer_on_screen(tab, "다른 탭에서 쓴 답입니다.")
    recorded = tab.inner_text("#feedback-details")
    tab.close()

    statuses: list[int] = []
    page.on("response", lambda response: statuses.append(response.status) if "/answers" in response.url else None)
    # Another answer than the tab's (the same one again would be a retry, taken as the same attempt).
    if page.is_visible("#short"):
        page.fill("#short-answer", "이 탭에서 쓴 답입니다.")
    else:
        page.locator("button.choice").last.click()
    with page.expect_response(lambda response: "/answers" in response.url) as answered:
        page.click("#submit-answer")
    _screen(page, "feedback")
    assert answered.value.status == 409  # ALREADY_ANSWERED
    assert page.inner_text("#error") == "이 문항은 다른 탭이나 기기에서 이미 답했습니다. 기록된 답을 보여 드립니다."
    assert page.inner_text("#feedback-details") == recorded
    assert stem in recorded
    shot(page, "navigation-answered-elsewhere-laptop")
    page.click("#next")
    _screen(page, "question")
    assert statuses == [409]  # one request, the refused answer (listeners run late: checked here)
    assert page.inner_text("#question-title") == "2문항 중 2번"
