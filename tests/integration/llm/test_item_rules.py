"""Tool 4's item-writing rules and its check of an item against its source concept, on the offline
provider: a key the record contradicts, a second right answer, cues, the learner's language."""

import pytest

from slea.authoring.item_rules import (
    DISTRACTOR_TRUE_OF_SOURCE,
    KEY_IS_LONGEST,
    KEY_NOT_FROM_SOURCE,
    KEY_TERM_NOT_IN_REFERENCE,
    ONLY_KEY_SHARES_STEM_WORDS,
    STATEMENT_CONTRADICTS_SOURCE,
    UNVERIFIABLE,
    cue_problems,
    grounding_problems,
    key_term_problems,
)
from slea.contracts.keywords import Concept
from tests.integration.llm.test_validate_question_quality import DEFINITIONS, GOOD, RAG, TOOL

ENGLISH_PASS = "The question is of high quality and can be saved as it is."
LORA = {
    "name": "LoRA",
    "acronym": "",
    "definition": "Fine-tuning that trains small low-rank matrices added to frozen model weights",
    "key_points": ["Freezes the base model", "Trains far fewer parameters", "Adapters can be swapped per task"],
}


def test_the_capital_of_france_keyed_berlin_is_never_passed_offline(runtime):
    result = runtime.invoke(
        TOOL,
        {
            "stem": "What is the capital of France?",
            "question_type": "multiple_choice",
            "choices": ["A) Paris", "B) Berlin", "C) Madrid", "D) Rome"],
            "correct_answer": "B",
        },
    )
    assert result["recommendation"] != "pass"
    assert UNVERIFIABLE in result["issues"]


def test_a_key_that_contradicts_its_source_is_rejected(runtime):
    result = runtime.invoke(TOOL, {**GOOD, "correct_answer": "A"})
    assert KEY_NOT_FROM_SOURCE[1] in result["issues"]
    assert "Option B is also true of the source concept: two right answers" in result["issues"]
    assert result["recommendation"] == "reject"


def test_a_distractor_that_is_another_true_property_is_two_right_answers(runtime):
    choices = [*DEFINITIONS[:3], f"D) {RAG['key_points'][1]}"]
    result = runtime.invoke(TOOL, {**GOOD, "choices": choices})
    assert DISTRACTOR_TRUE_OF_SOURCE[1].format(label="D") in result["issues"]
    assert result["recommendation"] == "reject"


@pytest.mark.parametrize(
    ("stem", "key", "contradicts"),
    [
        (f"True or False: RAG can be described as follows. {RAG['definition']}", "True", False),
        (f"True or False: RAG can be described as follows. {RAG['definition']}", "False", True),
        (f"True or False: RAG can be described as follows. {LORA['definition']}", "False", False),
        (f"True or False: RAG can be described as follows. {LORA['definition']}", "True", True),
        (f'참/거짓: "{RAG["key_points"][0]}"은(는) RAG에 해당한다.', "참", False),
        (f'참/거짓: "{RAG["key_points"][0]}"은(는) RAG에 해당한다.', "거짓", True),
    ],
)
def test_true_false_keys_are_checked_against_the_source(runtime, stem, key, contradicts):
    result = runtime.invoke(TOOL, {"stem": stem, "question_type": "true_false", "correct_answer": key, "source": RAG})
    assert (STATEMENT_CONTRADICTS_SOURCE[1] in result["issues"]) is contradicts
    assert (result["recommendation"] == "reject") is contradicts


def test_short_answer_keywords_must_be_terms_of_the_source(runtime):
    event = {"stem": "Explain RAG and its key aspects.", "question_type": "short_answer", "source": RAG}
    good = runtime.invoke(TOOL, {**event, "correct_keywords": ["index", "retrieved", "retraining"]})
    bad = runtime.invoke(TOOL, {**event, "correct_keywords": ["index", "backpropagation"]})
    assert good["recommendation"] == "pass"
    assert "Keyword 'backpropagation' is not a term of the source concept" in bad["issues"]


def test_an_acronym_the_source_does_not_define_is_reported():
    invented = Concept.model_validate(
        {**LORA, "name": "Quantization", "acronym": "QNT", "definition": "Lower precision"}
    )
    problems = grounding_problems("short_answer", "Explain Quantization (QNT).", [], None, [], invented)
    assert [issue for _, issue in problems] == ["Acronym 'QNT' is not defined by the source concept"]


def test_a_similar_name_is_not_the_same_concept():
    # "QLoRA" is a sibling of "LoRA", not a second right answer; matching is exact for names.
    source = Concept.model_validate(LORA)
    choices = ["A) LoRA", "B) QLoRA", "C) Prefix tuning", "D) Distillation"]
    assert grounding_problems("multiple_choice", "Which technique ...?", choices, "A", [], source) == []


def test_the_only_option_sharing_stem_words_is_a_cue():
    stem = "Which of the following best describes retrieval-augmented generation?"
    assert cue_problems(stem, DEFINITIONS, "B") == [ONLY_KEY_SHARES_STEM_WORDS]
    assert cue_problems("Which of the following best describes RAG?", DEFINITIONS, "B") == []


def test_the_key_being_by_far_the_longest_option_is_a_cue():
    choices = ["A) Caching", "B) Sharding", "C) Answering with documents retrieved for each question", "D) Paging"]
    assert KEY_IS_LONGEST in cue_problems("Which technique fits?", choices, "C")
    assert KEY_IS_LONGEST not in cue_problems("Which technique fits?", choices, "A")


def test_cues_lower_the_rule_score_through_the_handler(runtime):
    stem = "Which of the following best describes retrieval-augmented generation?"
    result = runtime.invoke(TOOL, {**GOOD, "stem": stem})
    assert ONLY_KEY_SHARES_STEM_WORDS[1] in result["issues"]
    assert result["rule_score"] == pytest.approx(1 - ONLY_KEY_SHARES_STEM_WORDS[0])


@pytest.mark.parametrize(
    ("language", "changes", "mixed"),
    [
        ("en", {}, False),
        ("ko", {}, True),  # an English item for a Korean learner
        ("en", {"stem": "다음 중 RAG에 대한 설명으로 가장 적절한 것은?"}, True),  # Korean stem, English choices
        (
            "ko",
            {
                "stem": "다음 중 RAG에 대한 설명으로 가장 적절한 것은?",
                "choices": [
                    "A) 가중치 미세 조정",
                    "B) 검색한 문서를 근거로 답변 생성",
                    "C) 정밀도 축소",
                    "D) 프롬프트 작성",
                ],
                "source": None,
            },
            False,
        ),
    ],
)
def test_items_must_be_in_the_learners_language(runtime, language, changes, mixed):
    result = runtime.invoke(TOOL, {**GOOD, **changes, "language": language})
    wrong_language = f"Not written in the learner's language ({language}); no mixed-language items"
    assert (wrong_language in result["issues"]) is mixed


def test_feedback_is_in_the_learners_language_and_korean_by_default(runtime):
    assert runtime.invoke(TOOL, {**GOOD, "language": "en"})["feedback"] == ENGLISH_PASS
    assert runtime.invoke(TOOL, GOOD)["feedback"] == "질문이 우수한 품질입니다. 즉시 저장할 수 있습니다."


def test_a_batch_carries_one_source_and_language_per_question(runtime):
    results = runtime.invoke(
        TOOL,
        {
            "batch": True,
            "stem": [GOOD["stem"], GOOD["stem"] + " (second)"],
            "question_type": ["multiple_choice"] * 2,
            "choices": [DEFINITIONS, DEFINITIONS],
            "correct_answer": ["B", "A"],
            "source": [RAG, None],
            "language": ["en", None],
        },
    )
    assert (results[0]["recommendation"], results[0]["feedback"]) == ("pass", ENGLISH_PASS)
    assert UNVERIFIABLE in results[1]["issues"]
    assert results[1]["recommendation"] == "revise"


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({**GOOD, "source": {"name": "RAG"}}, "source"),
        ({**GOOD, "language": "fr"}, "language"),
        ({"batch": True, "stem": ["Q?"], "question_type": ["short_answer"], "source": [None, None]}, "source"),
    ],
)
def test_bad_source_or_language_raises_naming_the_field(runtime, event, field):
    with pytest.raises((ValueError, TypeError), match=field):
        runtime.invoke(TOOL, event)


def test_a_short_korean_key_point_is_a_fact_the_statement_can_state():
    perplexity = Concept.model_validate(
        {
            "name": "퍼플렉서티(Perplexity)",
            "acronym": "",
            "definition": "토큰당 평균 음의 로그 우도에 지수를 취한 언어 모델 평가 지표.",
            "key_points": ["교차 엔트로피의 지수", "낮을수록 좋음"],
        }
    )
    stem = '참/거짓: "낮을수록 좋음"은(는) 퍼플렉서티(Perplexity)에 해당한다.'
    assert grounding_problems("true_false", stem, ["참", "거짓"], "참", [], perplexity) == []
    assert grounding_problems("true_false", stem, ["참", "거짓"], "거짓", [], perplexity) == [
        STATEMENT_CONTRADICTS_SOURCE
    ]


def test_a_key_sharing_more_stem_words_than_any_distractor_is_cued_by_the_generator():
    from slea.authoring.offline_generator import cued

    stem = "A team observes these points in its system: no connection setup; datagrams may be lost."
    key, distractors = "User Datagram Protocol", ["Domain Name System", "Transmission Control Protocol", "ARP"]
    assert cued(stem, key, distractors, generic=frozenset({"system", "team", "observ", "point"}))
    assert not cued(stem, "Network Address Translation", distractors, generic=frozenset({"system"}))


def test_true_false_labels_do_not_count_against_the_language():
    from slea.authoring.item_rules import language_problems

    stem = '참/거짓: "교차 엔트로피의 지수"는 퍼플렉서티에 해당한다.'
    assert language_problems("ko", stem, ["True", "False"], []) == []
    assert language_problems("ko", stem, ["참", "거짓"], []) == []
    assert language_problems("ko", "True or False: perplexity is lower for better models.", ["참", "거짓"], [])


# A short answer's key terms against its own model answer: any writer's (a model's included).
PROMPT_TEMPLATE_ANSWER = (
    "A prompt template is a reusable prompt with fixed instructions and named slots that are filled in "
    "for each request, so that every call is worded the same way."
)
RAG_ANSWER = "RAG retrieves passages from an index at query time and grounds the answer in the retrieved text."
KOREAN_ANSWER = "PyTorch는 텐서 연산과 자동 미분을 제공하는 딥러닝 프레임워크이며 동적 계산 그래프를 사용합니다."


def unstated(keyword):
    return KEY_TERM_NOT_IN_REFERENCE[1].format(keyword=keyword)


@pytest.mark.parametrize(
    ("keywords", "reference", "expected"),
    [
        # The reported item: a model answer about prompt templates keyed on retrieval.
        (["retrieval", "documents"], PROMPT_TEMPLATE_ANSWER, ["retrieval", "documents"]),
        (["slots", "instructions", "retrieval"], PROMPT_TEMPLATE_ANSWER, ["retrieval"]),
        (["slots", "instructions", "reusable"], PROMPT_TEMPLATE_ANSWER, []),
        # As the grader finds a key term: an inflection, an acronym for its expansion and back.
        (["retrieve", "passage", "RAG"], RAG_ANSWER, []),
        (["Retrieval-Augmented Generation"], "Retrieval-augmented generation (RAG) answers from documents.", []),
        # Korean: the bare term, and one written with its particle, are stated by "PyTorch는".
        (["PyTorch", "자동 미분", "그래프"], KOREAN_ANSWER, []),
        (["PyTorch가", "텐서"], KOREAN_ANSWER, []),
        (["검색", "문서", "텐서"], KOREAN_ANSWER, ["검색", "문서"]),
    ],
)
def test_a_short_answers_key_terms_must_be_stated_by_its_reference(keywords, reference, expected):
    problems = key_term_problems("short_answer", keywords, reference)
    assert [issue for _, issue in problems] == [unstated(keyword) for keyword in expected]
    assert all(deduction == KEY_TERM_NOT_IN_REFERENCE[0] for deduction, _ in problems)


def test_the_key_term_rule_needs_a_reference_and_a_short_answer():
    # Without a model answer the grader scores by the key terms alone: nothing to disagree with.
    assert key_term_problems("short_answer", ["retrieval"], None) == []
    assert key_term_problems("short_answer", ["retrieval"], "  ") == []
    assert key_term_problems("multiple_choice", ["retrieval"], PROMPT_TEMPLATE_ANSWER) == []


SHORT_ANSWER = {"stem": "Explain what a prompt template is and why it is used.", "question_type": "short_answer"}


def keyed(keywords):
    return {**SHORT_ANSWER, "correct_keywords": keywords, "reference_answer": PROMPT_TEMPLATE_ANSWER}


def test_tool_4_flags_key_terms_its_reference_does_not_state(runtime):
    bad = runtime.invoke(TOOL, keyed(["retrieval", "documents"]))
    assert bad["issues"][:2] == [unstated("retrieval"), unstated("documents")]
    assert bad["rule_score"] == pytest.approx(1 - 2 * KEY_TERM_NOT_IN_REFERENCE[0])
    assert bad["recommendation"] == "reject"
    assert set(bad) == {"is_valid", "score", "rule_score", "final_score", "feedback", "issues", "recommendation"}
    one = runtime.invoke(TOOL, keyed(["slots", "retrieval"]))
    assert one["issues"][0] == unstated("retrieval")
    assert one["recommendation"] != "pass"
    good = runtime.invoke(TOOL, keyed(["slots", "instructions"]))
    assert not any(issue.startswith("Key term") for issue in good["issues"])
    assert good["rule_score"] == 1.0


def test_tool_4_checks_a_korean_short_answers_key_terms(runtime):
    event = {"stem": "PyTorch가 무엇인지 설명하시오.", "question_type": "short_answer", "language": "ko"}
    bad = runtime.invoke(TOOL, {**event, "correct_keywords": ["검색", "문서"], "reference_answer": KOREAN_ANSWER})
    good = runtime.invoke(TOOL, {**event, "correct_keywords": ["PyTorch", "텐서"], "reference_answer": KOREAN_ANSWER})
    assert bad["issues"][:2] == [unstated("검색"), unstated("문서")]
    assert bad["recommendation"] == "reject"
    assert good["rule_score"] == 1.0


def test_a_batch_takes_each_questions_reference_answer(runtime):
    results = runtime.invoke(
        TOOL,
        {
            "stem": [SHORT_ANSWER["stem"], "Explain RAG."],
            "question_type": ["short_answer", "short_answer"],
            "correct_keywords": [["retrieval", "documents"], ["retrieve", "passage"]],
            "reference_answer": [PROMPT_TEMPLATE_ANSWER, RAG_ANSWER],
            "batch": True,
        },
    )
    assert results[0]["recommendation"] == "reject"
    assert unstated("retrieval") in results[0]["issues"]
    assert not any(issue.startswith("Key term") for issue in results[1]["issues"])
