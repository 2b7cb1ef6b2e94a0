"""Tool 5 and its retry path: validation, stored fields, conditional idempotent writes, the SQS
retry queue, the retry worker, the dead-letter queue and the operator commands."""

import json
import re
import uuid
from decimal import Decimal

import boto3
import pytest

from ops.retry_queue_admin import count, peek_questions, redrive
from slea.contracts.questions import parse_round_id
from slea.dal.retry_queue import QueueUnavailableError
from slea_local.runtime import QueuePoller
from tests.unit.contracts.test_contracts import INVALID_SAVES

TOOL = "save_generated_question"
ROUND_ID = "sess_abc_123_2_2026-11-22T10:30:00Z"
ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def question(**changes):
    return {
        "item_type": "multiple_choice",
        "stem": "What is RAG?",
        "choices": ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"],
        "correct_key": "C",
        "difficulty": 7,
        "categories": ["LLM", "RAG"],
        "round_id": ROUND_ID,
        "validation_score": 0.92,
        "explanation": "RAG combines retrieval with generation.",
        **changes,
    }


def stored(cloud):
    """The questions stored (not the table's other records, whose ids hold "#": a category's
    reference prints, "refprints#technical")."""
    items = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).scan()["Items"]
    return {item["question_id"]: item for item in items if "#" not in item["question_id"]}


def queued(cloud, queue="RetryQueue"):
    url = cloud.queue_url(queue)
    return int(
        boto3.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"][
            "ApproximateNumberOfMessages"
        ]
    )


@pytest.fixture
def admin_urls(cloud):
    return {"retry": cloud.queue_url("RetryQueue"), "dead-letter": cloud.queue_url("RetryDeadLetterQueue")}


# ---------------------------------------------------------------- round ids
@pytest.mark.parametrize(
    ("round_id", "session_id", "round_number"),
    [
        ("sess_abc123_1_2025-11-06T10:30:00Z", "sess_abc123", 1),
        ("sess_123_2_2025-11-09T10:30:00Z", "sess_123", 2),
        ("my_long_session_id_2_2025-11-09T10:30:00+09:00", "my_long_session_id", 2),
        ("sess_2024_2_2025-11-09T10:30:00Z", "sess_2024", 2),  # digits inside the session id
        ("sess_x_7_2025-11-09T10:30:00Z", "sess_x", 1),  # round 7 is invalid -> 1
        ("sess_x_abc_2025-11-09T10:30:00Z", "sess_x_abc", 1),  # no round at all
        ("sess_x_2", "sess_x", 2),  # no timestamp
        ("plain-session", "plain-session", 1),
    ],
)
def test_round_id_parsing(round_id, session_id, round_number):
    assert parse_round_id(round_id) == (session_id, round_number)


# ---------------------------------------------------------------- saving
def test_saves_the_spec_fields_and_returns_the_success_shape(cloud, runtime):
    result = runtime.invoke(TOOL, question())
    assert set(result) == {"question_id", "round_id", "saved_at", "success"}
    assert result["success"] is True
    assert result["round_id"] == ROUND_ID
    assert uuid.UUID(result["question_id"])
    assert ISO_UTC.match(result["saved_at"])
    item = stored(cloud)[result["question_id"]]
    assert (item["session_id"], item["round"], item["category"]) == ("sess_abc_123", 2, "LLM")
    assert (item["item_type"], item["stem"], item["difficulty"]) == ("multiple_choice", "What is RAG?", 7)
    assert item["choices"] == question()["choices"]
    assert item["created_at"] == result["saved_at"]
    assert item["answer_schema"] == {
        "correct_key": "C",
        "validation_score": Decimal("0.92"),
        "explanation": "RAG combines retrieval with generation.",
    }


def test_short_answer_keeps_its_keywords_and_default_category(cloud, runtime):
    sa = question(item_type="short_answer", choices=None, correct_key=None, correct_keywords=["RAG", "retrieval"])
    del sa["categories"], sa["validation_score"], sa["explanation"]
    result = runtime.invoke(TOOL, sa)
    item = stored(cloud)[result["question_id"]]
    assert item["answer_schema"] == {
        "correct_keywords": ["RAG", "retrieval"],
        "validation_score": None,
        "explanation": None,
    }
    assert item["category"] == "general"
    assert "choices" not in item


def test_a_short_answer_stores_its_reference_answer_for_tool_6(cloud, runtime):
    sa = question(item_type="short_answer", choices=None, correct_key=None, correct_keywords=["RAG", "retrieval"])
    result = runtime.invoke(TOOL, {**sa, "reference_answer": "  RAG retrieves documents, then generates.  "})
    schema = stored(cloud)[result["question_id"]]["answer_schema"]
    assert schema["reference_answer"] == "RAG retrieves documents, then generates."
    assert schema["explanation"] == sa["explanation"]  # the fallback stays stored beside it


def test_a_reference_answer_must_be_text_of_bounded_length(runtime):
    sa = question(item_type="short_answer", choices=None, correct_key=None, correct_keywords=["RAG"])
    with pytest.raises(TypeError, match="reference_answer"):
        runtime.invoke(TOOL, {**sa, "reference_answer": ["not", "text"]})
    with pytest.raises(ValueError, match="reference_answer"):
        runtime.invoke(TOOL, {**sa, "reference_answer": "x" * 4001})


def test_the_same_save_twice_is_one_question(cloud, runtime):
    first = runtime.invoke(TOOL, question())
    second = runtime.invoke(TOOL, question())
    assert first["question_id"] == second["question_id"]
    assert second["success"] is True
    assert len(stored(cloud)) == 1


def test_a_question_is_never_overwritten(cloud, runtime):
    first = runtime.invoke(TOOL, question(question_id="11111111-1111-4111-8111-111111111111"))
    assert first["success"] is True
    with pytest.raises(ValueError, match=r"question_id .* already belongs to a different question"):
        runtime.invoke(TOOL, question(question_id=first["question_id"], stem="Something else entirely?"))
    assert stored(cloud)[first["question_id"]]["stem"] == "What is RAG?"


def test_a_different_answer_key_is_a_different_question(cloud, runtime):
    first = runtime.invoke(TOOL, question())
    second = runtime.invoke(TOOL, question(correct_key="B"))
    assert first["question_id"] != second["question_id"]
    assert len(stored(cloud)) == 2


@pytest.mark.parametrize(("changes", "field"), INVALID_SAVES)
def test_invalid_input_raises_naming_the_field_and_writes_nothing(cloud, runtime, changes, field):
    with pytest.raises(ValueError, match=field):
        runtime.invoke(TOOL, question(**changes))
    assert stored(cloud) == {}
    assert queued(cloud) == 0


# ---------------------------------------------------------------- failure path
def test_failed_write_queues_the_question_then_the_worker_saves_it_once(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="ProvisionedThroughputExceededException"):
        result = runtime.invoke(TOOL, question())
    assert result == {
        "question_id": None,
        "round_id": ROUND_ID,
        "saved_at": result["saved_at"],
        "success": False,
        "error": "questions put failed: ProvisionedThroughputExceededException",
        "queued_for_retry": True,
    }
    assert stored(cloud) == {}
    assert queued(cloud) == 1
    report = QueuePoller(runtime, "RetryQueue").drain()
    assert report.deleted == 1
    items = stored(cloud)
    assert len(items) == 1
    (item,) = items.values()
    assert item["stem"] == "What is RAG?"
    assert queued(cloud) == 0


def test_timeouts_are_retried_before_queueing(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", times=2):
        assert runtime.invoke(TOOL, question())["success"] is True
    assert faults.attempts["TransactWriteItems"] == 3
    assert queued(cloud) == 0


def test_a_message_delivered_twice_yields_one_question(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        runtime.invoke(TOOL, question())
    QueuePoller(runtime, "RetryQueue").drain(redeliver=lambda message: True)
    assert len(stored(cloud)) == 1


def test_a_write_that_landed_but_timed_out_is_not_duplicated_by_the_retry(cloud, runtime):
    saved = runtime.invoke(TOOL, question())  # the "lost" acknowledgement: the item is there
    from slea.contracts.questions import RetryMessage, SaveQuestionInput

    message = RetryMessage(
        question_id=saved["question_id"], question=SaveQuestionInput(**question()), error="timeout", queued_at="t"
    )
    boto3.client("sqs").send_message(QueueUrl=cloud.queue_url("RetryQueue"), MessageBody=message.model_dump_json())
    QueuePoller(runtime, "RetryQueue").drain()
    assert list(stored(cloud)) == [saved["question_id"]]


def test_poison_message_goes_to_the_dead_letter_queue_without_blocking_others(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        runtime.invoke(TOOL, question(stem="First healthy question?"))
        runtime.invoke(TOOL, question(stem="Second healthy question?"))
    boto3.client("sqs").send_message(QueueUrl=cloud.queue_url("RetryQueue"), MessageBody='{"not": "a question"}')
    report = QueuePoller(runtime, "RetryQueue").drain()
    assert {item["stem"] for item in stored(cloud).values()} == {"First healthy question?", "Second healthy question?"}
    assert queued(cloud) == 0
    assert queued(cloud, "RetryDeadLetterQueue") == 1
    assert report.reported_failures == 5  # maxReceiveCount receives, then the dead-letter queue


def test_worker_keeps_messages_while_the_table_is_down(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        runtime.invoke(TOOL, question())
        QueuePoller(runtime, "RetryQueue").drain()
    assert stored(cloud) == {}
    assert queued(cloud, "RetryDeadLetterQueue") == 1  # kept, and the alarm fires: nothing lost


def test_unreachable_queue_raises_instead_of_dropping_the_question(cloud, runtime, faults):
    table_down = faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError")
    with table_down, faults.sqs(TOOL, "SendMessage"), pytest.raises(QueueUnavailableError, match="unreachable"):
        runtime.invoke(TOOL, question())


def test_batch_saves_the_rest_and_queues_the_failed_ones(cloud, runtime, faults):
    batch = {"questions": [question(stem=f"Question number {n}?") for n in range(6)]}
    attempts = iter(range(100))
    second_and_fifth = lambda: next(attempts) in (1, 4)  # noqa: E731
    failing = faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError", when=second_and_fifth)
    with failing:
        result = runtime.invoke(TOOL, batch)
    assert (result["saved"], result["queued_for_retry"]) == (4, 2)
    assert [r["success"] for r in result["results"]] == [True, False, True, True, False, True]
    assert len(stored(cloud)) == 4
    assert queued(cloud) == 2
    QueuePoller(runtime, "RetryQueue").drain()
    assert {item["stem"] for item in stored(cloud).values()} == {f"Question number {n}?" for n in range(6)}


def test_batch_with_an_invalid_question_names_it_and_saves_nothing(cloud, runtime):
    batch = {"questions": [question(), question(stem="Second?", correct_key="Z")]}
    with pytest.raises(ValueError, match=r"questions\[1\]"):
        runtime.invoke(TOOL, batch)
    assert stored(cloud) == {}


# ---------------------------------------------------------------- operator commands
def test_operator_count_peek_and_redrive(cloud, runtime, faults, admin_urls):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        runtime.invoke(TOOL, question())
        QueuePoller(runtime, "RetryQueue").drain()  # table still down: ends in the dead-letter queue
    assert count(admin_urls)["dead-letter"]["visible"] == 1
    (shown,) = peek_questions(admin_urls, "dead-letter", limit=10)
    assert shown["stem"] == "What is RAG?"
    assert shown["error"] == "questions put failed: InternalServerError"
    assert count(admin_urls)["dead-letter"]["visible"] == 1  # peeking consumed nothing
    assert redrive(admin_urls) == 1
    assert count(admin_urls) == {
        "retry": {"visible": 1, "in_flight": 0, "delayed": 0},
        "dead-letter": {"visible": 0, "in_flight": 0, "delayed": 0},
    }
    QueuePoller(runtime, "RetryQueue").drain()  # the table is back
    assert len(stored(cloud)) == 1


def test_operator_cli_prints_counts(cloud, admin_urls, monkeypatch, capsys):
    from ops.retry_queue_admin import main

    monkeypatch.setenv("RETRY_QUEUE_URL", admin_urls["retry"])
    monkeypatch.setenv("RETRY_DLQ_URL", admin_urls["dead-letter"])
    assert main(["count"]) == 0
    assert json.loads(capsys.readouterr().out)["retry"]["visible"] == 0


def test_the_field_limits_leave_room_for_real_items(cloud, runtime):
    longest = question(
        choices=[f"{letter}) " + "x" * 497 for letter in "ABCDE"],
        explanation="e" * 4000,
        categories=["c" * 100] * 10,
    )
    assert runtime.invoke(TOOL, longest)["success"] is True
    batch = {"questions": [question(stem=f"What is RAG, part {n}?") for n in range(20)]}
    assert runtime.invoke(TOOL, batch)["saved"] == 20
