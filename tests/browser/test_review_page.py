"""The reviewer's page in headless chromium: filters, cursor paging, bulk accept, the
review record with reviewers' names, long answers collapsed, bidirectional controls shown and not
applied, keyboard shortcuts, and accessible names unique per entry. Screenshots (laptop and
phone) go to build/screenshots/ and /tmp/shots-review/.

On the server with signed tokens, as in AWS: the reviewer is a member of the local user pool's
`reviewers` group and the desk calls the API with the pool's token."""

from typing import Any

import boto3

from tests.browser.conftest import PHONE, screenshot
from tests.browser.pool_signin import reviewer_token, sign_in_with_token
from tests.integration.test_review_queue_views import RLO, seed_queue

LAPTOP = {"width": 1366, "height": 850}


def _shot(page: Any, name: str) -> None:
    screenshot(page, name, full_page=False)
    screenshot(page, f"{name}-full")


def sign_in_as_development_reviewer(page: Any, url: str, name: str = "Rita") -> None:
    """The development sign-in (name, reviewer ticked) on the default server: for the desk's tests
    whose subject is what the page shows, not who may see it."""
    page.goto(f"{url}/review")
    page.fill("#signin-name", name)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#queue", state="visible")


def _sign_in(page: Any, url: str, pool: Any, name: str | None = None) -> None:
    """A reviewer of the local user pool (group `reviewers`), signed in with the pool's token."""
    sign_in_with_token(page, url, reviewer_token(pool, name), path="/review")
    page.wait_for_selector("#queue", state="visible")


def override_on_the_desk(entry: Any, score: int = 85, reason: str = "Right idea.") -> None:
    """An entry's score overridden as a reviewer types it: the entry leaves the queue."""
    entry.get_by_label("Corrected score").fill(str(score))
    entry.get_by_label("Reason for your decision").fill(reason)
    entry.get_by_role("button", name="Override score").click()
    entry.wait_for(state="detached")


def _shown(page: Any) -> list[str]:
    return page.eval_on_selector_all("#entries article", "(all) => all.map((a) => a.dataset.entry)")


def _mixed_queue(cloud: Any, attempts: int = 56) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for number in range(attempts):
        spec: dict[str, Any] = {"kind": "attempt", "confidence": round(0.3 + (number % 5) / 10, 1)}
        if number % 7 == 3:
            spec |= {"type": "multiple_choice", "language": "ko", "stem": "검색 증강 생성(RAG)의 첫 단계는?"}
        specs.append(spec)
    specs += [{"kind": "question"}, {"kind": "question", "reason": "misfit"}]
    return seed_queue(cloud, specs)


def test_a_reviewer_filters_pages_with_the_cursor_and_accepts_in_bulk(signed_server, pool, new_page, step_functions):
    made = _mixed_queue(step_functions.runtime.cloud)
    page = new_page(LAPTOP)
    _sign_in(page, signed_server, pool)
    page.wait_for_selector("#entries article")
    assert len(_shown(page)) == 50  # one page
    with page.expect_response(lambda response: "cursor=" in response.url):
        page.get_by_role("button", name="Load more").click()
    page.locator("#entries article").nth(50).wait_for()
    assert _shown(page) == [item["id"] for item in made]  # oldest first, each once
    assert page.is_hidden("#more")

    # Korean multiple-choice answers only.
    with page.expect_response(lambda response: "item_type=multiple_choice" in response.url):
        page.select_option("#queue-type", "multiple_choice")
    with page.expect_response(lambda response: "language=ko" in response.url):
        page.select_option("#queue-language", "ko")
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 8")
    wanted = [item["id"] for item in made if item.get("type") == "multiple_choice"]
    assert _shown(page) == wanted
    item_lines = page.locator("#entries .cols > div:first-child > p.meta").all_inner_texts()
    assert len(item_lines) == 8
    # The item in words; its codes ("multiple_choice · technical · ko") are in the Details fold.
    assert all(line.startswith("Multiple choice · Technical · Korean · difficulty 5 of 10") for line in item_lines)
    _shot(page, "review-filtered-laptop")

    # Search and sort: least sure first.
    page.fill("#queue-search", "RAG")
    with page.expect_response(lambda response: "q=RAG" in response.url and "sort=confidence" in response.url):
        page.select_option("#queue-sort", "confidence")  # a choice of a list applies at once
    page.wait_for_function("() => document.querySelector('#review-status').textContent.includes('8 entries shown')")
    # The confidence is in the Details fold (and on the grade column, for this check).
    confidences = page.locator("#entries article .cols > div:nth-child(2)").evaluate_all(
        "(columns) => columns.map((column) => column.dataset.confidence)"
    )
    values = [int(value) for value in confidences]
    assert values == sorted(values)

    # Bulk: select every answer shown, accept them in one request.
    page.check("#select-all")
    assert page.inner_text("#bulk-accept") == "Accept 8 selected grades"
    page.click("#bulk-accept")  # asks first: how many, and a reason
    assert page.inner_text("#bulk-question").startswith("Accept 8 grades")
    page.fill("#bulk-note", "All eight name the retrieval step.")
    with page.expect_response(lambda response: response.url.endswith("/review/attempts/accept")) as answered:
        page.get_by_role("button", name="Yes, accept them").click()
    assert answered.value.status == 200
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 0")
    assert page.inner_text("#review-status").startswith("8 grades accepted.")
    assert page.inner_text("#stat-accepted") == "8"
    assert page.inner_text("#review-status") == "8 grades accepted."

    # The rest of the queue is still there once the filters are cleared.
    page.fill("#queue-search", "")
    page.select_option("#queue-type", "")
    page.select_option("#queue-language", "")
    page.select_option("#queue-sort", "queued_asc")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_function("() => document.querySelectorAll('#entries article').length === 50")
    assert not set(_shown(page)) & set(wanted)


def test_the_review_record_shows_reviewers_by_name(signed_server, pool, new_page, step_functions):
    cloud = step_functions.runtime.cloud
    seed_queue(cloud, [{"kind": "attempt"}, {"kind": "question"}])
    boto3.resource("dynamodb").Table(cloud.table_name("ReviewAuditTable")).put_item(
        Item={
            "target_id": "rq-001",
            "audit_key": "2026-11-24T08:00:00Z#000000000001",
            "feed": "reviews",
            "target_kind": "question",
            "action": "accept",
            "who": "2f1e7c3a-0000-4000-8000-000000000001",
            "who_name": "Sam Kim",
            "at": "2026-11-24T08:00:00Z",
            "before": {"status": "active"},
            "after": {"status": "active"},
            "note": "Reads fine.",
        }
    )
    page = new_page(LAPTOP)
    _sign_in(page, signed_server, pool, "Rita Park")
    question = page.locator('article[data-entry="rq-001"]')
    question.locator(".history-box summary").click()
    question.locator(".review-history li.audit").wait_for()
    assert "Sam Kim" in question.locator(".review-history").inner_text()
    assert "Reads fine." in question.locator(".review-history").inner_text()
    _shot(page, "review-history-laptop")

    answer = page.locator('article[data-entry="ra-000"]')
    override_on_the_desk(answer)
    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_selector("#recent-rows tr")
    first = page.locator("#recent-rows tr").first.inner_text()
    assert "Rita Park" in first
    assert "score 40 → 85" in first
    assert "Right idea." in first
    assert "Sam Kim" in page.locator("#recent-rows tr").nth(1).inner_text()
    _shot(page, "review-recent-laptop")


def test_long_answers_are_collapsed_and_bidirectional_controls_are_shown_not_applied(
    signed_server, pool, new_page, step_functions
):
    long_answer = "Retrieval first. " * 229  # 3,893 characters (the listing keeps 4,000)
    seed_queue(
        step_functions.runtime.cloud,
        [
            {"kind": "attempt", "answer": long_answer},
            {"kind": "attempt", "answer": f"I think {RLO}evil and more"},
            {"kind": "attempt", "stem": f"Which word is {RLO}live?", "answer": "\u2067x\u2069 \u200fy\u061c"},
        ],
    )
    for viewport, suffix in ((LAPTOP, "laptop"), (PHONE, "phone")):
        page = new_page(viewport)
        _sign_in(page, signed_server, pool)
        long_entry = page.locator('article[data-entry="ra-000"]')
        details = long_entry.locator("details.long")
        assert details.get_attribute("open") is None
        shown = long_entry.inner_text()
        assert long_answer[:300] in shown.replace("\n", "")
        assert long_answer not in shown.replace("\n", "")
        assert long_entry.bounding_box()["height"] < (900 if suffix == "laptop" else 1900)
        _shot(page, f"review-queue-{suffix}")

        evil = page.locator('article[data-entry="ra-001"]')
        assert "I think [U+202E]evil and more" in evil.inner_text()
        assert "\u202e" not in evil.evaluate("(node) => node.textContent")
        # Drawn in logical order: the "e" of "evil" left of its "l".
        order = evil.evaluate(
            """(node) => {
                const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
                while (walker.nextNode()) {
                  const text = walker.currentNode;
                  const at = text.data.indexOf("evil");
                  if (at < 0) continue;
                  const box = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                                       return r.getBoundingClientRect().left; };
                  return [box(at), box(at + 3)];
                }
                return null;
            }"""
        )
        assert order is not None
        assert order[0] < order[1]
        other = page.locator('article[data-entry="ra-002"]').inner_text()
        assert "Which word is [U+202E]live?" in other
        assert "[U+2067]x[U+2069] [U+200F]y[U+061C]" in other
        # Someone else's text sits in isolating elements.
        assert evil.locator("[dir=auto]", has_text="evil").count() >= 1
        if suffix == "laptop":
            details.locator("summary").click()
            assert long_answer.strip() in long_entry.inner_text().replace("\n", "")
            _shot(page, "review-long-answer-open-laptop")


def test_keyboard_shortcuts_accept_override_and_move_but_not_inside_text_boxes(
    signed_server, pool, new_page, step_functions
):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"} for _ in range(4)])
    page = new_page(LAPTOP)
    _sign_in(page, signed_server, pool)
    page.wait_for_selector("#entries article")
    page.locator("#queue h2").focus()
    focused = "document.activeElement.closest('article') && document.activeElement.closest('article').dataset.entry"
    page.keyboard.press("j")
    assert page.evaluate(focused) == "ra-000"
    page.keyboard.press("n")
    assert page.evaluate(focused) == "ra-001"
    page.keyboard.press("k")
    assert page.evaluate(focused) == "ra-000"

    # Typing in a note never fires a shortcut.
    page.locator('article[data-entry="ra-000"] textarea').focus()
    page.keyboard.type("a note, o and j and x")
    assert page.locator("#entries article").count() == 4
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"

    # a: accept the current entry's grade; the focus moves on to the next entry.
    page.locator('article[data-entry="ra-000"] h3').focus()
    with page.expect_response(lambda response: "/review/attempts/ra-000" in response.url):
        page.keyboard.press("a")
    page.locator('article[data-entry="ra-000"]').wait_for(state="detached")
    assert page.inner_text("#review-status") == "Grade of 40 (not correct; correct from 80) accepted."
    assert page.evaluate(focused) == "ra-001"

    # o: to the corrected score; type it, Enter overrides - once a reason is given (without one the
    # page asks for it and moves to it, sending nothing).
    page.keyboard.press("o")
    assert page.evaluate("document.activeElement.dataset.action") == "score"
    page.keyboard.type("75")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    assert "Give a reason" in page.inner_text("#error")
    page.keyboard.type("Names both steps.")
    page.locator('article[data-entry="ra-001"] [data-action="score"]').focus()
    with page.expect_response(lambda response: "/review/attempts/ra-001" in response.url):
        page.keyboard.press("Enter")
    page.locator('article[data-entry="ra-001"]').wait_for(state="detached")
    assert page.inner_text("#review-status") == "Score changed: 40 → 75 (not correct; correct from 80)."

    # x: select for bulk accept.
    page.locator('article[data-entry="ra-002"] h3').focus()
    page.keyboard.press("x")
    assert page.is_checked('article[data-entry="ra-002"] .bulk-pick')
    assert page.inner_text("#bulk-accept") == "Accept 1 selected grade"
    assert "select it for bulk accept" in page.locator(".shortcuts").text_content()  # now a list of keys


def test_every_control_in_the_queue_has_a_unique_accessible_name(signed_server, pool, new_page, step_functions):
    seed_queue(
        step_functions.runtime.cloud,
        [{"kind": "attempt"}, {"kind": "attempt"}, {"kind": "question"}, {"kind": "question", "reason": "misfit"}],
    )
    page = new_page(PHONE)
    _sign_in(page, signed_server, pool)
    page.wait_for_selector("#entries article")
    for edit in page.get_by_role("button", name="Edit").all():
        edit.click()  # the edit forms' controls too
    names = page.evaluate(
        """() => [...document.querySelectorAll(
                '#entries button, #entries input, #entries select, #entries textarea, #entries summary')]
            .map((el) => (el.getAttribute('aria-label')
                || (el.labels && el.labels.length ? el.labels[0].textContent : '')
                || el.textContent).trim().replace(/\\s+/g, ' '))"""
    )
    assert len(names) > 20
    assert all(names)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert duplicates == []
    # Named by the stem and the time, not by position: the same whatever the sort.
    assert any(n.startswith("Accept grade for answer to “Explain item 0 of the queue.” · ") for n in names)
    assert any(n.endswith(" by learner 5d7c1e2a") for n in names)
    assert any(n.startswith("Accept question “Explain item 2 of the queue.” · ") for n in names)
    _shot(page, "review-edit-open-phone")
