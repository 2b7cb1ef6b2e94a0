"""Rounds for the demo seed's Korean learners, generated offline in moto: no Korean particle is
left as an alternation ("은(는)", "와(과)", "(으)로" ...) in any stem or choice, and no keyword
carries the particle its key point attached ("PyTorch가")."""

import re

import pytest

from slea.text.korean_particles import PARTICLE_SOUNDS

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
