"""The records dal/bank.py and dal/sessions.py build from stored items: each read in one place,
with honest defaults for what an item may lack."""

import dataclasses
from decimal import Decimal

from slea.dal.bank import COPIED_FIELDS, bank_item, new_copy
from slea.dal.profiles import stored_survey
from slea.dal.sessions import SessionPage, listed_session, open_session, stored_session

ITEM = {
    "question_id": "item-1",
    "item_id": "item-1",
    "item_type": "multiple_choice",
    "stem": "Which one?",
    "choices": ["A) x", "B) y"],
    "answer_schema": {"correct_key": "A", "explanation": "x: the first", "extra": "kept"},
    "difficulty": Decimal(5),
    "category": "technical",
    "language": "en",
    "difficulty_b": Decimal("0.4"),
    "draws": Decimal(7),
    "bank_key": "technical#en",
    "stats_flag": None,
}


def test_a_bank_item_is_its_question_its_draws_and_what_a_copy_takes_as_stored():
    item = bank_item(ITEM)
    assert (item.question.question_id, item.question.difficulty_b, item.draws) == ("item-1", 0.4, 7)
    assert item.groups_today == frozenset()
    assert set(item.content) <= set(COPIED_FIELDS)
    assert item.content["answer_schema"] == ITEM["answer_schema"]  # unchanged, its unknown keys too
    assert "bank_key" not in item.content


def test_an_item_read_with_few_fields_has_the_records_defaults():
    item = bank_item({"question_id": "q", "item_id": "q", "difficulty_b": Decimal("-1")})
    assert (item.draws, item.question.stem, item.question.choices, item.content) == (0, "", None, {})


def test_a_copy_is_the_items_content_placed_in_the_session_with_its_record():
    copy = new_copy(
        bank_item(ITEM),
        "copy-1",
        session_id="s",
        round_id="s_1_t",
        round_number=2,
        at="t",
        order=(["B) y", "A) x"], "B"),
    )
    assert copy.item["item_id"] == "item-1"
    assert copy.item["round"] == 2
    assert copy.item["answer_schema"] == {**ITEM["answer_schema"], "correct_key": "B"}
    assert (copy.question.question_id, copy.question.bank_item_id, copy.question.choices) == (
        "copy-1",
        "item-1",
        ("B) y", "A) x"),
    )
    assert copy.question.answer_schema.correct_key == "B"
    unshuffled = new_copy(bank_item(ITEM), "copy-2", session_id="s", round_id="r", round_number=1, at="t")
    assert unshuffled.item["choices"] == ITEM["choices"]
    assert unshuffled.question.session_id == "s"


def test_a_session_record_says_what_it_lacks():
    practice = stored_session({"session_id": "s", "user_id": "u", "created_at": "t"})
    assert (practice.purpose, practice.closed_at, practice.placement_result) == (None, None, None)
    placement = stored_session(
        {"session_id": "p", "user_id": "u", "purpose": "placement", "category": "c", "prior": "[0, 1]"}
    )
    assert (placement.purpose, placement.category, placement.prior, placement.language) == (
        "placement",
        "c",
        "[0, 1]",
        None,
    )
    assert open_session({"session_id": "s"}).round_started_at is None


def test_a_listed_session_is_the_user_sessions_index_entrys_keys():
    listed = listed_session({"session_id": "s1", "user_id": "u1", "created_at": "2026-11-02T10:00:00.000Z"})
    assert (listed.session_id, listed.created_at) == ("s1", "2026-11-02T10:00:00.000Z")
    assert (listed_session({}).session_id, listed_session({}).created_at) == ("", "")


def test_a_session_record_says_whether_a_round_there_left_items_open_and_when_it_started():
    started = stored_session({"session_id": "s", "user_id": "u", "open_for": "u", "round_started_at": "t2"})
    assert (started.open_for, started.round_started_at) == ("u", "t2")
    settled = stored_session({"session_id": "s", "user_id": "u", "round_started_at": "t2"})
    assert (settled.open_for, settled.round_started_at) == (None, "t2")


def test_a_survey_record_is_its_language_and_its_answers():
    item = {"user_id": "u1", "self_level": "advanced", "years_experience": 3, "language": "ko"}
    survey = stored_survey(item)
    assert (survey.language, survey.answers) == ("ko", item)
    assert stored_survey({"user_id": "u1"}).language is None


def test_a_page_of_a_learners_sessions_ends_at_the_user_sessions_index_keys():
    assert {field.name for field in dataclasses.fields(SessionPage)} == {"session_id", "user_id", "created_at"}
