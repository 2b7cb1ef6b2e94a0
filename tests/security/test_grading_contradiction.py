"""Contradicting answers are never finalised as correct: a negated or opposite key
point, nonsense added to a correct answer, another item's option pasted in. English and Korean.
Correct paraphrases, double negations and negative references are not flagged."""

import pytest

from slea.grading.evidence import Evidence, Material
from slea.grading.offline import grade

REFERENCE = (
    "RAG retrieves documents relevant to the user's query from an external knowledge source and adds them to the "
    "prompt, so the LLM generates an answer grounded in that retrieved context. It lets the model use up-to-date or "
    "private information without retraining and reduces hallucinations."
)
STEM = "What is retrieval-augmented generation (RAG) and why is it used with LLMs?"
KEYWORDS = ["retrieve", "external knowledge", "prompt", "grounded"]
KO_REFERENCE = (
    "RAG는 질문과 관련된 문서를 외부 지식 저장소에서 먼저 검색한 뒤, 그 내용을 프롬프트에 함께 넣어 LLM이 답변을 "
    "생성하게 하는 방식입니다. 모델을 다시 학습시키지 않고도 최신 정보나 사내 데이터를 반영할 수 있고 환각을 줄이는 데 "
    "도움이 됩니다."
)
KO_STEM = "RAG(검색 증강 생성)란 무엇이며, LLM에 왜 사용하나요?"
KO_KEYWORDS = ["검색", "외부 지식", "프롬프트", "환각"]
OTHER_OPTION = "Fine-tuning changes the model's weights by training it further on labelled examples."
KO_OTHER_OPTION = "파인튜닝은 라벨이 있는 예시로 모델을 더 학습시켜 가중치를 바꾸는 방법입니다."


def material(answer: str, korean: bool = False, shown: list[str] | None = None) -> Material:
    if korean:
        return Material(answer, KO_REFERENCE, KO_KEYWORDS, KO_STEM, shown or [])
    return Material(answer, REFERENCE, KEYWORDS, STEM, shown or [])


ATTACKS = {
    "negated": (REFERENCE.replace("RAG retrieves", "RAG does not retrieve"), False, "negates_reference"),
    "antonym": (REFERENCE.replace("reduces", "increases"), False, "negates_reference"),
    "nonsense": (REFERENCE + " Bananas are purple on Tuesdays.", False, "unrelated_addition"),
    "word_salad": (REFERENCE + " colorless green ideas flumph", False, "unrelated_addition"),
    "ko_negated": (KO_REFERENCE.replace("방식입니다", "방식이 아닙니다"), True, "negates_reference"),
    "ko_antonym": (KO_REFERENCE.replace("줄이는", "늘리는"), True, "negates_reference"),
    "ko_nonsense": (KO_REFERENCE + " 바나나는 화요일마다 보라색으로 변합니다.", True, "unrelated_addition"),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_contradictions_are_flagged_and_never_finalised_as_correct(name):
    answer, korean, flag = ATTACKS[name]
    assert grade(material(answer, korean)).score >= 0  # graded, not an error
    result = grade(material(answer, korean))
    assert flag in result.flags
    assert result.score <= 60
    assert result.needs_review is True


@pytest.mark.parametrize(("other", "korean"), [(OTHER_OPTION, False), (KO_OTHER_OPTION, True)])
def test_a_copied_other_option_is_flagged_and_the_reference_option_is_not(other, korean):
    reference = KO_REFERENCE if korean else REFERENCE
    shown = [f"A) {reference}", f"B) {other}"]
    copied = grade(material(other, korean, shown))
    assert "copied_shown_text" in copied.flags
    assert copied.needs_review is True
    assert "copied_shown_text" not in Evidence(material(reference, korean, shown)).flags


CORRECT = {
    "paraphrase_without": (
        "RAG looks up relevant documents in an external store and adds them to the prompt so the answer is grounded; "
        "the model does not need retraining to use private data.",
        False,
    ),
    "double_negation": (
        "It is not true that RAG does not retrieve documents from an external knowledge source; it adds them to the "
        "prompt so the answer is grounded.",
        False,
    ),
    "reference": (REFERENCE, False),
    "ko_paraphrase": (
        "RAG는 외부 저장소에서 관련 문서를 검색해서 프롬프트에 넣고, LLM이 그걸 참고해 답을 생성하는 방법입니다. "
        "재학습 없이 최신 정보를 쓸 수 있고 환각도 줄어듭니다.",
        True,
    ),
}


@pytest.mark.parametrize("name", CORRECT)
def test_correct_paraphrases_and_double_negations_are_not_flagged(name):
    answer, korean = CORRECT[name]
    result = grade(material(answer, korean))
    assert not result.flags  # whether it is finalised is the fitted model's call
    assert result.score >= 80


NEGATIVE_REFERENCE = "A stack does not allow random access; only the top element can be read."


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("A stack allows random access to any element; only the top element can be read.", True),
        ("You cannot access arbitrary elements of a stack at random; only the top element can be read.", False),
        ("Random access is impossible in a stack; you can read only the top element.", False),
    ],
)
def test_a_negative_reference_agrees_with_negative_answers(answer, flagged):
    evidence = Evidence(Material(answer, NEGATIVE_REFERENCE, ["top"], "Does a stack allow random access?"))
    assert ("negates_reference" in evidence.flags) is flagged


def test_the_measures_are_floats_for_the_model():
    evidence = Evidence(material(ATTACKS["nonsense"][0]))
    assert evidence.unsupported_share > 0
    negated = Evidence(material(ATTACKS["negated"][0]))
    assert 0 < negated.negation_mismatch <= 1
    assert Evidence(material(ATTACKS["antonym"][0])).opposites_swapped >= 1


def test_tool6_never_finalises_each_kind_as_correct():
    import io
    from contextlib import redirect_stdout

    from bench.grading_agreement import Grader, offline_provider

    with offline_provider(), redirect_stdout(io.StringIO()):
        grader = Grader()
        for language, reference, stem, keywords, other in (
            ("en", REFERENCE, STEM, KEYWORDS, OTHER_OPTION),
            ("ko", KO_REFERENCE, KO_STEM, KO_KEYWORDS, KO_OTHER_OPTION),
        ):
            key = grader.question(f"contradiction-{language}", stem, reference, keywords, choices=[reference, other])
            answers = [answer for answer, korean, _ in ATTACKS.values() if korean == (language == "ko")] + [other]
            for answer in answers:
                graded = grader.grade(key, answer, keywords)
                assert not (graded["is_correct"] and not graded["needs_review"]), answer


KO_NEGATIVE_REFERENCE = "스택은 임의 접근을 허용하지 않으며 맨 위 원소만 읽을 수 있습니다."


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("스택은 임의 접근을 허용하므로 어떤 원소든 바로 읽을 수 있습니다.", True),
        ("스택은 임의 접근을 허용하지 않는 것이 아닙니다. 맨 위 원소만 읽을 수 있습니다.", True),  # not "not allowed"
        ("스택에서는 임의 접근이 불가능하고 맨 위 원소만 읽을 수 있습니다.", False),
        ("스택은 아무 위치나 바로 접근할 수 없고, 맨 위 원소만 읽습니다.", False),
    ],
)
def test_a_korean_negative_reference_agrees_with_negative_answers(answer, flagged):
    evidence = Evidence(Material(answer, KO_NEGATIVE_REFERENCE, ["맨 위"], "스택은 임의 접근을 허용하나요?"))
    assert ("negates_reference" in evidence.flags) is flagged


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("TCP는 연결 지향 프로토콜이 아니며, 데이터 전송 전에 연결을 설정하지 않습니다.", True),
        ("TCP는 비연결 프로토콜로, 데이터 전송 전에 연결을 설정합니다.", True),  # a negating prefix
        ("TCP는 연결을 설정하지 않고는 데이터를 보내지 않는 연결 지향 프로토콜입니다.", False),  # double negation
    ],
)
def test_korean_negations_by_clause_prefix_and_double_negation(answer, flagged):
    reference = "TCP는 연결 지향 프로토콜로, 데이터 전송 전에 연결을 설정합니다."
    evidence = Evidence(Material(answer, reference, ["연결 지향"], "TCP의 특징은?"))
    assert ("negates_reference" in evidence.flags) is flagged


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("UDP is not connectionless: it sets up a connection before it sends datagrams.", True),
        ("UDP does not set up a connection; it just sends datagrams.", False),
        ("UDP never establishes a connection before sending datagrams, so it is connectionless.", False),
    ],
)
def test_english_negations_of_a_reference_that_says_without(answer, flagged):
    reference = "UDP is connectionless: it sends datagrams without setting up a connection first."
    evidence = Evidence(Material(answer, reference, ["connectionless"], "Is UDP connection-oriented?"))
    assert ("negates_reference" in evidence.flags) is flagged


def test_word_salad_glued_to_the_last_sentence_is_flagged():
    result = grade(material(REFERENCE.rstrip(".") + " colorless purple ideas flumph furiously"))
    assert "unrelated_addition" in result.flags


def test_an_on_topic_example_is_not_an_addition():
    answer = REFERENCE + " For example, a support bot can answer from the company's own manuals this way."
    assert not Evidence(material(answer)).flags


# The generated and hand-written cases (bench/contradiction_cases.py). One known miss: "is not
# stateful", whose stem "state" is too common a word to count as a key term.
KNOWN_MISSES = {"en-08-negated"}


def test_no_constructed_contradiction_is_finalised_as_correct():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "data" / "grading_cases" / "contradictions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert {row["language"] for row in rows} == {"en", "ko"}
    finalised = []
    for row in rows:
        shown = [row["reference_answer"], row["shown_option"]] if row["shown_option"] else []
        result = grade(Material(row["answer"], row["reference_answer"], row["keywords"], row["question"], shown))
        if result.score >= 80 and not result.needs_review:
            finalised.append(row["id"])
    assert set(finalised) <= KNOWN_MISSES


def test_with_keywords_alone_as_the_reference_no_sentence_counts_as_off_the_point():
    """Without a reference text there is nothing to be off: an elaborate answer keeps its points."""
    answer = (
        "RAG (retrieval-augmented generation) first runs retrieval over an index to find relevant passages, "
        "then conditions the generation step on them, so the model grounds its answer in sources."
    )
    result = grade(Material(answer=answer, reference="", keywords=["RAG", "retrieval", "generation"]))
    assert "unrelated_addition" not in result.flags
    assert result.score >= 80
