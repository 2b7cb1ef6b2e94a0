"""One queue state for the one-by-one and group views, in headless chromium: after any order of
switching views, an action in either takes exactly the entries it settled off both views, the
focus moves on to the next entry, no script error shows (the new_page fixture fails the test on
any page error or console error), a second click sends nothing, and the counts shown are the
server's. Screenshots go to build/screenshots/."""

from typing import Any

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_review_groups import _api, seed_group
from tests.browser.test_review_page import LAPTOP
from tests.browser.test_review_page import sign_in_as_development_reviewer as _sign_in

ONE_BY_ONE, BY_GROUP = "One by one", "By group"
FOCUSED = "document.activeElement.closest('article') && document.activeElement.closest('article').dataset.entry"


def _switch(page: Any, view: str) -> None:
    button = page.get_by_role("button", name=view, exact=True)
    if view == BY_GROUP:
        with page.expect_response(lambda response: "/review/groups?" in response.url):
            button.click()
        page.wait_for_selector("#groups-view:not([hidden])")
        # The view shows its last drawing at once and draws again when the read arrives.
        page.wait_for_selector("#groups:not([aria-busy])", state="attached")
    else:
        button.click()
        page.wait_for_selector("#entries-list:not([hidden])")
    page.wait_for_load_state("networkidle")


def _entries(page: Any) -> list[str]:
    return page.eval_on_selector_all("#entries > article", "(all) => all.map((a) => a.dataset.entry)")


def _members(page: Any) -> list[str]:
    return page.eval_on_selector_all("#groups li.member", "(all) => all.map((li) => li.dataset.entry)")


def _server_open(page: Any) -> set[str]:
    """The ids the server's queue holds now, and its count of them."""
    queue = _api(page, "/review/queue")
    assert queue["open"] == len(queue["entries"])
    return {entry["entry_id"] for entry in queue["entries"]}


def _counts_are_the_servers(page: Any) -> None:
    opened = _api(page, "/review/stats")
    page.wait_for_function(
        "(open) => document.querySelector('#stat-open').textContent === String(open)", arg=opened["open"]
    )
    shown = page.inner_text("#stat-reviewed"), page.inner_text("#stat-accepted"), page.inner_text("#stat-overridden")
    assert shown == (str(opened["reviewed"]), str(opened["accepted"]), str(opened["overridden"]))


def _no_stale_entry(page: Any) -> None:
    """Every entry shown (in either view's page) is still open on the server."""
    still = _server_open(page)
    assert set(_entries(page)) <= still, (_entries(page), still)
    assert set(_members(page)) <= still, (_members(page), still)


def _accept_one_by_one(page: Any, attempt_id: str, posts: list[str]) -> None:
    article = page.locator(f'#entries > article[data-entry="{attempt_id}"]')
    before = len(posts)
    with page.expect_response(lambda response: response.url.endswith(f"/review/attempts/{attempt_id}")):
        article.get_by_role("button", name="Accept grade").dblclick()  # a second click sends nothing
    article.wait_for(state="detached")
    page.wait_for_load_state("networkidle")
    assert posts[before:] == [attempt_id]
    assert page.inner_text("#review-status").startswith("Grade of ")
    assert page.inner_text("#review-status").endswith(" accepted.")


def _override_one_by_one(page: Any, attempt_id: str, score: int) -> None:
    article = page.locator(f'#entries > article[data-entry="{attempt_id}"]')
    article.get_by_label("Corrected score").fill(str(score))
    article.get_by_label("Reason for your decision").fill("Names the retrieval step.")
    with page.expect_response(lambda response: response.url.endswith(f"/review/attempts/{attempt_id}")):
        article.get_by_role("button", name="Override score").click()
    article.wait_for(state="detached")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("#review-status").startswith("Score changed: ")
    assert page.is_visible("#undo")  # undoable in place


def _grade_group(page: Any, group_id: str, score: int) -> None:
    group = page.locator(f'#groups > article[data-group="{group_id}"]')
    group.get_by_label("Score for every answer").fill(str(score))
    group.get_by_label("Reason (required").fill("They all say it grounds the answer.")
    group.get_by_role("button", name="Grade the group of").click()
    with page.expect_response(lambda response: response.url.endswith(f"/review/groups/{group_id}")):
        group.get_by_role("button", name="Yes, grade them").click()
    # "Group graded: …." and, once the groups are read again, what they now hold.
    page.wait_for_function("() => /^Group graded.*\\. \\S/.test(document.querySelector('#groups-status').textContent)")
    page.wait_for_load_state("networkidle")
    assert page.is_visible("#undo")  # undoable in place


@pytest.fixture
def desk(server: Any, new_page: Any, step_functions: Any) -> tuple[Any, list[str]]:
    """The review page over three answers in one group (ga-000..002) and one in another (ga-003),
    signed in, showing the queue one by one; and the attempts each POST acted on."""
    seed_group(step_functions.runtime.cloud)
    page = new_page(LAPTOP)
    posts: list[str] = []
    page.on(
        "request",
        lambda request: (
            posts.append(request.url.rsplit("/", 1)[1])
            if request.method == "POST" and "/review/attempts/" in request.url
            else None
        ),
    )
    _sign_in(page, server)
    page.wait_for_selector("#entries article")
    return page, posts


def test_by_group_then_one_by_one_then_accept_settles_the_entry_moves_the_focus_and_keeps_the_count(desk):
    """The reported failure: open "By group", back to "One by one", accept (then override)."""
    page, posts = desk
    _switch(page, BY_GROUP)
    _switch(page, ONE_BY_ONE)
    page.locator('#entries > article[data-entry="ga-000"] h3').focus()
    _accept_one_by_one(page, "ga-000", posts)
    assert page.evaluate(FOCUSED) == "ga-001"  # the focus moved on to the next entry
    assert "ga-000" not in _entries(page) + _members(page)  # gone from both views
    _counts_are_the_servers(page)
    _override_one_by_one(page, "ga-001", 90)
    assert page.evaluate(FOCUSED) == "ga-002"
    _counts_are_the_servers(page)
    _no_stale_entry(page)
    _switch(page, BY_GROUP)
    assert sorted(_members(page)) == ["ga-002", "ga-003"]
    _counts_are_the_servers(page)
    screenshot(page, "queue-state-after-switches-laptop", full_page=False)


@pytest.mark.parametrize(
    "views",
    [
        pytest.param([ONE_BY_ONE], id="one-by-one"),
        pytest.param([BY_GROUP, ONE_BY_ONE], id="group-then-one-by-one"),
        pytest.param([BY_GROUP, ONE_BY_ONE, BY_GROUP, ONE_BY_ONE], id="group-one-group-one"),
    ],
)
def test_an_accept_one_by_one_after_any_switches_leaves_no_stale_entry_in_either_view(desk, views):
    page, posts = desk
    for view in views:
        _switch(page, view)
    _accept_one_by_one(page, "ga-003", posts)
    _counts_are_the_servers(page)
    _no_stale_entry(page)
    _switch(page, BY_GROUP)
    assert page.eval_on_selector_all("#groups > article", "(a) => a.map((g) => g.dataset.group)") == ["grp-one"]
    _no_stale_entry(page)
    _switch(page, ONE_BY_ONE)
    assert _entries(page) == ["ga-000", "ga-001", "ga-002"]
    _counts_are_the_servers(page)


@pytest.mark.parametrize(
    "views",
    [
        pytest.param([BY_GROUP], id="group"),
        pytest.param([BY_GROUP, ONE_BY_ONE, BY_GROUP], id="group-one-group"),
    ],
)
def test_a_group_grade_after_any_switches_leaves_no_stale_entry_in_either_view(desk, views):
    page, posts = desk
    # One member accepted one by one first: the group holds the two others.
    _accept_one_by_one(page, "ga-001", posts)
    for view in views:
        _switch(page, view)
    assert sorted(_members(page)) == ["ga-000", "ga-002", "ga-003"]
    _grade_group(page, "grp-one", 85)
    assert "2 answers scored 85" in page.inner_text("#groups-status")
    assert _members(page) == ["ga-003"]
    focused = (
        "document.activeElement.closest('#groups > article') && document.activeElement.closest('article').dataset.group"
    )
    assert page.evaluate(focused) == "grp-two"  # the focus on the group now in its place
    _counts_are_the_servers(page)
    _no_stale_entry(page)
    _switch(page, ONE_BY_ONE)
    assert _entries(page) == ["ga-003"]
    _counts_are_the_servers(page)
    # And acting there after it all.
    _accept_one_by_one(page, "ga-003", posts)
    _counts_are_the_servers(page)
    assert _server_open(page) == set()
    assert page.inner_text("#entries") == "The queue is empty. Thank you!"
    _switch(page, BY_GROUP)
    assert _members(page) == []
    _counts_are_the_servers(page)


def test_a_reason_half_written_for_a_group_survives_the_view_being_drawn_again(desk):
    """The group view is drawn again whenever the queue is read: what a reviewer typed or ticked
    stays, and is forgotten once the group is graded."""
    page, _posts = desk
    _switch(page, BY_GROUP)
    group = page.locator('#groups > article[data-group="grp-one"]')
    group.get_by_label("Score for every answer").fill("70")
    group.get_by_label("Reason (required").fill("Half written")
    group.locator("details.members-box > summary").click()
    group.locator('.split[data-attempt="ga-002"]').check()
    _switch(page, ONE_BY_ONE)
    _switch(page, BY_GROUP)
    group = page.locator('#groups > article[data-group="grp-one"]')
    assert group.get_by_label("Score for every answer").input_value() == "70"
    assert group.get_by_label("Reason (required").input_value() == "Half written"
    assert group.locator('.split[data-attempt="ga-002"]').is_checked()
    assert group.get_by_role("button", name="Grade the group of").is_enabled()
    group.get_by_role("button", name="Grade the group of").click()
    with page.expect_response(lambda response: response.url.endswith("/review/groups/grp-one")):
        group.get_by_role("button", name="Yes, grade them").click()
    page.wait_for_function("() => /^Group graded.*\\. \\S/.test(document.querySelector('#groups-status').textContent)")
    assert "2 answers scored 70" in page.inner_text("#groups-status")
    left = page.locator('#groups > article[data-group="grp-one"]')  # the answer split off stays
    assert left.get_by_label("Reason (required").input_value() == ""
    assert left.get_by_role("button", name="Grade the group of").is_disabled()
