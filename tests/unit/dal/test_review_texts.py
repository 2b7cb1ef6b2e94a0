"""A question's new text as a reviewer's edit (or its undo) writes it: the answer_schema map is
built in dal/review_writes.py from the stored one, keeping what the edit does not change."""

from slea.dal.question_records import stored_question
from slea.dal.review_writes import edited_text, restored_text

STORED = stored_question(
    {
        "question_id": "q1",
        "item_type": "multiple_choice",
        "stem": "Old stem",
        "choices": ["A", "B", "C"],
        "answer_schema": {"correct_key": "A", "explanation": "why", "sources": [{"title": "t"}]},
    }
)


def test_an_edit_replaces_the_key_and_keeps_the_rest_of_the_answer_schema():
    text = edited_text(STORED, "New stem", ["A", "B"], correct_key="B")
    assert (text.stem, text.choices, text.correct_key) == ("New stem", ["A", "B"], "B")
    assert text.answer_schema == {"correct_key": "B", "explanation": "why", "sources": [{"title": "t"}]}


def test_a_short_answer_edit_replaces_its_keywords_only():
    short = stored_question(
        {
            "question_id": "q2",
            "item_type": "short_answer",
            "stem": "s",
            "answer_schema": {"correct_keywords": ["x"], "reference_answer": "r"},
        }
    )
    text = edited_text(short, "s", None, correct_keywords=["y"], short_answer=True)
    assert text.answer_schema == {"correct_keywords": ["y"], "reference_answer": "r"}
    assert text.choices is None


def test_an_undo_puts_back_the_snapshot_key_and_keeps_the_choices_it_does_not_name():
    text = restored_text(STORED, "Old stem", None, correct_key="C", correct_keywords=None)
    assert text.choices == ["A", "B", "C"]
    assert text.answer_schema == {"explanation": "why", "sources": [{"title": "t"}], "correct_key": "C"}
