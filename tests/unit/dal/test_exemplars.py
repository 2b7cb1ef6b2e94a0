"""The exemplar item's layout (dal/exemplars.py): bounded slots, each exemplar in a free one when there is one."""

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
    assert [e.exemplar_id for e in exemplars.exemplars_in(record)] == ["a1", "a2"]
    assert [f.group_id for f in exemplars.faces_in(record)] == ["g1"]
    assert exemplars.exemplars_in(None) == []


def test_a_slot_reads_as_a_typed_record():
    record = {
        "x01": {"id": "a1", "text": "one", "correct": True, "probability": 0.8},
        "x02": {"text": "two", "correct": False, "score": 30, "probability": "high"},
        "g03": {"group_id": "g1", "text": "face"},
    }
    assert exemplars.exemplars_in(record) == [
        exemplars.StoredExemplar("a1", "one", True, 100, 0.8),  # no score kept: its verdict's
        exemplars.StoredExemplar("", "two", False, 30, None),  # a probability that is no number: none
    ]
    assert exemplars.faces_in(record) == [exemplars.StoredFace("g1", "face", None, False)]


def test_a_group_face_goes_to_its_own_slots():
    write = exemplars.face_write("item-1", {"group_id": "g1", "text": "face", "probability": None, "flagged": True})
    slot = write["Update"]["ExpressionAttributeNames"]["#slot"]
    assert slot.startswith("g")
    assert int(slot[1:]) < exemplars.FACE_SLOTS


def _colliding_ids() -> tuple[str, str]:
    """Two exemplar ids that hash to the same slot."""
    seen: dict[str, str] = {}
    for number in range(1000):
        exemplar_id = f"attempt-{number}"
        slot = exemplars.slot_of(exemplar_id)
        if slot in seen:
            return seen[slot], exemplar_id
        seen[slot] = exemplar_id
    raise AssertionError("no collision among 1000 ids")


def test_an_exemplar_whose_slot_is_taken_goes_to_the_next_free_one_and_is_found_there():
    """Written blind into its hashed slot, the second of two colliding exemplars replaced the first
    (one time in forty for an item's first two, and two agreeing exemplars are what grade)."""
    first, second = _colliding_ids()
    slot = exemplars.slot_of(first)
    record = {"question_id": "exemplars#item-1", slot: {"id": first, "text": "one", "correct": True, "score": 90}}
    moved = exemplars.slot_for(record, second)
    assert moved == f"x{(int(slot[1:]) + 1) % exemplars.SLOTS:02d}"
    write = exemplars.exemplar_write("item-1", {"id": second, "text": "two", "correct": True, "score": 90}, record)
    assert write["Update"]["ExpressionAttributeNames"]["#slot"] == moved
    record[moved] = {"id": second, "text": "two", "correct": True, "score": 90}
    assert exemplars.slot_holding(record, first) == slot
    assert exemplars.slot_holding(record, second) == moved
    assert exemplars.holds(record, second)
    assert exemplars.slot_for(record, second) == moved  # a second review of it rewrites its own slot
    removal = exemplars.exemplar_removal("item-1", second, moved)
    assert removal["Update"]["ExpressionAttributeNames"]["#slot"] == moved


def test_a_full_exemplar_item_replaces_the_hashed_slot_and_stays_bounded():
    full = {f"x{slot:02d}": {"id": f"old-{slot}", "text": "t", "correct": True, "score": 90} for slot in range(40)}
    assert exemplars.SLOTS == 40
    assert exemplars.slot_for(full, "new") == exemplars.slot_of("new")
    assert exemplars.slot_holding(full, "new") is None
