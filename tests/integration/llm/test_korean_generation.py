"""Rounds for the demo seed's Korean learners, generated offline in moto: no Korean particle is
left as an alternation ("은(는)", "와(과)", "(으)로" ...) in any stem or choice, and no keyword
carries the particle its key point attached ("PyTorch가")."""

import re

import pytest

from slea.language.korean_particles import PARTICLE_SOUNDS
from tests.integration.llm.gemini_stub import model_reply

TOOL = "generate_questions"
KOREAN_LEARNERS = ("576f24fe-bc2d-4d30-aed1-51a1dd76449c", "5471ed2a-6ff2-4f3c-80fb-bd3c74ea9b7f")
UNRESOLVED = re.compile(
    r"\((?:은|는|이|가|을|를|와|과|으|아|야)\)|(?:은|는|이|가|을|를|와|과)/(?:은|는|이|가|을|를|와|과)"
)
LATIN_WITH_PARTICLE = re.compile(r"[A-Za-z0-9][\uac00-\ud7a3]+$")


def korean_round(runtime, user_id, difficulty, category):
    profile = runtime.invoke("get_user_profile", {"user_id": user_id})
    assert profile["language"] == "ko"
    templates = runtime.invoke(
        "search_question_templates",
        {"interests": profile["interests"], "difficulty": difficulty, "category": category},
    )
    keywords = runtime.invoke("get_difficulty_keywords", {"difficulty": difficulty, "category": category})
    event = {
        "profile": profile,
        "templates": templates,
        "keywords": keywords,
        "session_id": f"sess_{user_id[:8]}",
        "round": 1,
        "difficulty": difficulty,
        "category": category,
        "count": 20,
    }
    return runtime.invoke(TOOL, event)["questions"]


@pytest.mark.parametrize("user_id", KOREAN_LEARNERS)
@pytest.mark.parametrize("category", ["technical", "business", "general"])
@pytest.mark.parametrize("difficulty", [1, 4, 7, 9])
def test_no_unresolved_particle_in_a_korean_learners_round(seeded, user_id, category, difficulty):
    questions = korean_round(seeded, user_id, difficulty, category)
    assert len(questions) == 20
    for question in questions:
        assert question["language"] == "ko"
        for text in [question["stem"], *question["choices"]]:
            assert not UNRESOLVED.search(text), text


@pytest.mark.parametrize("difficulty", range(1, 11))
def test_keywords_of_korean_items_carry_no_particle(seeded, difficulty):
    questions = korean_round(seeded, KOREAN_LEARNERS[0], difficulty, "technical")
    keywords = [keyword for q in questions if q["type"] == "short_answer" for keyword in q["correct_keywords"]]
    assert keywords
    for keyword in keywords:
        tail = LATIN_WITH_PARTICLE.search(keyword)
        assert not (tail and tail.group(0)[1:] in PARTICLE_SOUNDS), keyword


KOREAN_MODEL_DRAFTS = {
    "questions": [
        {
            "type": "multiple_choice",
            "stem": "PyTorch은(는) 무엇이며 GPU와(과) 어떻게 쓰이는가?",
            "choices": ["A) 모델을(를) 학습하는 프레임워크", "B) 데이터베이스", "C) 운영체제", "D) 웹 서버"],
            "correct_answer": "A",
            "explanation": "PyTorch은(는) 딥러닝 프레임워크이다.",
            "difficulty": 7,
            "categories": ["technical"],
            "language": "ko",
        },
        {
            "type": "short_answer",
            "stem": "검색 증강 생성(RAG)(이)란 무엇이며 SQL(으)로 무엇을 조회하는가?",
            "correct_keywords": ["PyTorch가", "검색을", "전문가"],
            "reference_answer": "RAG은(는) 외부 문서를 검색해(으)로 답을 보강한다. 검색이 핵심이다.",
            "explanation": "검색와(과) 생성",
            "difficulty": 7,
            "categories": ["technical"],
            "language": "ko",
        },
    ]
}


def test_a_models_korean_drafts_are_resolved_and_their_keywords_bare(gemini, seeded, round_input):
    gemini.script(model_reply(KOREAN_MODEL_DRAFTS))
    questions = seeded.invoke(TOOL, round_input(count=2, language="ko"))["questions"]
    multiple_choice, short_answer = questions
    assert multiple_choice["stem"] == "PyTorch는 무엇이며 GPU와 어떻게 쓰이는가?"
    assert "모델을 학습하는 프레임워크" in [choice.split(") ", 1)[1] for choice in multiple_choice["choices"]]
    assert multiple_choice["explanation"] == "PyTorch는 딥러닝 프레임워크이다."
    assert short_answer["stem"] == "검색 증강 생성(RAG)이란 무엇이며 SQL로 무엇을 조회하는가?"
    assert short_answer["correct_keywords"] == ["PyTorch", "검색", "전문가"]
    assert short_answer["reference_answer"].startswith("RAG는 ")
    assert short_answer["explanation"] == "검색과 생성"
