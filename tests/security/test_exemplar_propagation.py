"""Grades learned from reviews never finalise gaming, contradictions or junk as correct: every
constructed case (bench/data/grading_cases) is graded by the product's own short-answer grading
(`logic.answering.short_answers.grade`, offline) with the strongest exemplars an item could hold,
two reviewed answers graded correct that restate the reference and two textbook answers, and
none of them is finalised as correct; wrong answers in the reference's own words are not either."""

import json
from collections import defaultdict

import pytest

from bench.grading_agreement import attacks, case_item
from slea.grading.answer_groups import Exemplar
from slea.grading.short_answer_evidence import grade_with_evidence
from slea.logic.answering import short_answers
from slea_local import REPO_ROOT

CASES = REPO_ROOT / "bench" / "data" / "grading_cases"


def rows(name):
    return [json.loads(line) for line in (CASES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


TEXTBOOK = defaultdict(list)
for _row in rows("english.jsonl") + rows("korean.jsonl"):
    if _row["kind"] == "textbook":
        TEXTBOOK[_row["question"]].append(_row["answer"])


def strongest_exemplars(case):
    """What reviewers would have graded correct: the reference, restated twice, and the textbook
    answers, each with the grader's own probability (as a review stores it)."""
    texts = [case["reference_answer"], case["reference_answer"] + ".", *TEXTBOOK[case["question"]]]
    found = []
    for number, text in enumerate(texts):
        probability = grade_with_evidence(case_item(case, text)).probability_correct
        found.append(Exemplar(f"e{number}", text, True, 100, probability))
    return found


def finalised_as_correct(case, answer):
    graded = short_answers.grade(case_item(case, answer), exemplars=strongest_exemplars(case))
    return graded.is_correct and not graded.needs_review


def gaming_cases():
    questions = [row for row in rows("english.jsonl") if row["kind"] == "textbook"]
    references = [row["reference_answer"] for row in questions]
    for case in questions:
        others = [reference for reference in references if reference != case["reference_answer"]]
        for kind, answer in attacks(case, others):
            yield pytest.param(case, answer, id=f"{case['id']}-{kind}")


@pytest.mark.parametrize(("case", "answer"), list(gaming_cases()))
def test_gaming_is_never_finalised_as_correct_by_exemplars(case, answer):
    assert not finalised_as_correct(case, answer)


@pytest.mark.parametrize("case", rows("contradictions.jsonl"), ids=lambda case: case["id"])
def test_contradictions_are_never_finalised_as_correct_by_exemplars(case):
    assert not finalised_as_correct(case, case["answer"])


@pytest.mark.parametrize("case", rows("unrelated.jsonl"), ids=lambda case: case["id"])
def test_junk_is_never_finalised_as_correct_by_exemplars(case):
    assert not finalised_as_correct(case, case["answer"])


@pytest.mark.parametrize(
    "case",
    [row for row in rows("english.jsonl") + rows("korean.jsonl") if row["kind"] == "wrong"],
    ids=lambda case: case["id"],
)
def test_wrong_answers_in_the_references_words_are_not_finalised_as_correct(case):
    assert not finalised_as_correct(case, case["answer"])
