"""The answer path passes values: grading returns a grade and leaves the item it was given as it
was (the explainer reads `grading.graded_item`), a model grader sees other learners' reviewed
answers only on its own copy of the item, and the answer's context is never changed in place."""

import dataclasses

import pytest

from slea.contracts.llm import GradingItem, ShortAnswerGrade
from slea.contracts.scoring import ScoreAnswerInput
from slea.grading.answer_groups import Exemplar
from slea.logic.answering import grading, short_answers
from slea.logic.answering.context import prepare

REFERENCE = "A cache keeps recently used data in fast memory so repeated reads avoid the slow store."


def short_item(answer: str) -> GradingItem:
    return GradingItem(
        question_type="short_answer",
        user_answer=answer,
        stem="What does a cache do?",
        correct_keywords=["fast memory", "repeated reads"],
        reference_answer=REFERENCE,
    )


def test_grading_a_short_answer_leaves_its_item_as_it_was_and_returns_what_it_found():
    item = short_item("It keeps recently used data in fast memory so repeated reads are quick.")
    before = item.model_dump()
    grade = grading.grade(item)
    assert item.model_dump() == before
    graded = grading.graded_item(item, grade)
    assert graded.is_correct is grade.is_correct
    assert graded.keyword_matches == list(grade.keyword_matches)
    assert "fast memory" in graded.keyword_matches
    assert graded.non_answer is False
    assert graded.graded_examples == []


def test_a_non_answer_is_told_to_the_explainer_on_the_graded_item_only():
    item = short_item("I don't know")
    grade = grading.grade(item)
    assert grade.non_answer is True
    assert item.non_answer is False
    assert grading.graded_item(item, grade).non_answer is True


def test_a_choice_is_graded_without_changing_its_item_or_its_keyword_matches():
    item = GradingItem(question_type="multiple_choice", user_answer="B", choices=["A) x", "B) y"], correct_answer="B")
    grade = grading.grade(item)
    assert item.is_correct is None
    graded = grading.graded_item(item, grade)
    assert (graded.is_correct, graded.keyword_matches, graded.non_answer) == (True, [], False)


def test_a_model_grader_sees_the_reviewed_answers_on_its_own_copy_only(monkeypatch):
    seen: list[GradingItem] = []

    class Model:
        name = "model"

        def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade:
            seen.append(item)
            return ShortAnswerGrade(score=90, reasoning="fine", confidence=0.9)

    monkeypatch.setattr(short_answers, "get_provider", Model)
    monkeypatch.setattr(short_answers.budget, "call_fits", lambda settings: True)
    item = short_item("It keeps recently used data in fast memory so repeated reads are quick.")
    exemplars = [Exemplar("e1", REFERENCE, True, 100, 0.9)]
    grade = short_answers.grade(item, exemplars=exemplars)
    assert [example.answer for example in seen[0].graded_examples] == [REFERENCE]
    assert seen[0].keyword_matches == list(grade.keyword_matches)
    assert item.graded_examples == []
    assert grading.graded_item(item, grade).graded_examples == []


def test_the_answer_context_is_a_value():
    request = ScoreAnswerInput(
        session_id="s1",
        user_id="u1",
        question_id="q1",
        question_type="true_false",
        user_answer="True",
        correct_answer="True",
    )
    context = prepare(request, None, [])
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.ability_unreadable = True  # type: ignore[misc]
