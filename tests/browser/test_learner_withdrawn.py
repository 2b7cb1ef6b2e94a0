"""A question a reviewer withdraws while a learner has it on screen (its bank item retired): the
answer is refused, the page says why and moves on to the next question, and the round's summary
neither counts it among the questions nor as skipped."""

from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3

from tests.browser.learner_steps import LAPTOP, answer_on_screen, shot, sign_in_as, start_round

LEARNER = "e50428f2-3090-4290-896d-0e7ee0cffb54"  # a seeded learner (Security Engineer, English)


def _on_screen(page: Any) -> str:
    return parse_qs(urlparse(page.url).fragment)["q"][0]


def _withdraw(cloud: Any, question_id: str) -> None:
    """As the retirement of its bank item leaves a copy no one has answered (dal/review.py)."""
    boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).update_item(
        Key={"question_id": question_id},
        UpdateExpression="SET #status = :retired, retired_with = :by",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired", ":by": "another-copy"},
    )


def test_a_question_withdrawn_mid_round_is_refused_skipped_over_and_never_counted(server, step_functions, new_page):
    page = new_page(LAPTOP)
    sign_in_as(page, server, LEARNER)
    start_round(page, 3)
    withdrawn = _on_screen(page)
    _withdraw(step_functions.runtime.cloud, withdrawn)
    if page.is_visible("#short"):
        page.fill("#short-answer", "I am not sure.")
    else:
        page.locator("button.choice").first.click()
    with page.expect_response(lambda response: response.url.endswith("/answers")) as refused:
        page.click("#submit-answer")
    assert refused.value.status == 409
    page.wait_for_function(f"() => !location.hash.includes('{withdrawn}')")
    assert page.is_visible("#question")
    assert "A reviewer withdrew that question" in page.inner_text("#error")
    shot(page, "withdrawn-mid-round-en-laptop", full_page=False)
    for _ in range(2):
        answer_on_screen(page)
        page.click("#next")
    page.wait_for_selector("#summary", state="visible")
    assert page.locator("#rounds tbody tr").first.inner_text().split("\t")[1] == "2 of 2"
