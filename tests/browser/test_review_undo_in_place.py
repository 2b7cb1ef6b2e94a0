"""Every reviewer action undone the same way, in place, in headless chromium: an accept, an override, a group
grade, an edit (confirmed first, as a retirement is) and a retirement each show an Undo beside
their confirmation, ask a reason for the undo, and the undo restores what the action changed (the
entry back in the queue, a reported question with every report); the counts stay the server's.
A rested item is returned to the bank only with a reason, and the record says it changed.
Screenshots go to build/screenshots/."""

from typing import Any

from tests.browser.conftest import screenshot
from tests.browser.test_review_groups import _api, seed_group
from tests.browser.test_review_page import LAPTOP, override_on_the_desk
from tests.browser.test_review_page import sign_in_as_development_reviewer as _sign_in
from tests.browser.test_review_queue_state import BY_GROUP, _counts_are_the_servers, _members, _switch
from tests.integration.test_review_queue_views import _table, seed_queue


def _undo_in_place(page: Any, reason: str, path_end: str) -> None:
    """The undo offered beside the confirmation: refused without a reason, sent with one."""
    assert page.is_visible("#undo")
    page.click("#undo-yes")
    assert "Give a reason for undoing" in page.inner_text("#error")
    page.fill("#undo-note", reason)
    with page.expect_response(lambda response: response.url.endswith(path_end)) as undone:
        page.click("#undo-yes")
    assert undone.value.status == 200
    page.wait_for_selector("#undo", state="hidden")
    page.wait_for_load_state("networkidle")


def test_an_override_is_undone_in_place(server, new_page, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}, {"kind": "attempt"}])
    page = new_page(LAPTOP)
    _sign_in(page, server)
    answer = page.locator('#entries > article[data-entry="ra-000"]')
    override_on_the_desk(answer)
    assert page.inner_text("#review-status") == "Score changed: 40 → 85 (correct; correct from 80)."
    asked = page.inner_text("#undo-what")
    assert asked.startswith("Undo the change of score on “Explain item 0 of the queue.” · ")
    assert asked.endswith("(85 back to 40)?")
    screenshot(page, "undo-in-place-override-laptop", full_page=False)
    _counts_are_the_servers(page)
    _undo_in_place(page, "Misread the answer.", "/review/attempts/ra-000/undo")
    assert page.inner_text("#review-status") == "Grade change undone: the score is 40 again."
    page.wait_for_selector('#entries > article[data-entry="ra-000"]')
    _counts_are_the_servers(page)
    # The Recent reviews tab has it too, and offers no second undo.
    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_function("() => document.querySelector('#recent-rows').innerText.includes('undid a review')")
    assert page.locator("#recent-rows button", has_text="Undo").count() == 0


def test_an_accept_is_undone_in_place(server, new_page, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}, {"kind": "attempt"}])
    page = new_page(LAPTOP)
    _sign_in(page, server)
    answer = page.locator('#entries > article[data-entry="ra-000"]')
    answer.get_by_role("button", name="Accept grade").click()
    answer.wait_for(state="detached")
    assert page.inner_text("#undo-what").startswith("Undo accepting 40 for “Explain item 0 of the queue.”")
    _counts_are_the_servers(page)
    _undo_in_place(page, "Accepted the wrong entry.", "/review/attempts/ra-000/undo")
    page.wait_for_selector('#entries > article[data-entry="ra-000"]')
    _counts_are_the_servers(page)


def test_a_group_grade_is_undone_in_place(server, new_page, step_functions):
    seed_group(step_functions.runtime.cloud)
    page = new_page(LAPTOP)
    _sign_in(page, server)
    page.wait_for_selector("#entries article")
    _switch(page, BY_GROUP)
    group = page.locator('#groups > article[data-group="grp-one"]')
    group.get_by_label("Score for every answer").fill("90")
    group.get_by_label("Reason (required").fill("All say the answer is grounded in documents.")
    group.get_by_role("button", name="Grade the group of").click()
    with page.expect_response(lambda response: response.url.endswith("/review/groups/grp-one")):
        group.get_by_role("button", name="Yes, grade them").click()
    page.wait_for_function("() => /^Group graded.*\\. \\S/.test(document.querySelector('#groups-status').textContent)")
    assert page.inner_text("#review-status").startswith("Group graded: 3 answers scored 90")
    asked = page.inner_text("#undo-what")
    assert asked.startswith("Undo grading 3 answers to “Why does a RAG system retrieve")
    assert asked.endswith("” at 90?")
    assert _members(page) == ["ga-003"]
    screenshot(page, "undo-in-place-group-laptop", full_page=False)
    _counts_are_the_servers(page)
    _undo_in_place(page, "Graded the wrong group.", "/review/groups/grp-one/revert")
    assert page.inner_text("#review-status") == "3 answers of the group reverted."
    page.wait_for_function("() => document.querySelectorAll('#groups li.member').length === 4")
    assert sorted(_members(page)) == ["ga-000", "ga-001", "ga-002", "ga-003"]
    _counts_are_the_servers(page)
    stored = _table(step_functions.runtime.cloud, "AttemptsTable")
    for number, score in ((0, 40), (1, 45), (2, 50)):
        item = stored.get_item(Key={"session_id": f"gs-{number}", "attempt_key": "gq-1#digest"})["Item"]
        assert (int(item["score"]), bool(item.get("reviewed"))) == (score, False)


def test_an_edit_is_confirmed_first_and_undone_in_place(server, new_page, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "question", "type": "multiple_choice"}])
    page = new_page(LAPTOP)
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    _sign_in(page, server)
    question = page.locator('#entries > article[data-entry="rq-000"]')
    question.get_by_role("button", name="Edit").click()
    question.get_by_label("Stem of").fill("Explain item zero of the queue.")
    question.get_by_label("Choices of").fill("A) one\nB) two\nC) three\nD) four")
    question.get_by_role("button", name="Save edit").click()
    # Asked first: nothing is sent until it is confirmed.
    assert "Save this edit?" in question.locator(".confirm >> nth=1").inner_text()
    assert "You can undo this." in question.locator(".confirm >> nth=1").inner_text()
    assert not [url for url in posts if "/review/" in url]
    question.get_by_role("button", name="Yes, save the edit").click()
    assert "Give a reason to edit the question" in page.inner_text("#error")
    assert not [url for url in posts if "/review/" in url]
    question.get_by_label("Reason for your decision").fill("Two choices were the same.")
    screenshot(page, "undo-in-place-edit-confirm-laptop", full_page=False)
    with page.expect_response(lambda response: response.url.endswith("/review/questions/rq-000")):
        question.get_by_role("button", name="Yes, save the edit").click()
    question.wait_for(state="detached")
    assert page.inner_text("#review-status") == "Question edited."
    assert page.inner_text("#undo-what").startswith("Undo the edit of “Explain item 0 of the queue.” · ")
    _counts_are_the_servers(page)
    # Undoable on the Recent reviews tab as well; undone here, in place.
    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_selector("#recent-rows tr")
    assert page.locator("#recent-rows tr").first.get_by_role("button", name="Undo the edit of").count() == 1
    page.get_by_role("button", name="Review queue").click()
    _undo_in_place(page, "The old wording was fine.", "/review/questions/rq-000/revert-edit")
    assert page.inner_text("#review-status") == "Edit undone: the question's text and key are as they were."
    back = page.locator('#entries > article[data-entry="rq-000"]')
    back.wait_for()
    assert "Explain item 0 of the queue." in back.inner_text()
    _counts_are_the_servers(page)


def test_undoing_the_retirement_of_a_reported_question_brings_back_every_report(server, new_page, step_functions):
    cloud = step_functions.runtime.cloud
    seed_queue(cloud, [{"kind": "question"}, {"kind": "attempt"}])
    _table(cloud, "QuestionsTable").update_item(  # a second learner's report on it
        Key={"question_id": "rq-000"},
        UpdateExpression="SET reports = list_append(reports, :more)",
        ExpressionAttributeValues={":more": [{"reason": "the key looks wrong", "at": "2026-11-24T09:30:00.000Z"}]},
    )
    page = new_page(LAPTOP)
    _sign_in(page, server)
    question = page.locator('#entries > article[data-entry="rq-000"]')
    assert question.locator("li", has_text="unclear").count() == 1
    assert question.locator("li", has_text="the key looks wrong").count() == 1
    question.get_by_role("button", name="Retire question").click()
    question.get_by_label("Reason for your decision").fill("The key is wrong.")
    with page.expect_response(lambda response: response.url.endswith("/review/questions/rq-000")):
        question.get_by_role("button", name="Yes, retire").click()
    question.wait_for(state="detached")
    _counts_are_the_servers(page)
    _undo_in_place(page, "Retired the wrong question.", "/review/questions/rq-000/unretire")
    back = page.locator('#entries > article[data-entry="rq-000"]')
    back.wait_for()
    assert back.locator("li", has_text="unclear").count() == 1
    assert back.locator("li", has_text="the key looks wrong").count() == 1
    (entry,) = [e for e in _api(page, "/review/queue")["entries"] if e["entry_id"] == "rq-000"]
    assert [report["reason"] for report in entry["question"]["reports"]] == ["unclear", "the key looks wrong"]
    _counts_are_the_servers(page)


def test_a_rested_item_returns_to_the_bank_only_with_a_reason_and_the_record_says_so(server, new_page, step_functions):
    cloud = step_functions.runtime.cloud
    seed_queue(cloud, [{"kind": "question"}])
    _table(cloud, "QuestionsTable").update_item(  # a bank item an account farm's round rested
        Key={"question_id": "rq-000"},
        UpdateExpression="SET item_id = :id, rested_at = :at, rest_reason = :farm",
        ExpressionAttributeValues={":id": "rq-000", ":at": "2026-11-23T10:00:00.000Z", ":farm": "farm"},
    )
    page = new_page(LAPTOP)
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    _sign_in(page, server)
    question = page.locator('#entries > article[data-entry="rq-000"]')
    assert "an account farm was shown its key" in question.locator(".rested").inner_text()
    question.get_by_role("button", name="Accept question").click()
    assert "Give a reason to return this rested item" in page.inner_text("#error")
    assert not [url for url in posts if "/review/" in url]
    question.get_by_label("Reason for your decision").fill("The farm's accounts are closed.")
    with page.expect_response(lambda response: response.url.endswith("/review/questions/rq-000")) as sent:
        question.get_by_role("button", name="Accept question").click()
    assert sent.value.status == 200
    question.wait_for(state="detached")
    page.get_by_role("button", name="Recent reviews").click()
    page.wait_for_selector("#recent-rows tr")
    row = page.locator("#recent-rows tr").first.inner_text()
    assert "returned to the question bank" in row
    assert "kept as it was" not in row
    assert "The farm's accounts are closed." in row
