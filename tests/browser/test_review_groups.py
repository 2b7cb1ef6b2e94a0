"""The review queue by group in headless chromium, laptop and phone: a group shows its
representative answer, its size and spread, its members on demand (named by the item's stem, the
answer's time and the learner, never by position); one decision with a required reason grades
every member (each attempt updated and audited with the group's id, checked through the API); a
member split off stays in the queue. Screenshots go to build/screenshots/."""

from decimal import Decimal
from typing import Any

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.test_review_page import LAPTOP
from tests.browser.test_review_page import sign_in_as_development_reviewer as _sign_in
from tests.integration.test_review_queue_views import _table

VIEWPORTS = [pytest.param(LAPTOP, id="laptop"), pytest.param(PHONE, id="phone")]
STEM = "Why does a RAG system retrieve documents before it generates an answer?"
LEARNERS = [
    "5d7c1e2a-3b4f-4a6d-8e9f-0a1b2c3d4e5f",
    "2d4e9f10-6b3a-4c2d-8e1f-7a9b0c1d2e3f",
    "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
]
ANSWERS = [
    "So the answer is grounded in the retrieved documents.",
    "So that the answer is grounded in retrieved documents!",
    "To ground the answer in documents it retrieved first.",
]


def seed_group(cloud: Any) -> list[dict[str, Any]]:
    """Three learners' provisional short answers to one bank item, waiting in one review group,
    and a fourth answer to another item in a group of its own."""
    attempts, questions = _table(cloud, "AttemptsTable"), _table(cloud, "QuestionsTable")
    made = []
    for item, stem in (("gq-1", STEM), ("gq-2", "Name one risk of fine-tuning on private data.")):
        questions.put_item(
            Item={
                "question_id": item,
                "item_id": item,
                "session_id": "gs-0",
                "round": 1,
                "item_type": "short_answer",
                "stem": stem,
                "answer_schema": {"correct_keywords": ["grounded", "documents"]},
                "difficulty": 5,
                "category": "technical",
                "language": "en",
            }
        )
    members = [(n, "gq-1", "grp-one", LEARNERS[n], ANSWERS[n], 40 + 5 * n) for n in range(3)]
    members.append((3, "gq-2", "grp-two", LEARNERS[0], "Leaking the data in outputs.", 60))
    for number, item, group, user, text, score in members:
        at = f"2026-11-24T10:0{number}:00.000Z"
        attempt = {
            "session_id": f"gs-{number}",
            "attempt_key": f"{item}#digest",
            "attempt_id": f"ga-{number:03d}",
            "question_id": item,
            "user_id": user,
            "round": 1,
            "question_type": "short_answer",
            "user_answer": text,
            "score": score,
            "is_correct": False,
            "confidence": Decimal("0.5") + Decimal(number) / 20,
            "needs_review": True,
            "graded_at": at,
            "review_state": "open",
            "queued_at": at,
            "review_group": group,
        }
        attempts.put_item(Item=attempt)
        made.append(attempt)
    return made


def _api(page: Any, path: str) -> Any:
    return page.evaluate("(path) => Slea.api('GET', path)", path)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_one_decision_grades_a_group_and_a_member_split_off_stays_queued(server, new_page, step_functions, viewport):
    name = "phone" if viewport == PHONE else "laptop"
    seed_group(step_functions.runtime.cloud)
    page = new_page(viewport)
    _sign_in(page, server)
    page.wait_for_selector("#entries article")
    with page.expect_response(lambda response: "/review/groups?" in response.url):
        page.get_by_role("button", name="By group").click()
    page.wait_for_selector("#groups article")
    assert page.is_hidden("#entries-list")
    groups = page.eval_on_selector_all("#groups article", "(all) => all.map((a) => a.dataset.group)")
    assert groups == ["grp-one", "grp-two"]  # largest first
    group = page.locator('article[data-group="grp-one"]')
    heading = group.locator("h3").inner_text()
    assert heading.startswith("Group of 3 answers to “Why does a RAG system retrieve")
    spread = group.locator(".context").inner_text()
    assert "grader scores 40\u201350" in spread  # an en dash between the lowest and the highest
    assert "grader confidence 50%\u201360%" in spread
    assert "3 learners" in spread
    assert ANSWERS[0] in group.locator(".cols").inner_text()  # the representative answer
    # Members on demand, each named by the stem's start, the answer's time and the learner.
    assert group.locator("ul.members").is_hidden()
    group.get_by_text("Show the 3 answers").click()
    boxes = group.locator("ul.members input.split")
    labels = boxes.evaluate_all("(all) => all.map((box) => box.getAttribute('aria-label'))")
    assert len(labels) == 3
    assert len(set(labels)) == 3
    assert all(label.startswith("Split off “Why does a RAG system") for label in labels)
    assert "by learner 9a8b7c6d" in labels[2]
    screenshot(page, f"groups-{name}", full_page=False)
    screenshot(page, f"groups-{name}-full")

    # A reason is required: the button stays disabled, and nothing is sent without one.
    grade = group.get_by_role("button", name="Grade the group of")
    assert grade.is_disabled()
    group.get_by_label("Score for every answer").fill("90")
    group.get_by_label("Split off", exact=False).nth(2).check()
    group.get_by_label("Reason (required").fill("   ")
    assert grade.is_disabled()
    group.get_by_label("Reason (required").fill("Both say the answer is grounded in retrieved documents.")
    grade.click()
    question = group.locator(".confirm").inner_text()
    assert "Give 2 answers shown" in question
    assert "a score of 90" in question
    assert "1 split off stays" in question
    screenshot(page, f"groups-confirm-{name}", full_page=False)
    # Every status the group view shows from here on, as the page writes it.
    page.evaluate(
        """() => { window.statuses = [];
        const status = document.querySelector('#groups-status');
        new MutationObserver(() => window.statuses.push(status.textContent))
          .observe(status, { childList: true, characterData: true, subtree: true }); }"""
    )
    with page.expect_response(lambda response: response.url.endswith("/review/groups/grp-one")) as sent:
        group.get_by_role("button", name="Yes, grade them").click()
    assert sent.value.status == 200
    assert sent.value.request.post_data_json == {
        "score": 90,
        "note": "Both say the answer is grounded in retrieved documents.",
        "exclude": ["ga-002"],
    }
    page.wait_for_function("() => document.querySelector('#groups-status').textContent.startsWith('Group graded')")
    status = page.inner_text("#groups-status")
    assert "2 answers scored 90; 1 split off, still in the queue" in status
    # The list is read again: the split-off member is all that is left of its group.
    page.wait_for_function(
        "() => document.querySelectorAll('article[data-group=\"grp-one\"] ul.members li').length === 1"
    )
    left = page.locator('article[data-group="grp-one"]')
    assert left.locator("h3").inner_text().startswith("Group of 1 answer to")
    # What was done stays in the status while the groups are read again: never replaced by
    # their count alone, which a screen reader would announce instead.
    page.wait_for_function("() => /^Group graded.*\\. \\S/.test(document.querySelector('#groups-status').textContent)")
    statuses = page.evaluate("() => window.statuses")
    assert statuses
    assert all(text.startswith("Group graded") for text in statuses), statuses
    assert statuses[-1].endswith(" 2 groups shown, 2 answers in all.")  # one answer left in each
    assert ANSWERS[2] in left.inner_text()
    screenshot(page, f"groups-after-{name}-full")

    # Through the API: each graded member updated and audited with the group's id; the split-off
    # member still waits in the queue.
    for attempt_id in ("ga-000", "ga-001"):
        (record,) = _api(page, f"/review/audit?target_id={attempt_id}")["records"]
        assert (record["group_id"], record["after"]["score"], record["action"]) == ("grp-one", 90, "override")
        assert record["note"] == "Both say the answer is grounded in retrieved documents."
    assert _api(page, "/review/audit?target_id=ga-002")["records"] == []
    queue = _api(page, "/review/queue?source=grade")
    assert sorted(entry["entry_id"] for entry in queue["entries"]) == ["ga-002", "ga-003"]
    stored = _table(step_functions.runtime.cloud, "AttemptsTable")
    for number, expected in ((0, 90), (1, 90), (2, 50)):
        item = stored.get_item(Key={"session_id": f"gs-{number}", "attempt_key": "gq-1#digest"})["Item"]
        assert int(item["score"]) == expected
        assert bool(item.get("reviewed")) is (expected == 90)

    # Back to one by one: the queue shows what is left, read again.
    with page.expect_response(lambda response: "/review/queue?" in response.url):
        page.get_by_role("button", name="One by one").click()
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 2")
