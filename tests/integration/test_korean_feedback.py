"""Tool 6's fixed phrases in the question's language: a Korean question gets its feedback line,
the note when grading was unavailable and its study checks in Korean; an English one in English."""

import inspect
import re

import pytest

from slea.contracts.llm import Explanation, ShortAnswerGrade
from slea.grading.evidence import Evidence, Material
from slea.grading.offline import grade
from slea.language import grading_phrases
from slea.language.detect import language_of
from slea.language.grading_phrases import flags_in_words
from slea.language.scoring_phrases import PHRASES, placeholders
from slea.llm.offline import OfflineProvider
from slea.llm.provider import LLMError

TOOL = "score_and_explain"
BASE = {"session_id": "sess_ko", "user_id": "user_ko", "question_id": "q_ko"}
KOREAN_REFERENCE = "검색 증강 생성(RAG)은 외부 문서를 검색해 그 내용을 근거로 답변을 생성하는 방식이다."
KOREAN_CHOICES = ["A) 검색 후 생성", "B) 미세 조정", "C) 양자화", "D) 증류"]


def korean_short_answer(runtime, answer="외부 문서를 검색해서 답을 만든다"):
    event = {**BASE, "question_type": "short_answer", "user_answer": answer, "difficulty": 5}
    return runtime.invoke(TOOL, {**event, "correct_keywords": ["검색", "생성"], "reference_answer": KOREAN_REFERENCE})


def fixed_grade(monkeypatch, score):
    grade = ShortAnswerGrade(score=score, confidence=0.9, final=True)
    monkeypatch.setattr(OfflineProvider, "grade_short_answer", lambda self, item: grade)


@pytest.mark.parametrize(("score", "key"), [(75, "partial"), (40, "constructive")])
def test_a_korean_short_answer_gets_korean_feedback(runtime, monkeypatch, score, key):
    fixed_grade(monkeypatch, score)
    assert korean_short_answer(runtime)["feedback"] == PHRASES["ko"][key]


def test_a_wrong_choice_of_a_korean_question_gets_korean_feedback(runtime):
    event = {**BASE, "question_type": "multiple_choice", "user_answer": "B", "correct_answer": "A"}
    result = runtime.invoke(TOOL, {**event, "choices": KOREAN_CHOICES})
    assert result["feedback"] == PHRASES["ko"]["constructive"]
    assert "Not there yet" not in result["feedback"]


def test_grading_unavailable_is_told_in_korean(runtime, monkeypatch):
    def fail(self, item):
        raise LLMError("gemini timeout")

    monkeypatch.setattr(OfflineProvider, "grade_short_answer", fail)
    result = korean_short_answer(runtime)
    assert result["feedback"].startswith("자동 채점을 사용할 수 없어")
    assert result["grader_reasoning"].startswith("자동 채점을 사용할 수 없어")


def test_study_tips_that_complete_a_short_explanation_are_korean(runtime, monkeypatch):
    short = Explanation(explanation="짧은 해설.", reference_links=[])
    monkeypatch.setattr(OfflineProvider, "explain", lambda self, item: short)
    event = {**BASE, "question_type": "multiple_choice", "user_answer": "A", "correct_answer": "A"}
    result = runtime.invoke(TOOL, {**event, "choices": KOREAN_CHOICES})
    assert len(result["explanation"]) >= 500
    assert "보세요" in result["explanation"]  # the padding's study tips, in Korean
    assert not re.search(r"\b(the|and|you|your|this|of)\b", result["explanation"], re.IGNORECASE)


def test_an_english_question_keeps_english_phrases(runtime, monkeypatch):
    fixed_grade(monkeypatch, 75)
    event = {**BASE, "question_type": "short_answer", "user_answer": "retrieval then generation", "difficulty": 5}
    result = runtime.invoke(TOOL, {**event, "correct_keywords": ["retrieval"], "reference_answer": "RAG retrieves."})
    assert result["feedback"] == PHRASES["en"]["partial"]


def test_the_catalogue_has_every_phrase_in_both_languages_with_the_same_placeholders():
    assert PHRASES["en"].keys() == PHRASES["ko"].keys()
    for key, text in PHRASES["en"].items():
        assert placeholders(text) == placeholders(PHRASES["ko"][key]), key
    assert all(language_of(text) == "ko" for text in PHRASES["ko"].values())
    assert all(language_of(text) == "en" for text in PHRASES["en"].values())


def test_the_offline_graders_reasoning_is_korean_for_a_korean_question(runtime):
    reasoning = korean_short_answer(runtime)["grader_reasoning"]
    assert reasoning.startswith("루브릭 기준 핵심 개념")
    assert "key concepts" not in reasoning


def test_flags_are_put_into_korean_words():
    assert flags_in_words("ko", ["copied_question", "term_list"]) == "문제를 베낌, 용어 나열"
    assert flags_in_words("en", ["copied_question"]) == "copied question"
    copied = Material(answer=KOREAN_REFERENCE, reference=KOREAN_REFERENCE, keywords=["검색"], stem=KOREAN_REFERENCE)
    graded = grade(copied)
    assert graded.language == "ko"
    assert graded.reasoning.startswith("루브릭 기준")


def test_the_reasoning_catalogue_has_every_phrase_and_flag_in_both_languages():
    assert grading_phrases.PHRASES["en"].keys() == grading_phrases.PHRASES["ko"].keys()
    for key, text in grading_phrases.PHRASES["en"].items():
        assert placeholders(text) == placeholders(grading_phrases.PHRASES["ko"][key]), key
    flag_names = set(re.findall(r'"(\w+)": self\._', inspect.getsource(Evidence)))
    assert len(flag_names) >= 10
    assert flag_names <= grading_phrases.FLAG_WORDS["ko"].keys()
