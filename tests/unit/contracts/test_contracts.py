"""Contracts: every input rule raises ValueError/TypeError naming its field; outputs are the spec's."""

import random
from collections import Counter

import pytest

from slea.contracts.answers import choice_index, choice_text, shuffle_choices
from slea.contracts.common import parse_input
from slea.contracts.error_response import ErrorResponse
from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.contracts.pipeline import GeneratedQuestionOutput, PipelineOutput
from slea.contracts.profile import GetUserProfileInput, UserProfile
from slea.contracts.questions import (
    SaveQuestionInput,
    SaveQuestionQueued,
    SaveQuestionSaved,
    SaveQuestionsBatchResult,
    SaveQuestionWithdrawn,
)
from slea.contracts.scoring import ScoreAnswerInput, ScoreAnswerOutput
from slea.contracts.templates import SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionBatchInput, ValidateQuestionInput, ValidationResult

UUID = "550e8400-e29b-41d4-a716-446655440000"
SEARCH = {"interests": ["LLM"], "difficulty": 7, "category": "technical"}


# ---------------------------------------------------------------- Tool 1
@pytest.mark.parametrize(
    ("event", "error", "text"),
    [
        ({"user_id": 12345}, TypeError, "user_id"),
        ({"user_id": None}, TypeError, "user_id"),
        ({"user_id": "not-a-uuid"}, ValueError, "user_id must be valid UUID format"),
        ({"user_id": "550e8400-e29b-41d4-a716-44665544000Z"}, ValueError, "user_id must be valid UUID format"),
        ({"user_id": ""}, ValueError, "user_id cannot be empty"),
        ({}, ValueError, "user_id"),
    ],
)
def test_user_id_rules(event, error, text):
    with pytest.raises(error, match=text):
        parse_input(GetUserProfileInput, event)


def test_user_id_accepts_any_case_and_surrounding_space():
    assert parse_input(GetUserProfileInput, {"user_id": f" {UUID.upper()} "}).user_id == UUID.upper()


def test_profile_output_uses_spec_levels_not_integers():
    profile = {
        "user_id": UUID,
        "years_experience": 1,
        "job_role": "a",
        "duty": "b",
        "interests": [],
        "previous_score": 0,
    }
    assert UserProfile.model_validate({**profile, "self_level": "advanced"}).self_level == "advanced"
    with pytest.raises(ValueError, match="self_level"):
        UserProfile.model_validate({**profile, "self_level": 5})
    with pytest.raises(ValueError, match="years_experience"):
        UserProfile.model_validate({**profile, "self_level": "beginner", "years_experience": 61})


# ---------------------------------------------------------------- Tool 2 (search rules)
@pytest.mark.parametrize(
    ("changes", "error", "field"),
    [
        ({"interests": "LLM"}, TypeError, "interests"),
        ({"interests": []}, ValueError, "interests"),
        ({"interests": [f"d{i}" for i in range(11)]}, ValueError, "interests"),
        ({"interests": ["x" * 51]}, ValueError, r"interests\[0\]"),
        ({"interests": ["LLM", "   "]}, ValueError, r"interests\[1\]"),
        ({"interests": ["LLM", 7]}, TypeError, r"interests\[1\]"),
        ({"difficulty": "7"}, TypeError, "difficulty"),
        ({"difficulty": True}, TypeError, "difficulty"),
        ({"difficulty": None}, TypeError, "difficulty"),
        ({"difficulty": 0}, ValueError, "difficulty"),
        ({"difficulty": 11}, ValueError, "difficulty"),
        ({"difficulty": 11.2}, ValueError, "difficulty"),
        ({"difficulty": 0.9}, ValueError, "difficulty"),
        ({"difficulty": float("nan")}, ValueError, "difficulty"),
        ({"category": "unknown"}, ValueError, "category must be one of"),
        ({"category": 3}, TypeError, "category"),
    ],
)
def test_search_input_rules(changes, error, field):
    with pytest.raises(error, match=field):
        parse_input(SearchTemplatesInput, {**SEARCH, **changes})


def test_search_input_normalises_as_spec_003_says():
    request = parse_input(
        SearchTemplatesInput, {"interests": ["  LLM ", "x" * 50], "difficulty": 7.9, "category": " TECHNICAL "}
    )
    assert request.interests == ["LLM", "x" * 50]
    assert request.difficulty == 7
    assert request.category == "technical"
    assert parse_input(SearchTemplatesInput, {**SEARCH, "interests": [f"d{i}" for i in range(10)]})


def test_non_dict_event_is_a_type_error():
    with pytest.raises(TypeError, match="event must be a JSON object"):
        parse_input(SearchTemplatesInput, ["LLM"])


def test_error_message_counts_further_problems():
    with pytest.raises(ValueError, match=r"and 2 more problems"):
        parse_input(SearchTemplatesInput, {"interests": ["x" * 51], "difficulty": 11, "category": "nope"})


# ---------------------------------------------------------------- Tool 3
def test_keywords_input_and_cache_key():
    assert parse_input(GetKeywordsInput, {"difficulty": 7, "category": "Technical"}).cache_key() == "7_technical"
    with pytest.raises(ValueError, match="difficulty"):
        parse_input(GetKeywordsInput, {"difficulty": 11, "category": "technical"})
    with pytest.raises(TypeError, match="category"):
        parse_input(GetKeywordsInput, {"difficulty": 1, "category": ["technical"]})


def test_keyword_record_limits_are_in_the_model():
    record = {"difficulty": 3, "category": "general", "keywords": ["k"] * 21, "concepts": [], "example_questions": []}
    with pytest.raises(ValueError, match="keywords"):
        DifficultyKeywords.model_validate(record)


# ---------------------------------------------------------------- answer keys
@pytest.mark.parametrize(
    ("key", "expected"),
    [("C", 2), ("c", 2), ("C) Both", 2), ("both", 2), (" Both ", 2), ("E", None), ("Neither", 3), ("", None)],
)
def test_answer_key_matches_labelled_choices(key, expected):
    assert choice_index(key, ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"]) == expected


def test_a_letter_key_is_a_label_before_it_is_a_choice_text():
    choices = ["A) C", "B) C++", "C) Java", "D) Python"]
    assert choice_index("C", choices) == 2
    assert choice_index("C) Java", choices) == 2
    assert choice_index("Java", choices) == 2


def test_answer_key_letter_means_position_when_choices_have_no_labels():
    assert choice_index("B", ["Retrieval", "Generation", "Both", "Neither"]) == 1
    assert choice_index("E", ["Retrieval", "Generation", "Both", "Neither"]) is None


def _reshuffled(choices, key, seed=7):
    new_choices, new_key = shuffle_choices(choices, key, random.Random(seed))
    return new_choices, new_key, choice_text(new_choices[choice_index(new_key, new_choices)])


def test_shuffled_labelled_choices_are_relabelled_and_the_key_follows_its_choice():
    choices = ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"]
    for key in ("C", "c", "C) Both", "Both"):
        new_choices, new_key, keyed_text = _reshuffled(choices, key)
        assert [choice[:3] for choice in new_choices] == ["A) ", "B) ", "C) ", "D) "]
        assert sorted(map(choice_text, new_choices)) == sorted(map(choice_text, choices))
        assert new_key in "ABCD"
        assert keyed_text == "Both"


def test_shuffled_unlabelled_choices_keep_their_text_key_or_move_their_position_key():
    choices = ["Retrieval", "Generation", "Both", "Neither"]
    new_choices, new_key, keyed_text = _reshuffled(choices, "Both")
    assert (new_key, keyed_text) == ("Both", "Both")
    new_choices, new_key, keyed_text = _reshuffled(choices, "C")  # by position: the third choice
    assert keyed_text == "Both"
    assert new_key == "ABCD"[new_choices.index("Both")]


def test_a_key_naming_no_choice_is_left_for_the_validator():
    choices = ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"]
    assert shuffle_choices(choices, "E", random.Random(1)) == (choices, "E")


def test_shuffled_keys_take_every_position_evenly():
    choices = ["A) w", "B) x", "C) y", "D) z"]
    positions = Counter(shuffle_choices(choices, "A", random.Random(seed))[1] for seed in range(400))
    assert set(positions) == set("ABCD")
    assert min(positions.values()) >= 70  # 100 expected each


# ---------------------------------------------------------------- Tool 4
def test_validate_input_conditional_fields():
    assert parse_input(ValidateQuestionInput, {"stem": "What is RAG?", "question_type": "short_answer"})
    with pytest.raises(ValueError, match="choices required for multiple_choice"):
        parse_input(ValidateQuestionInput, {"stem": "Q", "question_type": "multiple_choice", "correct_answer": "A"})
    with pytest.raises(ValueError, match="correct_answer required for true_false"):
        parse_input(ValidateQuestionInput, {"stem": "Q", "question_type": "true_false"})
    with pytest.raises(ValueError, match="stem cannot be empty"):
        parse_input(ValidateQuestionInput, {"stem": "  ", "question_type": "short_answer"})
    with pytest.raises(ValueError, match="question_type"):
        parse_input(ValidateQuestionInput, {"stem": "Q", "question_type": "essay"})


def test_validate_batch_lists_must_line_up():
    batch = {"stem": ["Q1", "Q2"], "question_type": ["short_answer", "true_false"], "batch": True}
    assert len(parse_input(ValidateQuestionBatchInput, batch).entries()) == 2
    with pytest.raises(ValueError, match="question_type must have one entry per stem"):
        parse_input(ValidateQuestionBatchInput, {**batch, "question_type": ["short_answer"]})
    with pytest.raises(TypeError, match="stem"):
        parse_input(ValidateQuestionBatchInput, {**batch, "stem": "Q1"})


def test_validation_result_rejects_an_unknown_recommendation():
    with pytest.raises(ValueError, match="recommendation"):
        ValidationResult(
            is_valid=True, score=0.9, rule_score=1.0, final_score=0.9, feedback="", issues=[], recommendation="maybe"
        )


# ---------------------------------------------------------------- Tool 5 (000 validation table)
SAVE = {
    "item_type": "multiple_choice",
    "stem": "What is RAG?",
    "choices": ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"],
    "correct_key": "C",
    "round_id": "sess_123_1_2025-11-09T10:30:00Z",
}


# Invalid changes to a valid Tool 5 input, and the field each error must name (the function's own
# test, tests/integration/test_save_generated_question.py, sends them too).
INVALID_SAVES = [
    ({"item_type": "essay"}, "item_type"),
    ({"stem": ""}, "stem"),
    ({"stem": "x" * 2001}, "stem"),
    ({"choices": None}, "choices"),
    ({"choices": ["A) x", "B) y"], "correct_key": "A"}, "choices"),
    ({"choices": ["A) One", "B) Two", "C) Three"], "correct_key": "A"}, "choices"),
    ({"correct_key": "F"}, "correct_key"),
    ({"correct_key": "Z"}, "correct_key"),
    ({"item_type": "true_false", "correct_key": "Maybe"}, "correct_key"),
    ({"item_type": "true_false", "choices": ["True", "False"], "correct_key": "Yes"}, "correct_key"),
    ({"item_type": "short_answer", "correct_keywords": []}, "correct_keywords"),
    ({"categories": []}, "categories"),
    ({"difficulty": 0}, "difficulty"),
    ({"difficulty": 11}, "difficulty"),
    ({"round_id": ""}, "round_id"),
    ({"validation_score": 1.5}, "validation_score"),
]


@pytest.mark.parametrize(("changes", "field"), INVALID_SAVES)
def test_save_input_validation_table(changes, field):
    with pytest.raises(ValueError, match=field):
        parse_input(SaveQuestionInput, {**SAVE, **changes})


@pytest.mark.parametrize("question_id", ["q_001", "not-a-uuid", f" {UUID}", f"{UUID}x", "", 42])
def test_a_caller_question_id_must_be_a_uuid(question_id):
    with pytest.raises((ValueError, TypeError), match="question_id"):
        parse_input(SaveQuestionInput, {**SAVE, "question_id": question_id})


def test_a_caller_question_id_is_kept_lower_case():
    assert parse_input(SaveQuestionInput, {**SAVE, "question_id": UUID.upper()}).question_id == UUID
    assert parse_input(SaveQuestionInput, SAVE).question_id is None


def test_save_input_defaults_and_result_shapes():
    request = parse_input(SaveQuestionInput, SAVE)
    assert (request.difficulty, request.categories) == (5, ["general"])
    saved = SaveQuestionSaved(question_id="q", round_id="r", saved_at="t").model_dump()
    assert saved == {"question_id": "q", "round_id": "r", "saved_at": "t", "success": True}
    queued = SaveQuestionQueued(round_id="r", saved_at="t", error="boom").model_dump()
    assert queued == {
        "question_id": None,
        "round_id": "r",
        "saved_at": "t",
        "success": False,
        "error": "boom",
        "queued_for_retry": True,
    }
    refused = SaveQuestionWithdrawn(round_id="r", saved_at="t", error="repeats").model_dump()
    assert refused == {**queued, "error": "repeats", "queued_for_retry": False}


def test_a_batch_result_read_back_keeps_each_results_variant():
    """FinishRound reads Tool 5's batch result from the execution's JSON: a refused question must
    not read back as queued (it would be served as pending)."""
    results = [
        SaveQuestionSaved(question_id="q", round_id="r", saved_at="t"),
        SaveQuestionQueued(round_id="r", saved_at="t", error="boom"),
        SaveQuestionWithdrawn(round_id="r", saved_at="t", error="repeats"),
    ]
    batch = SaveQuestionsBatchResult(results=results, saved=1, queued_for_retry=1, withdrawn=1)
    again = SaveQuestionsBatchResult.model_validate(batch.model_dump(mode="json"))
    assert [type(result) for result in again.results] == [type(result) for result in results]
    assert SaveQuestionsBatchResult.model_validate({"results": [], "saved": 0, "queued_for_retry": 0}).withdrawn == 0


# ---------------------------------------------------------------- Tool 6
SCORE = {"session_id": "s", "user_id": "u", "question_id": "q", "question_type": "multiple_choice", "user_answer": "B"}


def test_score_input_rules():
    assert parse_input(ScoreAnswerInput, {**SCORE, "correct_answer": "B"})
    with pytest.raises(ValueError, match="correct_answer required for multiple_choice"):
        parse_input(ScoreAnswerInput, SCORE)
    with pytest.raises(ValueError, match="correct_keywords required for short_answer"):
        parse_input(ScoreAnswerInput, {**SCORE, "question_type": "short_answer"})
    with pytest.raises(TypeError, match="user_answer"):
        parse_input(ScoreAnswerInput, {**SCORE, "correct_answer": "B", "user_answer": 3})
    with pytest.raises(ValueError, match="session_id"):
        parse_input(ScoreAnswerInput, {**SCORE, "correct_answer": "B", "session_id": ""})
    with pytest.raises(ValueError, match="user_answer"):
        parse_input(ScoreAnswerInput, {**SCORE, "correct_answer": "B", "user_answer": "   "})


def test_score_output_enforces_explanation_length():
    output = {
        "attempt_id": "a",
        "session_id": "s",
        "question_id": "q",
        "user_id": "u",
        "is_correct": True,
        "score": 100,
        "graded_at": "t",
    }
    assert ScoreAnswerOutput.model_validate({**output, "explanation": "x" * 500}).feedback is None
    with pytest.raises(ValueError, match="explanation"):
        ScoreAnswerOutput.model_validate({**output, "explanation": "too short"})


# ---------------------------------------------------------------- pipeline and errors
def test_pipeline_output_aggregates_questions():
    question = GeneratedQuestionOutput(
        question_id="q1",
        stem="What is RAG?",
        type="true_false",
        choices=["True", "False"],
        correct_answer="True",
        difficulty=7,
        category="technical",
        round_id="s_1_t",
        validation_score=0.9,
        saved_at="t",
    )
    output = PipelineOutput(questions=[question], total_generated=2, total_valid=1, total_rejected=1)
    assert output.model_dump()["questions"][0]["question_id"] == "q1"


def test_error_response_has_a_utc_timestamp():
    error = ErrorResponse(error="user_id must be valid UUID format", error_code="VALIDATION_ERROR")
    assert error.timestamp.endswith("Z")
    assert error.detail is None
