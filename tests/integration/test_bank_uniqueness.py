"""The bank keeps no two items with the same stem and key: a question joins the bank with its
fingerprint (security/exposure.py `bank_fingerprint`) in one transaction (dal/bank.py `join`); a
second question with the same stem and key, however concurrent, is saved as a copy of the first
(its round keeps it, its answers calibrate the one item), and nothing is ever half-written."""

import threading
import uuid

import boto3
import pytest
from botocore.exceptions import ClientError

from slea.dal import bank
from slea_local.runtime import QueuePoller
from tests.integration.test_save_generated_question import ROUND_ID, TOOL, question, queued, stored

OTHER_ROUND = "sess_other_9_1_2026-11-22T11:00:00Z"
FUNCTION = "SaveGeneratedQuestionFunction"


def fingerprints(cloud):
    table = boto3.resource("dynamodb").Table(cloud.table_name("AbilitiesTable"))
    items = table.scan()["Items"]
    return {item["entry"]: item["item_id"] for item in items if item["entry"].startswith("item#")}


def bank_items(cloud):
    """The saved questions that are their own bank item."""
    return {qid: item for qid, item in stored(cloud).items() if item.get("item_id") == qid}


def save(runtime, **changes):
    return runtime.invoke(TOOL, question(question_id=str(uuid.uuid4()), **changes))


def test_two_generations_of_one_stem_and_key_joining_concurrently_leave_one_bank_item(cloud):
    """Two rounds' save steps write the same stem and key at the same moment (each under its own
    generated id): both rounds keep their question, the bank holds one item."""
    from slea.contracts.questions import SaveQuestionInput
    from slea.logic.generation.saving import store

    requests = [
        SaveQuestionInput(**question(question_id=str(uuid.uuid4()), round_id=round_id))
        for round_id in (ROUND_ID, OTHER_ROUND)
    ]
    start = threading.Barrier(len(requests))
    failures: list[BaseException] = []

    def save_one(request):
        try:
            start.wait()
            store(request, request.question_id)
        except BaseException as error:
            failures.append(error)

    with cloud.environment(cloud.environment_of(FUNCTION)):
        threads = [threading.Thread(target=save_one, args=(request,)) for request in requests]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not failures
    items = stored(cloud)
    assert sorted(items) == sorted(request.question_id for request in requests)  # both rounds intact
    (winner,) = bank_items(cloud)
    (loser,) = set(items) - {winner}
    assert items[loser]["item_id"] == winner  # a copy of the bank item, as a drawn copy is
    assert "bank_key" in items[winner]
    assert "bank_key" not in items[loser]
    assert "difficulty_b" not in items[loser]  # calibrated in one place: the bank item
    assert list(fingerprints(cloud).values()) == [winner]


@pytest.mark.parametrize(
    "changes",
    [
        {"stem": "  what is  RAG ? "},  # case, spacing and punctuation aside
        {"choices": ["A) Both", "B) Generation", "C) Retrieval", "D) Neither"], "correct_key": "A"},  # reordered
        {"choices": ["A) Retrieval", "B) Indexing", "C) Both", "D) Caching"]},  # other distractors
    ],
    ids=["stem-written-otherwise", "choices-reordered", "other-distractors"],
)
def test_the_same_stem_and_key_under_a_new_id_is_a_copy(cloud, runtime, changes):
    first = save(runtime)
    second = save(runtime, round_id=OTHER_ROUND, **changes)
    assert first["success"]
    assert second["success"]
    assert list(bank_items(cloud)) == [first["question_id"]]
    assert stored(cloud)[second["question_id"]]["item_id"] == first["question_id"]
    assert len(fingerprints(cloud)) == 1


def test_another_key_or_another_stem_is_another_bank_item(cloud, runtime):
    saved = [save(runtime), save(runtime, correct_key="B"), save(runtime, stem="What is retrieval?")]
    assert sorted(bank_items(cloud)) == sorted(result["question_id"] for result in saved)
    assert len(fingerprints(cloud)) == 3


def test_a_failed_transaction_writes_neither_the_question_nor_its_fingerprint(cloud, runtime, faults):
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        result = save(runtime)
    assert result["queued_for_retry"] is True
    assert stored(cloud) == {}
    assert fingerprints(cloud) == {}
    QueuePoller(runtime, "RetryQueue").drain()
    (item_id,) = bank_items(cloud)
    assert list(fingerprints(cloud).values()) == [item_id]


def test_a_condition_failing_on_one_write_cancels_the_other(cloud, runtime):
    """An id already taken by another question: the fingerprint of the new one is not claimed
    (were it, its stem and key could never join the bank)."""
    taken = save(runtime, stem="What is a vector index?")
    with pytest.raises(ValueError, match="already belongs to a different question"):
        runtime.invoke(TOOL, question(question_id=taken["question_id"]))
    assert list(fingerprints(cloud).values()) == [taken["question_id"]]
    assert save(runtime)["success"]  # "What is RAG?" joins the bank later, as its own item
    assert len(bank_items(cloud)) == 2


def test_a_failed_copy_write_is_queued_and_saved_as_a_copy_by_the_worker(cloud, runtime, faults):
    first = save(runtime)
    with faults.dynamodb(TOOL, "PutItem", error="InternalServerError"):
        second = save(runtime, round_id=OTHER_ROUND)
    assert second["queued_for_retry"] is True
    assert list(stored(cloud)) == [first["question_id"]]
    assert queued(cloud) == 1
    QueuePoller(runtime, "RetryQueue").drain()
    items = stored(cloud)
    assert len(items) == 2
    assert list(bank_items(cloud)) == [first["question_id"]]
    assert len(fingerprints(cloud)) == 1


def test_a_retried_save_of_a_copy_is_the_same_copy(cloud, runtime):
    first = save(runtime)
    request = question(question_id=str(uuid.uuid4()), round_id=OTHER_ROUND)
    again = [runtime.invoke(TOOL, request) for _ in range(2)]
    assert again[0] == {**again[1], "saved_at": again[0]["saved_at"]}
    assert len(stored(cloud)) == 2
    assert stored(cloud)[request["question_id"]]["item_id"] == first["question_id"]


def test_a_retired_items_stem_and_key_never_join_the_bank_again(cloud, runtime):
    """Retirement takes the item out of the bank's index (review actions); its fingerprint stays,
    so the same stem and key regenerated later is refused (a copy would show the retired item
    again: tests/integration/test_bank_withdrawn.py), never a new drawable item."""
    first = save(runtime)
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    table.update_item(
        Key={"question_id": first["question_id"]},
        UpdateExpression="SET #status = :retired, retired_at = :at, retired_category = :category REMOVE bank_key",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired", ":at": "2026-11-22T12:00:00Z", ":category": "LLM"},
    )
    later = save(runtime, round_id=OTHER_ROUND)
    assert (later["success"], later["queued_for_retry"]) == (False, False)
    assert list(stored(cloud)) == [first["question_id"]]
    assert not [item for item in stored(cloud).values() if "bank_key" in item]
    assert list(fingerprints(cloud).values()) == [first["question_id"]]


def test_a_transaction_conflict_is_tried_again_and_then_finds_the_winner(cloud, monkeypatch):
    """DynamoDB cancels a transaction that meets another on the same item (TransactionConflict)
    instead of queueing it: `join` tries again, and finds the fingerprint the other one wrote."""
    client = boto3.client("dynamodb")
    calls = []
    real = client.transact_write_items

    def conflicting(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise ClientError(
                {
                    "Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                    "CancellationReasons": [{"Code": "None"}, {"Code": "TransactionConflict"}],
                },
                "TransactWriteItems",
            )
        return real(**kwargs)

    client_with_conflict = type("Client", (), {"transact_write_items": staticmethod(conflicting)})()
    monkeypatch.setattr(bank, "dynamodb", lambda tool: client_with_conflict)
    with cloud.environment(cloud.environment_of(FUNCTION)):
        item = {"question_id": "q-1", "stem": "What is RAG?", "created_at": "2026-11-22T10:00:00Z"}
        assert bank.join(item, "bank:0123") == bank.Joined()
        assert bank.join({**item, "question_id": "q-2"}, "bank:0123") == bank.Joined(owner="q-1")
    assert len(calls) == 3


def test_an_account_farms_copy_rests_the_bank_item_it_repeats_and_another_copy_does_not(cloud, runtime):
    first = save(runtime)
    assert save(runtime, round_id=OTHER_ROUND)["success"]  # an ordinary copy: the item stays drawable
    assert "bank_key" in stored(cloud)[first["question_id"]]
    farm = save(runtime, round_id=OTHER_ROUND, rest_reason="farm")
    assert farm["success"]
    repeated = stored(cloud)[first["question_id"]]
    assert "bank_key" not in repeated  # out of the bank: the farm holds its key
    assert repeated["rest_reason"] == "farm"
    assert stored(cloud)[farm["question_id"]]["item_id"] == first["question_id"]  # the round keeps it
    rested_at = repeated["rested_at"]
    # Again: the item is withdrawn now (rested), so the repeat is refused; the first rest stays.
    again = save(runtime, round_id=OTHER_ROUND, rest_reason="farm")
    assert (again["success"], again["queued_for_retry"], again["question_id"]) == (False, False, None)
    assert stored(cloud)[first["question_id"]]["rested_at"] == rested_at
    assert len(stored(cloud)) == 3  # the item, the ordinary copy, the farm's first copy
