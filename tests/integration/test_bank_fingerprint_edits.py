"""A reviewer's edit moves the bank item's claim on its stem and key (dal/bank.py) in the edit's
own transaction: the old stem and key may join the bank again as a new item, the new one may not;
an edit to a stem and key another bank item holds is refused with nothing written; undoing the
edit moves the claim back. A retired item's claim never moves."""

import boto3
import pytest

from slea.dal import bank
from slea.security.exposure import bank_fingerprint, stored_item
from tests.integration.test_bank_uniqueness import OTHER_ROUND, bank_items, fingerprints, save
from tests.integration.test_save_generated_question import stored

REVIEWER = "reviewer-7f3a"
FUNCTION = "ApiFunction"
NEW_STEM = "Which technique adds retrieved passages to a prompt?"


def edit(cloud, question_id, **changes):
    from slea.contracts.review import QuestionReviewRequest
    from slea.logic.review.question_actions import review_question

    request = QuestionReviewRequest(action="edit", note="clearer", **changes)
    with cloud.environment(cloud.environment_of(FUNCTION)):
        return review_question(question_id, REVIEWER, request)


def revert(cloud, question_id):
    from slea.contracts.review import UndoRequest
    from slea.logic.review.question_actions import revert_edit

    with cloud.environment(cloud.environment_of(FUNCTION)):
        return revert_edit(question_id, REVIEWER, UndoRequest(note="it was right"))


def fingerprint_of(**text):
    item = {
        "item_type": "multiple_choice",
        "stem": "What is RAG?",
        "choices": ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"],
        "answer_schema": {"correct_key": "C"},
    } | text
    return bank.FINGERPRINT_ENTRY + bank_fingerprint(stored_item(item))


OLD = fingerprint_of()
NEW = fingerprint_of(stem=NEW_STEM)


def everything(cloud):
    """Every record of the tables an edit writes (the audit table included)."""
    dynamodb = boto3.resource("dynamodb")
    return {
        table: sorted(map(repr, dynamodb.Table(cloud.table_name(table)).scan()["Items"]))
        for table in ("QuestionsTable", "AbilitiesTable", "ReviewAuditTable")
    }


def test_an_edit_moves_the_claim_so_the_old_stem_and_key_join_again_and_the_new_do_not(cloud, runtime):
    first = save(runtime)["question_id"]
    assert fingerprints(cloud) == {OLD: first}
    edit(cloud, first, stem=NEW_STEM)
    assert fingerprints(cloud) == {NEW: first}
    again = save(runtime, round_id=OTHER_ROUND)["question_id"]  # the old stem and key: a new item
    assert sorted(bank_items(cloud)) == sorted([first, again])
    assert fingerprints(cloud) == {NEW: first, OLD: again}
    repeated = save(runtime, round_id=OTHER_ROUND, stem=NEW_STEM)["question_id"]  # the new: a copy
    assert stored(cloud)[repeated]["item_id"] == first
    assert sorted(bank_items(cloud)) == sorted([first, again])


def test_an_edit_of_the_key_moves_the_claim_and_new_distractors_move_nothing(cloud, runtime):
    first = save(runtime)["question_id"]
    edit(cloud, first, correct_answer="A")
    assert fingerprints(cloud) == {fingerprint_of(answer_schema={"correct_key": "A"}): first}
    edit(cloud, first, choices=["A) Retrieval", "B) Caching", "C) Both", "D) Sharding"])  # the keyed option stays
    assert fingerprints(cloud) == {fingerprint_of(answer_schema={"correct_key": "A"}): first}


def test_an_edit_to_a_stem_and_key_another_item_holds_is_refused_and_writes_nothing(cloud, runtime):
    from slea.platform.errors import Conflict

    holder = save(runtime)["question_id"]
    other = save(runtime, stem=NEW_STEM)["question_id"]
    before = everything(cloud)
    with pytest.raises(Conflict) as refused:
        edit(cloud, other, stem="what is  RAG")  # the holder's stem, written otherwise, and its key
    assert refused.value.code == "STEM_AND_KEY_IN_BANK"
    assert "another item in the question bank already has this stem" in refused.value.message
    assert holder not in refused.value.message  # neither the item nor its key is named
    assert "Both" not in refused.value.message
    assert everything(cloud) == before


def test_an_edit_of_a_copy_moves_its_bank_items_claim(cloud, runtime):
    first = save(runtime)["question_id"]
    copy = save(runtime, round_id=OTHER_ROUND)["question_id"]
    assert stored(cloud)[copy]["item_id"] == first
    edit(cloud, copy, stem=NEW_STEM)
    assert stored(cloud)[first]["stem"] == NEW_STEM
    assert fingerprints(cloud) == {NEW: first}


def test_a_claim_taken_between_the_edits_reads_and_its_write_refuses_it_with_nothing_written(
    cloud, runtime, monkeypatch
):
    """Another save claims the new stem and key while the edit is being prepared (after its
    reads): the edit's conditional claim fails and takes its whole transaction with it."""
    from slea.platform.errors import Conflict

    first = save(runtime)["question_id"]
    real = bank.holder
    racing = []

    def holder_then_a_racing_save(fingerprint, tool=bank.SAVE_TOOL):
        found = real(fingerprint, tool)
        racing.append(save(runtime, round_id=OTHER_ROUND, stem=NEW_STEM)["question_id"])
        return found

    monkeypatch.setattr(bank, "holder", holder_then_a_racing_save)
    with pytest.raises(Conflict) as refused:
        edit(cloud, first, stem=NEW_STEM)
    assert refused.value.code == "STEM_AND_KEY_IN_BANK"
    assert fingerprints(cloud) == {OLD: first, NEW: racing[0]}
    assert stored(cloud)[first]["stem"] == "What is RAG?"


def test_a_failed_edit_transaction_leaves_the_claim_and_the_item_as_they_were(cloud, runtime, faults):
    from slea.platform.errors import DataAccessError

    first = save(runtime)["question_id"]
    before = everything(cloud)
    with faults.dynamodb("review", "TransactWriteItems", error="InternalServerError"), pytest.raises(DataAccessError):
        edit(cloud, first, stem=NEW_STEM)
    assert everything(cloud) == before
    edit(cloud, first, stem=NEW_STEM)  # tried again, it moves the claim
    assert fingerprints(cloud) == {NEW: first}


def test_undoing_the_edit_moves_the_claim_back(cloud, runtime):
    first = save(runtime)["question_id"]
    edit(cloud, first, stem=NEW_STEM)
    assert fingerprints(cloud) == {NEW: first}
    revert(cloud, first)
    assert stored(cloud)[first]["stem"] == "What is RAG?"
    assert fingerprints(cloud) == {OLD: first}
    later = save(runtime, round_id=OTHER_ROUND, stem=NEW_STEM)["question_id"]  # the edit's: free again
    assert sorted(bank_items(cloud)) == sorted([first, later])


def test_undoing_an_edit_of_a_copy_moves_its_bank_items_claim_back(cloud, runtime):
    first = save(runtime)["question_id"]
    copy = save(runtime, round_id=OTHER_ROUND)["question_id"]
    edit(cloud, copy, stem=NEW_STEM)
    assert fingerprints(cloud) == {NEW: first}
    revert(cloud, copy)
    assert stored(cloud)[first]["stem"] == "What is RAG?"
    assert fingerprints(cloud) == {OLD: first}


def test_an_undo_to_a_stem_and_key_that_joined_meanwhile_is_refused_with_nothing_written(cloud, runtime):
    from slea.platform.errors import Conflict

    first = save(runtime)["question_id"]
    edit(cloud, first, stem=NEW_STEM)
    joined = save(runtime, round_id=OTHER_ROUND)["question_id"]  # the released stem and key, a new item
    before = everything(cloud)
    with pytest.raises(Conflict) as refused:
        revert(cloud, first)
    assert refused.value.code == "STEM_AND_KEY_IN_BANK"
    assert "this undo would restore" in refused.value.message
    assert everything(cloud) == before
    assert fingerprints(cloud) == {NEW: first, OLD: joined}


def test_an_item_saved_before_claims_existed_claims_its_new_stem_and_key_and_releases_nothing(cloud, runtime):
    """Two items of one stem and key from before the claim (only one holds it): editing the other
    claims its new stem and key and leaves the holder's claim alone."""
    holder = save(runtime)["question_id"]
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    older = {**stored(cloud)[holder], "question_id": "older-item", "item_id": "older-item"}
    table.put_item(Item=older)
    edit(cloud, "older-item", stem=NEW_STEM)
    assert fingerprints(cloud) == {OLD: holder, NEW: "older-item"}


def test_an_edit_of_a_copy_of_a_retired_item_leaves_the_retired_item_and_its_claim(cloud, runtime):
    """A retired item's stem and key never rejoin, and it stands for its stem among the retired:
    an edit of a copy of it (answered before the retirement, so still active) edits the copy alone."""
    first = save(runtime)["question_id"]
    copy = save(runtime, round_id=OTHER_ROUND)["question_id"]
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    table.update_item(
        Key={"question_id": first},
        UpdateExpression="SET #status = :retired REMOVE bank_key",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired"},
    )
    edit(cloud, copy, stem=NEW_STEM)
    assert stored(cloud)[copy]["stem"] == NEW_STEM
    assert stored(cloud)[first]["stem"] == "What is RAG?"
    assert fingerprints(cloud) == {OLD: first}
    assert save(runtime, round_id=OTHER_ROUND)["success"]  # the retired stem and key: still a copy
    assert list(bank_items(cloud)) == [first]
