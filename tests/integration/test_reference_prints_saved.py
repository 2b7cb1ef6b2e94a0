"""Tool 5 leaves a short-answer bank item's reference print in its category's record
(dal/reference_prints.py); a copy of a bank item leaves none of its own; the record is no
question: the operator's fingerprint backfill never takes it for a bank item."""

import uuid

import boto3

from ops.bank_fingerprints import is_bank_item
from slea.grading.reference_prints import sketch
from tests.integration.test_bank_uniqueness import OTHER_ROUND
from tests.integration.test_save_generated_question import question

TOOL = "save_generated_question"
REFERENCE = (
    "Retrieval-augmented generation retrieves relevant documents from an external knowledge source and "
    "passes them to the language model, which generates an answer grounded in them."
)


def every_record(cloud):
    """Every record of the questions table: the questions and the categories' reference prints."""
    items = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).scan()["Items"]
    return {item["question_id"]: item for item in items}


def short_answer(**changes):
    return question(
        question_id=str(uuid.uuid4()),
        item_type="short_answer",
        stem="Explain how retrieval-augmented generation works.",
        choices=[],
        correct_key=None,
        correct_keywords=["retrieval", "generation"],
        reference_answer=REFERENCE,
        **changes,
    )


def test_a_short_answer_bank_item_leaves_its_print_and_a_copy_none(cloud, runtime):
    saved = runtime.invoke(TOOL, short_answer())["question_id"]
    copy = runtime.invoke(TOOL, short_answer(round_id=OTHER_ROUND))["question_id"]
    records = every_record(cloud)
    prints = records["refprints#LLM"]
    assert sorted(int(value) for value in prints[f"p:{saved}"]) == sketch(REFERENCE)
    assert f"p:{copy}" not in prints
    assert records[copy]["item_id"] == saved
    assert not is_bank_item(prints)
    assert is_bank_item(records[saved])


def test_the_operators_backfill_leaves_the_print_of_an_item_saved_before_prints(cloud, runtime):
    import boto3

    from tests.integration.test_bank_fingerprint_backfill import run

    saved = runtime.invoke(TOOL, short_answer())["question_id"]
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    table.delete_item(Key={"question_id": "refprints#LLM"})  # as an older stack left it: no print
    assert run(cloud, dry_run=True).prints == 1
    assert "refprints#LLM" not in every_record(cloud)
    done = run(cloud)
    assert done.prints == 1
    assert sorted(int(value) for value in every_record(cloud)["refprints#LLM"][f"p:{saved}"]) == sketch(REFERENCE)
