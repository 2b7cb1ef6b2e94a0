"""An answer that agrees with another item's reference rather than its own (grading/other_items.py,
and the short-answer grading that applies it): never correct, and sent to review."""

import pytest

from slea.contracts.llm import GradingItem
from slea.dal.question_records import stored_question
from slea.grading.evidence import Material
from slea.grading.other_items import FLAG, Reference, other_match
from slea.logic.answering import short_answers

RAFT = Reference(
    reference=(
        "Raft elects a leader with randomised election timeouts, and the leader replicates log entries; "
        "an entry is committed once a majority of servers store it."
    ),
    keywords=("leader", "majority", "log"),
    stem="How does Raft reach consensus?",
)
HOMOMORPHIC = Reference(
    reference=(
        "Fully homomorphic encryption lets a server compute on encrypted data, so the result decrypts "
        "to what the computation on the plaintext would give, without the server seeing the data."
    ),
    keywords=("encrypted", "compute", "decrypt"),
    stem="What does fully homomorphic encryption allow?",
)


def _item(answer: str) -> GradingItem:
    return GradingItem(
        question_type="short_answer",
        user_answer=answer,
        stem=RAFT.stem,
        correct_keywords=list(RAFT.keywords),
        reference_answer=RAFT.reference,
        category="technical",
    )


def test_another_items_reference_pasted_agrees_better_with_it_than_with_its_own():
    match = other_match(Material(answer=HOMOMORPHIC.reference, reference=RAFT.reference), 50, [HOMOMORPHIC])
    assert match is not None
    assert match.better_elsewhere
    assert match.undecided


def test_no_other_reference_means_no_match():
    assert other_match(Material(answer="x", reference="y"), 50, []) is None
    assert other_match(Material(answer="x", reference="y"), 50, [Reference(reference="  ")]) is None


def test_a_pasted_reference_of_another_item_is_not_correct_and_goes_to_review():
    pasted = short_answers.grade(_item(HOMOMORPHIC.reference), [HOMOMORPHIC])
    assert not pasted.is_correct
    assert pasted.score < 80
    assert pasted.needs_review
    assert pasted.short_answer is not None
    assert FLAG in pasted.short_answer.flags


@pytest.mark.parametrize("others", [[], [HOMOMORPHIC]])
def test_the_own_reference_restated_is_graded_as_before(others):
    """Another item on another concept changes nothing for an answer to the question asked."""
    alone = short_answers.grade(_item(RAFT.reference))
    checked = short_answers.grade(_item(RAFT.reference), others)
    assert (checked.score, checked.is_correct, checked.needs_review) == (
        alone.score,
        alone.is_correct,
        alone.needs_review,
    )
    assert checked.short_answer is not None
    assert FLAG not in checked.short_answer.flags


def test_the_session_others_are_its_other_short_answer_items_with_a_reference():
    session = [
        {"question_id": "own", "item_type": "short_answer", "answer_schema": {"reference_answer": "mine"}},
        {
            "question_id": "o1",
            "item_type": "short_answer",
            "stem": "S",
            "answer_schema": {"reference_answer": "theirs", "correct_keywords": ["k"]},
        },
        {"question_id": "o2", "item_type": "short_answer", "answer_schema": {}},
        {"question_id": "o3", "item_type": "multiple_choice", "answer_schema": {"correct_key": "A"}},
    ]
    records = [stored_question(question) for question in session]
    assert short_answers.other_references("own", records) == [Reference(reference="theirs", keywords=("k",), stem="S")]
