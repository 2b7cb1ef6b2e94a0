"""The generation step on the offline provider: exactly `count` varied questions that all pass
Tool 4's rules, deterministic, in one LLM call."""

import re

import pytest

from slea.constants import DEFAULT_KEYWORDS

TOOL = "generate_questions"
HANGUL = re.compile("[\uac00-\ud7a3]")


def tool4_batch(questions, existing):
    return {
        "stem": [q["stem"] for q in questions],
        "question_type": [q["type"] for q in questions],
        "choices": [q["choices"] or None for q in questions],
        "correct_answer": [
            ", ".join(q["correct_keywords"]) if q["type"] == "short_answer" else q["correct_answer"] for q in questions
        ],
        "batch": True,
        "existing_stems": existing,
    }


def assert_round_is_good(runtime, event, questions):
    assert len({q["stem"].casefold() for q in questions}) == len(questions)
    verdicts = runtime.invoke(
        "validate_question_quality", tool4_batch(questions, [t["stem"] for t in event["templates"]])
    )
    for question, verdict in zip(questions, verdicts, strict=True):
        assert verdict["rule_score"] == 1.0, (question, verdict)
        assert verdict["issues"] == [], (question, verdict)
        assert verdict["recommendation"] == "pass", (question, verdict)
    for question in questions:
        assert question["difficulty"] == event["difficulty"]
        assert question["categories"][0] == event["category"]
        if question["type"] == "short_answer":
            assert 1 <= len(question["correct_keywords"]) <= 5
        assert question["explanation"] or question["type"] == "short_answer"


@pytest.mark.parametrize("count", [5, 10, 20])
def test_exactly_count_distinct_questions_all_passing_the_rules(seeded, round_input, count):
    event = round_input(count=count)
    result = seeded.invoke(TOOL, event)
    assert len(result["questions"]) == count
    assert_round_is_good(seeded, event, result["questions"])


@pytest.mark.parametrize("category", ["technical", "business", "general"])
@pytest.mark.parametrize("difficulty", range(1, 11))
def test_every_demo_record_supports_a_round_of_twenty(seeded, round_input, difficulty, category):
    event = round_input(difficulty=difficulty, category=category, count=20)
    questions = seeded.invoke(TOOL, event)["questions"]
    assert len(questions) == 20
    assert_round_is_good(seeded, event, questions)


def test_the_spec_default_keywords_still_give_twenty(seeded, round_input):
    event = round_input(count=20, templates=[])
    event["keywords"] = {**DEFAULT_KEYWORDS, "difficulty": 7, "category": "technical"}
    questions = seeded.invoke(TOOL, event)["questions"]
    assert len(questions) == 20
    assert_round_is_good(seeded, event, questions)


def test_the_default_mix_covers_every_type(seeded, round_input):
    types = [q["type"] for q in seeded.invoke(TOOL, round_input(count=5))["questions"]]
    assert set(types) == {"multiple_choice", "true_false", "short_answer"}


def test_requested_types_are_followed(seeded, round_input):
    questions = seeded.invoke(TOOL, round_input(count=6, question_types=["true_false", "short_answer"]))["questions"]
    assert [q["type"] for q in questions] == ["true_false", "short_answer"] * 3


def test_deterministic_for_the_same_round(seeded, round_input):
    first = seeded.invoke(TOOL, round_input(count=8))
    second = seeded.invoke(TOOL, round_input(count=8))
    assert first["questions"] == second["questions"]
    assert first["round_id"].startswith("sess_test_1_")


def test_regeneration_avoids_used_stems_and_varies(seeded, round_input):
    first = seeded.invoke(TOOL, round_input(count=5))["questions"]
    used = [q["stem"] for q in first]
    again = seeded.invoke(
        TOOL, round_input(count=3, attempt=1, avoid_stems=used, feedback=["Correct answer not found in choices"])
    )["questions"]
    assert len(again) == 3
    assert not {q["stem"] for q in again} & set(used)


def test_one_llm_call_per_round(seeded, round_input):
    seeded.invoke(TOOL, round_input(count=20))
    assert seeded.metric_total("LLMCalls", Operation="generate", Provider="offline") == 1


def test_language_follows_the_few_shot_templates(seeded, round_input):
    event = round_input(count=4)
    korean_templates = sum(bool(HANGUL.search(t["stem"])) for t in event["templates"]) * 2 > len(event["templates"])
    korean_stems = [bool(HANGUL.search(q["stem"])) for q in seeded.invoke(TOOL, event)["questions"]]
    assert all(korean_stems) if korean_templates else not any(korean_stems)
    english = seeded.invoke(TOOL, round_input(count=4, templates=[]))["questions"]
    assert not any(HANGUL.search(q["stem"]) for q in english)


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"count": 0}, "count"), ({"count": 21}, "count"), ({"session_id": ""}, "session_id"), ({"round": 3}, "round")],
)
def test_invalid_input_names_the_field(seeded, round_input, changes, field):
    with pytest.raises(ValueError, match=field):
        seeded.invoke(TOOL, round_input(**changes))


def test_missing_keywords_names_the_field(seeded, round_input):
    event = round_input()
    del event["keywords"]
    with pytest.raises(ValueError, match="keywords"):
        seeded.invoke(TOOL, event)
