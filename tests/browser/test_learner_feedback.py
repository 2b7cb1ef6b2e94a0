"""Feedback that teaches, and the answer box's edges: the feedback shows the question
and the learner's own answer, the parts of ScoreAnswerOutput.details when present (why the key is
right beside why the choice picked is wrong, next steps), each once; on a phone Next is in view
right after submitting; the answer limit is shown and refused in words, never cut; an answer of
only invisible characters is empty; a message goes once its cause does."""

import json
import re
from typing import Any

from tests.browser.conftest import PHONE
from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, start_round

NEXT_IN_VIEW = """() => {
  const box = document.querySelector("#next").getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight && box.height > 0;
}"""


def _sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#signin-name", name)
    page.locator("#local-signin button[type=submit]").click()
    page.wait_for_selector("#start-form", state="visible")


def _only(page: Any, types: list[str]) -> None:
    """Rounds of these item types only (the start form does not offer the choice)."""

    def narrowed(route: Any) -> None:
        if route.request.method != "POST":
            return route.continue_()
        body = {**json.loads(route.request.post_data or "{}"), "question_types": types}
        return route.continue_(post_data=json.dumps(body))

    page.route("**/sessions/*/rounds", narrowed)


def _with_details(page: Any, captured: list[dict[str, Any]]) -> None:
    """The real grading, with `details` built from what the API returned (the explain helper fills
    them server-side): the page must show each part once and leave the prose out."""

    def add_details(route: Any) -> None:
        response = route.fetch()
        graded = response.json()
        sent = json.loads(route.request.post_data or "{}")
        graded["is_correct"] = False
        graded["details"] = {
            "language": "en",
            "question": "DETAILS-QUESTION: " + page.inner_text("#stem"),
            "your_answer": "DETAILS-YOURS: " + sent["user_answer"],
            "correct_answer": "DETAILS-KEY",
            # One line with no space at its end: the page lays white space out (pre-line drops a
            # line's trailing spaces) and the count below is exact.
            "why_correct": "DETAILS-WHY-RIGHT " + " ".join(graded["explanation"].split())[:80].rstrip(),
            "why_yours_is_wrong": "DETAILS-WHY-WRONG",
            "next_steps": ["DETAILS-STEP-ONE", "DETAILS-STEP-TWO"],
        }
        captured.append(graded)
        route.fulfill(response=response, json=graded)

    page.route("**/sessions/*/answers", add_details)


def test_feedback_shows_the_question_and_own_answer_and_next_is_in_view_on_a_phone(server, new_page):
    page = new_page(PHONE)
    _sign_in(page, server, "Feedback")
    _only(page, ["multiple_choice"])
    start_round(page, 2)
    stem = page.inner_text("#stem")
    picked = page.locator("button.choice").first.inner_text()
    answer_on_screen(page)
    assert page.evaluate(NEXT_IN_VIEW), "Next must be in view right after submitting, without scrolling"
    shown = page.inner_text("#feedback-details")
    assert stem in shown
    assert re.sub(r"^[A-Z]\)\s*", "", picked) in shown  # the option picked, by its text
    assert not page.is_visible("#explanation")  # the server's details explain; the prose would repeat them
    shot(page, "feedback-en-phone", full_page=False)
    page.click("#next")

    captured: list[dict[str, Any]] = []
    _with_details(page, captured)
    answer_on_screen(page)
    assert page.evaluate(NEXT_IN_VIEW)
    details = captured[0]["details"]
    section = page.inner_text("#feedback")
    for part in ("question", "your_answer", "correct_answer", "why_correct", "why_yours_is_wrong"):
        assert section.count(details[part]) == 1, part  # each part once: no repetition
    assert section.count("DETAILS-STEP-ONE") == 1
    assert not page.is_visible("#explanation-block")  # the prose would say it all again
    labels = page.locator("#feedback-details dt").all_inner_texts()
    parts = ["The question", "Your choice", "The answer", "Why your choice is wrong", "Why it is right", "Next steps"]
    assert labels == parts
    shot(page, "feedback-details-en-phone")


def test_a_long_paste_is_refused_in_words_and_blank_answers_are_empty(server, new_page):
    page = new_page(LAPTOP)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if request.url.endswith("/answers") else None)
    _sign_in(page, server, "Edges")
    _only(page, ["short_answer"])
    start_round(page, 1)
    assert page.inner_text("#answer-limit") == "0 / 4000 characters"
    paste = "가" * 10_000
    page.fill("#short-answer", paste)
    assert page.input_value("#short-answer") == paste  # kept whole, not cut at 4,000
    assert page.inner_text("#answer-limit") == "10000 / 4000 characters"
    message = "Your answer is 10000 characters long; the limit is 4000. Please shorten it."
    assert page.inner_text("#answer-message") == message
    page.click("#submit-answer")
    assert sent == []  # refused in the page
    assert page.get_attribute("#short-answer", "aria-invalid") == "true"
    shot(page, "input-too-long-en-laptop")

    for blank in ("\u200b", "\u200d\ufeff", "\u2060\u200e", "\u202e"):
        page.fill("#short-answer", blank)
        page.click("#submit-answer")
        assert page.inner_text("#answer-message") == "Please write an answer first.", repr(blank)
    assert sent == []
    page.fill("#short-answer", "A real answer")
    assert not page.is_visible("#answer-message")  # its cause is gone
    assert page.inner_text("#answer-limit") == "13 / 4000 characters"


def test_please_choose_goes_once_a_choice_is_made(server, new_page):
    page = new_page(LAPTOP)
    _sign_in(page, server, "Chooser")
    _only(page, ["multiple_choice"])
    start_round(page, 1)
    page.click("#submit-answer")
    assert page.inner_text("#answer-message") == "Please choose an answer first."
    page.locator("button.choice").first.click()
    assert not page.is_visible("#answer-message")
    assert not page.is_visible("#error")


def test_the_held_back_note_is_said_once_per_round_and_every_score_says_the_pass_mark(server, new_page):
    """The note that what would answer an open item is held back comes in its own field
    (held_back_note) after every answer while the round is open; the page says it once, with the
    round's first feedback, never inside the explanation. A score short of full marks says where
    the pass mark is ("correct from 80"), beside right or wrong, in English and in Korean."""
    page = new_page(LAPTOP)
    _sign_in(page, server, "Once a round")
    _only(page, ["multiple_choice"])
    graded: list[dict[str, Any]] = []

    def partial(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        if len(graded) == 1:  # the second answer: a reviewer-like partial score below the mark
            body.update(score=70, is_correct=False)
        graded.append(body)
        route.fulfill(response=response, json=body)

    page.route("**/sessions/*/answers", partial)
    start_round(page, 3)
    notes = []
    for _ in range(3):
        answer_on_screen(page)
        notes.append(page.inner_text("#held-back-note") if page.is_visible("#held-back-note") else "")
        assert "held back" not in page.inner_text("#feedback-details")
        if len(notes) == 2:
            assert page.inner_text("#score") == "Score: 70 / 100 (correct from 80)"
            assert page.inner_text("#verdict") == "Not quite"
            page.select_option("#language", "ko")
            assert page.inner_text("#score") == "점수: 70 / 100 (80점부터 정답)"
            page.select_option("#language", "en")
        page.click("#next")
    assert graded[0]["held_back_note"]  # the API says it after each answer of the open round...
    assert graded[1]["held_back_note"] == graded[0]["held_back_note"]
    assert graded[2].get("held_back_note") is None  # (the last leaves nothing open)
    assert notes[0] == graded[0]["held_back_note"]  # ...the page once
    assert notes[1:] == ["", ""]
    page.wait_for_selector("#summary", state="visible")
    assert page.inner_text("#pass-mark") == "An answer is correct from a score of 80 out of 100."
    # The history: the round is answered, so everything is delivered whole and no note is said,
    # neither above the list nor with any answer.
    page.click("#show-answers")
    page.wait_for_selector("#answers-list li.attempt", state="visible")
    assert not page.is_visible("#history-held-back")
    assert "held back" not in page.inner_text("#answers")
