"""The exemplar item's layout (dal/exemplars.py): bounded slots, written without a read."""

import pytest

from slea.dal import exemplars


@pytest.fixture(autouse=True)
def _table(monkeypatch):
    monkeypatch.setenv("QUESTIONS_TABLE", "questions")


def test_a_review_writes_one_slot_of_its_items_exemplar_item():
    write = exemplars.exemplar_write("item-1", {"id": "a1", "text": "x" * 5000, "correct": True, "score": 90})
    update = write["Update"]
    assert update["Key"] == {"question_id": {"S": "exemplars#item-1"}}
    slot = update["ExpressionAttributeNames"]["#slot"]
    assert slot == exemplars.slot_of("a1")
    assert slot.startswith("x")
    assert 0 <= int(slot[1:]) < exemplars.SLOTS
    stored = update["ExpressionAttributeValues"][":exemplar"]["M"]
    assert len(stored["text"]["S"]) == exemplars.EXEMPLAR_TEXT_MAX
    assert "probability" not in stored  # unknown: left out, not stored as null


def test_the_item_reads_back_its_exemplars_and_faces_only():
    record = {
        "question_id": "exemplars#item-1",
        "item_id": "item-1",
        "x03": {"id": "a1", "text": "one", "correct": True, "score": 90},
        "x17": {"id": "a2", "text": "two", "correct": False, "score": 10},
        "g02": {"group_id": "g1", "text": "face", "probability": 0.4, "flagged": False},
        "x99x": {"text": "not a slot", "correct": True},
    }
    assert [e["id"] for e in exemplars.exemplars_in(record)] == ["a1", "a2"]
    assert [f["group_id"] for f in exemplars.faces_in(record)] == ["g1"]
    assert exemplars.exemplars_in(None) == []


def test_a_group_face_goes_to_its_own_slots():
    write = exemplars.face_write("item-1", {"group_id": "g1", "text": "face", "probability": None, "flagged": True})
    slot = write["Update"]["ExpressionAttributeNames"]["#slot"]
    assert slot.startswith("g")
    assert int(slot[1:]) < exemplars.FACE_SLOTS
