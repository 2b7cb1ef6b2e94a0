"""An answer that is the reference of ANOTHER item (of any session, or of the bank) is never graded
correct: every short-answer item's reference leaves a print (grading/reference_prints.py) in its
category's record (dal/reference_prints.py), read with the answer's other records."""

import json

import pytest

from bench.grading_agreement import case_item
from slea.dal import answer_reads, reference_prints
from slea.dal.answer_reads import AnswerReads
from slea.grading.reference_prints import MIN_SHINGLES, SKETCH, contained, pasted_from, sketch
from slea.logic.answering import grades, short_answers
from slea_local import REPO_ROOT

CASES = REPO_ROOT / "bench" / "data" / "grading_cases"


def rows(language):
    return [json.loads(line) for line in (CASES / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]


def questions(language):
    found = {}
    for row in rows(language):
        found.setdefault(row["question"], row)
    return found


def prints_of(language):
    return {question: sketch(row["reference_answer"]) for question, row in questions(language).items()}


@pytest.mark.parametrize("language", ["english", "korean"])
def test_every_other_reference_pasted_whole_or_with_a_word_dropped_is_recognised(language):
    prints = prints_of(language)
    found = questions(language)
    for question, row in found.items():
        for other, pasted in found.items():
            if other == question:
                continue
            words = pasted["reference_answer"].split()
            edited = " ".join(words[: len(words) // 2] + words[len(words) // 2 + 1 :])
            for answer in (pasted["reference_answer"], edited):
                hit = pasted_from(answer, row["reference_answer"], prints, [question])
                assert hit is not None, answer
                assert hit.item_id == other


@pytest.mark.parametrize("language", ["english", "korean"])
def test_honest_answers_in_own_words_are_never_taken_for_another_items_reference(language):
    prints = prints_of(language)
    for row in rows(language):  # textbook, paraphrase, partial and wrong answers alike
        assert pasted_from(row["answer"], row["reference_answer"], prints, [row["question"]]) is None, row["id"]


def spliced(first, second):
    head, tail = first.split(), second.split()
    return " ".join(head[: len(head) // 2] + tail[len(tail) // 2 :])


@pytest.mark.parametrize("language", ["english", "korean"])
def test_a_reference_spliced_with_another_concepts_is_recognised(language):
    # Half of the own reference and half of another (either way round): 94% of the 1,200 English
    # and 96% of the 760 Korean splices when written; the rest keep too little of either half
    # in runs of three content words. Honest answers are never taken for one (the test above).
    prints = prints_of(language)
    found = questions(language)
    splices = recognised = 0
    for question, row in found.items():
        for other, pasted in found.items():
            if other == question or not prints[other] or contained(prints[other], row["reference_answer"]) > 0:
                continue
            for answer in (
                spliced(row["reference_answer"], pasted["reference_answer"]),
                spliced(pasted["reference_answer"], row["reference_answer"]),
            ):
                splices += 1
                recognised += pasted_from(answer, row["reference_answer"], prints, [question]) is not None
    assert splices >= 500
    assert recognised >= 0.9 * splices


def test_the_own_reference_and_a_twin_reference_are_left_to_the_grader():
    own = "Terminal 1 and the positive terminal are separated by the gap in the circuit path"
    twin = "Terminal 6 and the positive terminal are separated by the gap in the circuit path"
    prints = {"own": sketch(own), "twin": sketch(twin)}
    assert pasted_from(own, own, prints, ["own"]) is None
    assert pasted_from(twin, own, prints, ["own"]) is None  # the two references word the same idea


def test_a_print_is_small_and_a_short_reference_leaves_none():
    long = " ".join(rows("english")[0]["reference_answer"] for _ in range(5))
    assert len(sketch(long)) == SKETCH
    assert sketch("Abstraction and reusability.") == []  # fewer than MIN_SHINGLES content 3-grams
    assert MIN_SHINGLES > 1
    assert contained([], "anything") == 0.0


@pytest.mark.parametrize("language", ["english", "korean"])
def test_another_concepts_reference_is_never_graded_correct_and_goes_to_a_reviewer(language):
    found = list(questions(language).values())
    prints = grades.OtherPrints(prints_of(language), ())
    for index, row in enumerate(found):
        other = found[(index + 1) % len(found)]
        own_items = (row["question"],)
        graded = short_answers.grade(
            case_item(row, other["reference_answer"]), prints=grades.OtherPrints(prints.prints, own_items)
        )
        assert (graded.is_correct, graded.needs_review) == (False, True)
        assert graded.score < 80
        assert "matches_another_item" in graded.short_answer.flags


def test_the_textbook_answer_still_passes_beside_every_print():
    row = next(row for row in rows("english") if row["kind"] == "textbook")
    with_prints = short_answers.grade(
        case_item(row, row["answer"]), prints=grades.OtherPrints(prints_of("english"), (row["question"],))
    )
    without = short_answers.grade(case_item(row, row["answer"]))
    assert (with_prints.score, with_prints.is_correct, with_prints.needs_review) == (
        without.score,
        without.is_correct,
        without.needs_review,
    )


def test_the_category_record_is_read_in_the_answers_batch_and_parsed(monkeypatch):
    monkeypatch.setenv("QUESTIONS_TABLE", "questions")
    asked = []

    class Client:
        def batch_get_item(self, RequestItems):
            asked.append(RequestItems)
            record = {"question_id": {"S": "refprints#technical"}, "p:item-1": {"NS": ["3", "1", "2"]}}
            return {"Responses": {"questions": [record]}, "UnprocessedKeys": {}}

    monkeypatch.setattr(answer_reads, "dynamodb", lambda tool: Client())
    records = answer_reads.read(AnswerReads(prints_of="technical"))
    assert len(asked) == 1
    assert asked[0]["questions"]["Keys"] == [{"question_id": {"S": "refprints#technical"}}]
    assert reference_prints.prints_in(records.reference_prints) == {"item-1": [1, 2, 3]}


def test_a_print_that_cannot_be_written_leaves_the_save_alone(monkeypatch):
    from botocore.exceptions import ClientError

    monkeypatch.setenv("QUESTIONS_TABLE", "questions")
    written = []

    class Client:
        def update_item(self, **request):
            written.append(request)
            raise ClientError({"Error": {"Code": "ValidationException", "Message": "too large"}}, "UpdateItem")

    monkeypatch.setattr(reference_prints, "dynamodb", lambda tool: Client())
    assert reference_prints.add("technical", "item-1", [5, 4]) is False
    assert written[0]["ExpressionAttributeNames"] == {"#print": "p:item-1"}
    assert written[0]["ExpressionAttributeValues"] == {":print": {"NS": ["4", "5"]}}
    assert reference_prints.add("technical", "item-2", []) is False  # no print: nothing written
    assert len(written) == 1
