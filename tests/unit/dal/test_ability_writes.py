"""The learner model's transaction items (slea.dal.abilities, slea.dal.attempts) and what an
answer is evidence of (slea.logic.answering.ability_update), without AWS."""

from decimal import Decimal

import pytest

from slea.contracts.scoring import ScoreAnswerInput
from slea.dal import abilities, attempts
from slea.dal.question_records import stored_question
from slea.logic.answering import ability_update as ability_recording
from slea.measurement import scale

ATTEMPT = {"question_id": "q1", "attempt_key": "q1#abc", "is_correct": True, "graded_at": "2026-11-24T10:00:00.000Z"}


@pytest.fixture(autouse=True)
def table_names(monkeypatch):
    for variable in ("ABILITIES_TABLE", "ATTEMPTS_TABLE", "QUESTIONS_TABLE"):
        monkeypatch.setenv(variable, variable.lower())


def change(read_version, seen_item="q1"):
    return abilities.AbilityChange(
        user_id="u",
        category="technical",
        posterior=[0.0, -1.5],
        theta=0.25,
        se=0.9,
        answers=3,
        read_version=read_version,
        at="2026-11-24T10:00:00.000Z",
        point_suffix="q1#abc",
        seen_item=seen_item,
    )


def test_a_first_answer_is_conditioned_on_no_estimate_and_a_later_one_on_the_version_read():
    first, point = abilities.answer_items(change(None))
    assert first["Update"]["ConditionExpression"] == "attribute_not_exists(#version)"
    assert first["Update"]["ExpressionAttributeValues"][":next"] == {"N": "1"}
    assert first["Update"]["ExpressionAttributeValues"][":seen"] == {"SS": ["q1"]}
    later, _ = abilities.answer_items(change(4, seen_item=None))
    assert later["Update"]["ConditionExpression"] == "#version = :read"
    values = later["Update"]["ExpressionAttributeValues"]
    assert (values[":read"], values[":next"]) == ({"N": "4"}, {"N": "5"})
    assert "seen_items" not in later["Update"]["UpdateExpression"]  # a reviewer's correction shows nothing
    assert point["Put"]["Item"]["entry"] == {"S": "history#technical#2026-11-24T10:00:00.000Z#q1#abc"}
    assert point["Put"]["ConditionExpression"] == "attribute_not_exists(entry)"


def _transaction(monkeypatch, *, difficulty, count_on_question=True):
    sent = []

    class Client:
        def transact_write_items(self, TransactItems):
            sent.extend(TransactItems)

    monkeypatch.setattr(attempts, "dynamodb", lambda tool: Client())
    outcome = attempts.record_graded_answer(
        ATTEMPT, count_on_question, True, learner=abilities.answer_items(change(None)), difficulty=difficulty
    )
    assert outcome == "recorded"
    return sent


def test_a_question_that_is_its_own_bank_item_is_one_update_with_its_difficulty_step(monkeypatch):
    """DynamoDB refuses two operations on one item in a transaction: the counts, the claim and the
    difficulty step are one Update."""
    step = attempts.DifficultyStep("q1", delta_b=-0.2, delta_precision=0.1, prior_b=0.75, prior_precision=2.04)
    sent = _transaction(monkeypatch, difficulty=step)
    keys = [(next(iter(item.values()))["TableName"], str(next(iter(item.values())).get("Key"))) for item in sent]
    assert len(keys) == len(set(keys)) == 4  # attempt, question (with its step), ability, history point
    (question,) = [item["Update"] for item in sent if item.get("Update", {}).get("TableName") == "questions_table"]
    assert "difficulty_b = if_not_exists(difficulty_b, :prior_b) + :delta_b" in question["UpdateExpression"]
    assert "answered_at = :at" in question["UpdateExpression"]
    assert "item_answers :answered" in question["UpdateExpression"]


def test_a_copy_drawn_from_the_bank_steps_the_bank_item_separately(monkeypatch):
    step = attempts.DifficultyStep("bank1", delta_b=0.1, delta_precision=0.1, prior_b=0.0, prior_precision=2.04)
    sent = _transaction(monkeypatch, difficulty=step)
    updates = [item["Update"] for item in sent if item.get("Update", {}).get("TableName") == "questions_table"]
    assert [update["Key"]["question_id"]["S"] for update in updates] == ["q1", "bank1"]
    assert "difficulty_b" not in updates[0]["UpdateExpression"]
    assert updates[1]["ConditionExpression"] == "attribute_exists(question_id)"  # never creates an item


def test_evidence_of_an_answer():
    request = ScoreAnswerInput(
        session_id="s",
        user_id="ABCDEF01-2345-4678-9ABC-DEF012345678",
        question_id="copy",
        question_type="short_answer",
        user_answer="text",
        correct_keywords=["k"],
    )
    copy = stored_question({"question_id": "copy", "item_id": "bank", "category": "x"})
    evidence = ability_recording.evidence_of(request, copy, 70)
    assert evidence is not None
    assert (evidence.user_id, evidence.item_id, evidence.score) == ("abcdef01-2345-4678-9abc-def012345678", "bank", 0.7)
    assert ability_recording.evidence_of(request, stored_question({"question_id": "copy"}), 70) is None  # no category


def test_an_items_difficulty_is_its_learnt_one_else_its_labels_prior():
    assert ability_recording.item_difficulty(None, 7).b == scale.label_to_b(7)
    assert ability_recording.item_difficulty(stored_question({"difficulty": 3}), 7).b == scale.label_to_b(3)
    stored = stored_question({"difficulty": 3, "difficulty_b": Decimal("1.1"), "item_answers": Decimal(9)})
    learnt = ability_recording.item_difficulty(stored, 7)
    assert (learnt.b, learnt.answers) == (1.1, 9)
