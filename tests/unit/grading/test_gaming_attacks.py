"""Attacks on grades learned from reviews and on finalisation, in English and Korean: the
reference's words shuffled or spliced with another reference are never finalised (the word-order
gate, grading/word_order.py), even when reviewers accepted two answers that restate the reference;
honest near copies still take their exemplars' verdict; non-answers ("I don't know", "모르겠습니다",
the question copied back, with or without a list of terms) are final and incorrect at once, never
queued, with a kind feedback line (grading/non_answers.py)."""

import json
import random

import pytest

from bench.grading_agreement import case_item
from slea.grading import non_answers, word_order
from slea.grading.answer_groups import Exemplar, Graded, propagate
from slea.grading.other_items import Reference
from slea.grading.short_answer_evidence import grade_with_evidence
from slea.language.scoring_phrases import phrase
from slea.logic.answering import grading, short_answers
from slea_local import REPO_ROOT

CASES = REPO_ROOT / "bench" / "data" / "grading_cases"


def questions(language):
    """One textbook row per question of the constructed cases (CC0, bench/data/grading_cases)."""
    rows = [json.loads(line) for line in (CASES / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]
    found = {}
    for row in rows:
        found.setdefault(row["question"], row)
    return list(found.values())


ALL = [(language, case) for language in ("english", "korean") for case in questions(language)]
ENGLISH = [(language, case) for language, case in ALL if language == "english"]


def accepted_twice(case):
    """Two learners answered with the reference and a reviewer accepted both."""
    found = []
    for number, text in enumerate([case["reference_answer"], case["reference_answer"] + "."]):
        probability = grade_with_evidence(case_item(case, text)).probability_correct
        found.append(Exemplar(f"e{number}", text, True, 100, probability))
    return found


def others_of(case, language):
    return [Reference(reference=row["reference_answer"]) for row in questions(language) if row != case][:4]


def shuffled(text, seed):
    words = text.split()
    random.Random(seed).shuffle(words)
    return " ".join(words)


def spliced(first, second):
    head, tail = first.split(), second.split()
    return " ".join(head[: len(head) // 2] + tail[len(tail) // 2 :])


def finalised_correct(graded):
    return graded.is_correct and not graded.needs_review


@pytest.mark.parametrize(("language", "case"), ALL, ids=lambda value: value if isinstance(value, str) else value["id"])
def test_the_reference_shuffled_is_never_finalised_even_after_two_accepted_copies(language, case):
    exemplars = accepted_twice(case)
    for seed in range(5):
        answer = shuffled(case["reference_answer"], seed)
        assert not finalised_correct(short_answers.grade(case_item(case, answer), exemplars=exemplars)), answer


@pytest.mark.parametrize(("language", "case"), ALL, ids=lambda value: value if isinstance(value, str) else value["id"])
def test_spliced_references_are_never_finalised(language, case):
    exemplars = accepted_twice(case)
    for other in others_of(case, language):
        for answer in (
            spliced(case["reference_answer"], other.reference),
            spliced(other.reference, case["reference_answer"]),
        ):
            assert not finalised_correct(short_answers.grade(case_item(case, answer), exemplars=exemplars)), answer


@pytest.mark.parametrize(
    ("language", "case"), ENGLISH, ids=lambda value: value if isinstance(value, str) else value["id"]
)
def test_an_english_reference_shuffled_is_never_marked_correct_even_provisionally(language, case):
    # Korean: 3 of 100 shuffles of a short reference that repeats its words ("먼저 넣은 데이터가
    # 먼저 나오는") keep enough pairs by chance (bench/grading_attacks.py).
    exemplars = accepted_twice(case)
    for seed in range(5):
        answer = shuffled(case["reference_answer"], seed)
        assert not short_answers.grade(case_item(case, answer), exemplars=exemplars).is_correct, answer


def test_the_order_measure_tells_a_shuffle_from_a_paraphrase_in_both_languages():
    english = "The switch closes the circuit so current flows through the bulb and it lights."
    assert not word_order.order(english, english).scrambled
    assert word_order.order(shuffled(english, 1), english).reordered
    paraphrase = "Closing the switch completes the circuit, current flows through the bulb, which lights up."
    assert not word_order.order(paraphrase, english).reordered
    korean = (
        "스택은 마지막에 넣은 데이터가 가장 먼저 나오는 후입선출 구조이고, "
        "큐는 먼저 넣은 데이터가 먼저 나오는 선입선출 구조입니다."
    )
    assert not word_order.order(korean, korean).scrambled
    assert word_order.order(shuffled(korean, 2), korean).reordered
    moved = (
        "큐는 먼저 넣은 데이터가 먼저 나오는 선입선출 구조이고, "
        "스택은 마지막에 넣은 데이터가 가장 먼저 나오는 후입선출 구조입니다."
    )
    assert not word_order.order(moved, korean).reordered  # clauses swapped: each keeps its order


def test_an_honest_near_copy_still_takes_the_exemplars_verdict():
    exemplars = [
        Exemplar("a", "the bulb is in a closed path with the battery", True, 100, 0.6),
        Exemplar("b", "the bulb is in a closed path with the battery.", True, 100, 0.6),
    ]
    assert propagate(Graded("bulb is in a closed path with the battery", 0.6), exemplars).correct is True
    scrambled = propagate(Graded("path the battery bulb closed in a is with the", 0.6), exemplars)
    assert scrambled.correct is None


NON_ANSWERS = {
    "english": [
        "I don't know",
        "I really don't know the answer to this.",
        "No idea, sorry.",
        "I'm not sure.",
        "I forgot.",
    ],
    "korean": [
        "모르겠습니다",
        "잘 모르겠어요",
        "이 문제는 잘 모르겠습니다.",
        "기억이 안 나요",
        "죄송합니다, 모릅니다.",
    ],
}


def non_answer_cases():
    for language, case in ALL:
        for answer in NON_ANSWERS[language]:
            yield pytest.param(case, answer, id=f"{case['id']}-{answer}")
        yield pytest.param(case, case["question"], id=f"{case['id']}-stem")
        yield pytest.param(case, f"{case['question']} {case['question']}", id=f"{case['id']}-stem-twice")
        yield pytest.param(
            case, f"{case['question']} {', '.join(case['keywords'])}", id=f"{case['id']}-stem-and-keywords"
        )


@pytest.mark.parametrize(("case", "answer"), list(non_answer_cases()))
def test_a_non_answer_is_final_and_incorrect_at_once_never_queued(case, answer):
    language = "korean" if case["id"].startswith("ko") else "english"
    for extra in ({}, {"exemplars": accepted_twice(case)}, {"others": others_of(case, language)}):
        graded_item = case_item(case, answer)
        graded = short_answers.grade(graded_item, **extra)
        assert (graded.is_correct, graded.needs_review) == (False, False), extra.keys()
        assert graded.score <= 10
        # The explainer's item says so (test changed to the new behaviour: grading set it on the
        # item it was given; it now leaves that item as it was and returns the graded one).
        assert grading.graded_item(graded_item, graded).non_answer is True


@pytest.mark.parametrize(
    "answer",
    [
        "I'm not sure, but it retrieves documents first and then generates the answer from them.",
        "It will work.",
        "The base case for a recursive implementation of merge sort is one.",
    ],
)
def test_an_answer_with_a_doubt_or_one_word_added_to_the_question_is_not_a_non_answer(answer):
    assert non_answers.kind(answer, "What is the base case for a recursive implementation of merge sort?") is None


def keyword_list_cases():
    for _language, case in ALL:
        if not non_answers.ASKS_FOR_NAMES.search(case["question"]) and len(case["keywords"]) >= 3:
            yield pytest.param(case, ", ".join(case["keywords"]), id=f"{case['id']}-keywords")
            yield pytest.param(case, "\n".join(reversed(case["keywords"])), id=f"{case['id']}-keywords-lines")


@pytest.mark.parametrize(("case", "answer"), list(keyword_list_cases()))
def test_the_items_keywords_listed_bare_to_a_what_or_why_question_are_a_non_answer(case, answer):
    graded_item = case_item(case, answer)
    graded = short_answers.grade(graded_item)
    assert (graded.is_correct, graded.needs_review, grading.graded_item(graded_item, graded).non_answer) == (
        False,
        False,
        True,
    )


def test_a_bare_list_to_a_question_that_asks_for_names_still_goes_to_a_reviewer():
    # To "Which data structure does BFS use, and which does DFS use?" a list may be the answer.
    case = next(case for _, case in ALL if case["question"].startswith("Which data structure"))
    graded_item = case_item(case, ", ".join(case["keywords"]))
    graded = short_answers.grade(graded_item)
    assert graded.needs_review is True
    assert not graded.is_correct
    assert grading.graded_item(graded_item, graded).non_answer is False


@pytest.mark.parametrize(
    "answer",
    [
        "Back and forth, side to side, up and down.",  # words of its own, not the keywords
        "queue, stack",  # two terms: may answer a question about two things
        "It retrieves external knowledge, adds it to the prompt, keeps the answer grounded.",
    ],
)
def test_a_list_in_words_of_its_own_or_of_two_terms_is_an_answer(answer):
    keywords = ["retrieve", "external knowledge", "prompt", "grounded", "queue", "stack"]
    assert non_answers.kind(answer, "What is RAG and why is it used with LLMs?", keywords) is None


def test_the_feedback_for_a_non_answer_is_kind_and_in_the_question_language():
    assert grading.feedback_line(0, "en", non_answer=True) == phrase("en", "non_answer")
    assert "that is fine" in phrase("en", "non_answer")
    assert grading.feedback_line(0, "ko", non_answer=True) == phrase("ko", "non_answer")
    assert grading.feedback_line(0, "en") == phrase("en", "constructive")
