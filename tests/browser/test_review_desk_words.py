"""The review desk as a teacher reads it, in headless chromium: in a ko-KR browser the page is in
Korean (its key labels, with no English left in them) and its words keep whole on a phone; the
language switch turns it to English and is remembered; the automatic grade's reasoning is a
sentence, with the pass mark beside the score and why it waits, and no raw code or internal score
in the visible queue (they are in a Details fold); a flagged learner is described by what was seen
and what to do; on a phone the item analysis table scrolls sideways with a hint, its item column
pinned. Screenshots go to build/screenshots/."""

import re
from decimal import Decimal
from typing import Any

import boto3

from slea.grading.evidence import Material
from slea.grading.offline import grade
from tests.browser.conftest import PHONE, screenshot
from tests.browser.test_korean_typography import SPLIT_WORDS
from tests.browser.test_review_page import LAPTOP
from tests.integration.test_item_analysis_api import ITEMS
from tests.integration.test_review_queue_views import LEARNER, seed_queue

HANGUL = re.compile(r"[\uac00-\ud7a3]")
REFERENCE = (
    "A message queue decouples producers from consumers: producers put messages on the queue and "
    "consumers take them off at their own pace, so a slow consumer does not block the producer."
)
KEYWORDS = ["decouples", "producers", "consumers", "pace", "block"]
STEM = "What does a message queue do between producers and consumers?"
ANSWER = "Producers put messages on it and consumers read them later."

# The desk's main labels: each must read in Korean in a ko-KR browser (no English left in it).
KEY_LABELS = [
    "#tab-queue",
    "#tab-items",
    "#tab-recent",
    "#queue h2",
    "label[for=queue-source]",
    "label[for=queue-type]",
    "label[for=queue-sort]",
    "label[for=queue-search]",
    "#view-entries",
    "#view-groups",
    "#queue .stats",
    "#queue-filters button[type=submit]",
    "#entries-view .shortcuts summary",
    "#signout",
    "label[for=language]",
]
# In an entry: the headings and buttons a reviewer acts on.
ENTRY_LABELS = ["h4", "button[data-action=accept]", ".tag", ".meta.context", "p.score", "p.summary", "p.why"]
RAW = ["short_answer", "technical ·", "· en", "validation score", "fitted probability", "reference coverage", "0/40"]


def _table(cloud: Any, name: str) -> Any:
    return boto3.resource("dynamodb").Table(cloud.table_name(name))


def _graded_answer(cloud: Any) -> None:
    """A short answer the offline grader left in the queue, with its real reasoning, and a reported question."""
    graded = grade(Material(answer=ANSWER, reference=REFERENCE, keywords=KEYWORDS, stem=STEM))
    _table(cloud, "QuestionsTable").put_item(
        Item={
            "question_id": "mq-1",
            "session_id": "ms-1",
            "round": 1,
            "item_type": "short_answer",
            "stem": STEM,
            "answer_schema": {
                "correct_keywords": KEYWORDS,
                "reference_answer": REFERENCE,
                "validation_score": Decimal("0.95"),
            },
            "difficulty": 5,
            "category": "technical",
            "language": "en",
        }
    )
    _table(cloud, "AttemptsTable").put_item(
        Item={
            "session_id": "ms-1",
            "attempt_key": "mq-1#digest",
            "attempt_id": "ma-1",
            "question_id": "mq-1",
            "user_id": LEARNER,
            "round": 1,
            "question_type": "short_answer",
            "user_answer": ANSWER,
            "score": min(graded.score, 79),
            "is_correct": False,
            "confidence": Decimal("0.9"),  # "sure" by its number, and still waiting: the page says why
            "grader_reasoning": graded.reasoning,
            "keyword_matches": graded.keyword_matches,
            "needs_review": True,
            "graded_at": "2026-11-24T08:00:00.000Z",
            "review_state": "open",
            "queued_at": "2026-11-24T08:00:00.000Z",
        }
    )
    assert "reference coverage" in graded.reasoning  # the raw reasoning holds the codes the page must fold


def _sign_in(page: Any, url: str) -> None:
    page.goto(f"{url}/review")
    page.fill("#signin-name", "Rita")
    page.click("#local-signin button[type=submit]")
    page.wait_for_selector("#entries article")


def _visible_text(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text())  # innerText: what is shown, not a closed fold


def test_a_korean_browser_gets_the_desk_in_korean_and_the_switch_turns_it_to_english(
    server, korean_page, step_functions
):
    _graded_answer(step_functions.runtime.cloud)
    seed_queue(step_functions.runtime.cloud, [{"kind": "question"}])
    page = korean_page(LAPTOP)
    page.goto(f"{server}/review")
    page.wait_for_selector("#signin:not([hidden])")
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert HANGUL.search(page.inner_text("#signin h2"))
    assert HANGUL.search(page.title())
    _sign_in(page, server)
    page.wait_for_selector('#entries article[data-entry="ma-1"]')
    for selector in KEY_LABELS:
        text = page.locator(selector).first.inner_text()
        assert HANGUL.search(text), f"{selector} reads {text!r}"
        assert not re.search(r"\b(Open|Accepted|Source|Sort|Apply|Review|Item|Recent|Keyboard|One by one)\b", text), (
            selector,
            text,
        )
    entry = page.locator('article[data-entry="ma-1"]')
    for selector in ENTRY_LABELS:
        for text in entry.locator(selector).all_inner_texts():
            assert HANGUL.search(text), f"{selector} reads {text!r}"
    shown = entry.inner_text()
    assert "핵심 개념 5개 중" in shown  # the reasoning as a sentence
    assert "정답 기준 80점" in shown  # the pass mark beside the score
    assert "교사 없이 확정할 만큼 확실하지 않습니다(90% 확신)" in shown  # why it waits, never a bare "unsure"
    for code in RAW:
        assert code not in _visible_text(page, "#entries"), code
    # The codes and the grader's own reasoning are one click away.
    entry.locator(".details-fold summary").first.click()
    assert "reference coverage" in entry.inner_text()
    screenshot(page, "desk-ko-laptop", full_page=False)

    # The switch: English at once, and remembered on the next visit.
    page.select_option("#language", "en")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.inner_text("#tab-queue") == "Review queue"
    entry = page.locator('article[data-entry="ma-1"]')
    assert "The answer mentions 2 of the 5 key ideas" in entry.inner_text() or re.search(
        r"The answer mentions (all|none|\d+ of the) ", entry.inner_text()
    )
    assert "below the pass mark of 80" in entry.inner_text()
    assert not HANGUL.search(_visible_text(page, "#queue .stats"))
    page.reload()
    page.wait_for_selector('#entries article[data-entry="ma-1"]')
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.inner_text("#tab-items") == "Item analysis"


def test_the_korean_desk_keeps_its_words_whole_on_a_phone_and_its_tables_scroll_with_a_hint(
    server, korean_page, step_functions
):
    _graded_answer(step_functions.runtime.cloud)
    page = korean_page(PHONE)
    _sign_in(page, server)
    page.wait_for_selector('#entries article[data-entry="ma-1"]')
    assert page.evaluate(SPLIT_WORDS) == [], "Korean words split across lines in the queue"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "desk-ko-phone", full_page=False)
    # The item analysis: the hint, a scrollbar that stays, the item column pinned as it scrolls.
    questions = _table(step_functions.runtime.cloud, "QuestionsTable")
    for item in ITEMS:
        questions.put_item(Item=item)
    page.click("#tab-items")
    page.wait_for_selector("#items-rows tr")
    hint = page.locator("#items .scroll-hint")
    assert hint.is_visible()
    assert HANGUL.search(hint.inner_text())
    scroller = page.locator("#items .scroll")
    scroll_width, client_width, overflow = scroller.evaluate(
        "(box) => [box.scrollWidth, box.clientWidth, getComputedStyle(box).overflowX]"
    )
    assert scroll_width > client_width
    assert overflow == "scroll"
    first = page.locator("#items-rows tr th").first
    assert first.evaluate("(cell) => getComputedStyle(cell).position") == "sticky"
    scroller.evaluate("(box) => { box.scrollLeft = 400; }")
    assert first.evaluate("(cell) => cell.getBoundingClientRect().left") >= 0  # still in view
    assert page.evaluate(SPLIT_WORDS) == [], "Korean words split across lines in the item analysis"
    assert "make serve" not in page.inner_text("#items")
    assert "AWS" not in page.inner_text("#items")
    screenshot(page, "desk-ko-items-phone", full_page=False)
    # The recent reviews: the same hint.
    page.click("#tab-recent")
    page.wait_for_selector("#recent-status:not(:empty)")
    assert page.locator("#recent .scroll-hint").is_visible()


def test_a_flagged_learner_is_described_by_what_was_seen_and_what_to_do(server, new_page, step_functions):
    abilities = _table(step_functions.runtime.cloud, "AbilitiesTable")
    learner = {
        "reason": "Right on hard items and wrong on easy ones far more often than their level explains (24 answers).",
        "lz": Decimal("-2.42"),
        "exposure_z": None,
        "answers": 24,
        "categories": ["technical"],
        "flagged_at": "2026-11-20T10:00:00Z",
    }
    abilities.put_item(Item={"user_id": "#review", "entry": "person-fit", "learners": {"4a0c-flagged": learner}})
    seed_queue(step_functions.runtime.cloud, [{"kind": "question"}])
    page = new_page(PHONE)
    _sign_in(page, server)
    page.click("#tab-items")
    page.wait_for_selector("#flagged-learners:not([hidden])")
    listed = page.inner_text("#flagged-learners")
    assert "Learner 4a0c-flagged" in listed
    assert "Got hard questions right and easy ones wrong" in listed
    assert "What to do: read their recent answers" in listed
    assert "I don't know" in listed  # what is never counted against them
    assert "-2.42" not in listed  # the statistic is in the fold
    page.locator("#flagged-learners .details-fold summary").click()
    assert "-2.42" in page.inner_text("#flagged-learners")
    screenshot(page, "desk-flagged-learner-phone", full_page=False)
