"""Mode 1 on its real definition: executions of GenerateRoundStateMachine on moto's interpreter."""

import itertools
import re

import boto3
import pytest

from slea.contracts.llm import ItemScore
from slea.llm.provider_choice import get_provider

MACHINE = "GenerateRoundStateMachine"
USER = "550e8400-e29b-41d4-a716-446655440000"  # demo user: intermediate, 5 years, previous score 72
_names = itertools.count()


def prior_label(count):
    """The label a round of `count` of the default mix aims at before any answer: the demo user's
    survey prior (intermediate, 5 years, previous score 72)."""
    from slea.logic.rounds.target import from_prior, slot_types
    from slea.measurement.learner import prior_from_profile

    mean, sd = prior_from_profile("intermediate", 5, 72)
    return from_prior(mean, sd, 0.7, slot_types(None, count, 0.7, sd)).label


def run(step_functions, **changes):
    execution_input = {"user_id": USER, "session_id": "sess_round", "round": 1, "category": "technical", **changes}
    return step_functions.run(MACHINE, execution_input, name=f"test-{next(_names)}")


def saved_questions(cloud):
    """The questions saved (not a category's reference-prints record, "refprints#technical")."""
    items = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable")).scan()["Items"]
    return [item for item in items if "#" not in item["question_id"]]


def record_attempts(cloud, session_id, outcomes, difficulty, round_number=1):
    table = boto3.resource("dynamodb").Table(cloud.table_name("AttemptsTable"))
    for number, correct in enumerate(outcomes):
        table.put_item(
            Item={
                "session_id": session_id,
                "attempt_key": f"2026-11-22T10:00:{number:02d}Z#{number}",
                "round": round_number,
                "is_correct": correct,
                "difficulty": difficulty,
            }
        )


def test_round_one_happy_path(step_functions):
    execution = run(step_functions, count=5)
    assert execution.status == "SUCCEEDED", execution.cause
    output = execution.output
    assert set(output) == {
        "questions",
        "total_generated",
        "total_valid",
        "total_rejected",
        "requested",
        "delivered",
        "from_neighbours",
        "shortfall_reason",
    }
    assert (output["total_generated"], output["total_valid"], output["total_rejected"]) == (5, 5, 0)
    assert (output["requested"], output["delivered"], output["from_neighbours"], output["shortfall_reason"]) == (
        5,
        5,
        0,
        None,
    )
    assert execution.states_entered == [
        "GetUserProfile",
        "PlanRound",
        "AnythingToGenerate",
        "SearchTemplates",
        "GetKeywords",
        "Generate",
        "Validate",
        "CollectValid",
        "NeedMoreQuestions",
        "AnythingToSave",
        "SaveQuestions",
        "FinishRound",
    ]
    questions = output["questions"]
    # Before any answer the round aims at the survey's prior (intermediate 0, +0.25 for 5 years),
    # laid out MC, TF, SA, MC, MC: label 5 (the earlier label rule said 6: intermediate 5, +1 for 5 years).
    assert {q["difficulty"] for q in questions} == {prior_label(5)} == {5}
    assert all(q["round_id"].startswith("sess_round_1_") and q["question_id"] for q in questions)
    stored = {item["question_id"]: item for item in saved_questions(step_functions.runtime.cloud)}
    assert set(stored) == {q["question_id"] for q in questions}
    assert {(item["session_id"], item["round"], item["category"]) for item in stored.values()} == {
        ("sess_round", 1, "technical")
    }


def test_every_short_answer_of_a_round_is_stored_with_a_reference_answer(step_functions):
    execution = run(step_functions, count=6, question_types=["short_answer"])
    assert execution.status == "SUCCEEDED", execution.cause
    short_answers = [q for q in saved_questions(step_functions.runtime.cloud) if q["item_type"] == "short_answer"]
    assert len(short_answers) == 6
    for question in short_answers:
        reference = question["answer_schema"]["reference_answer"]
        assert len(reference.split()) >= 8  # a sentence or more, not a keyword
        assert any(
            keyword.casefold() in reference.casefold() for keyword in question["answer_schema"]["correct_keywords"]
        )


def test_round_two_adapts_to_round_one_attempts(step_functions):
    record_attempts(step_functions.runtime.cloud, "sess_up", [True] * 5, difficulty=6)
    record_attempts(step_functions.runtime.cloud, "sess_down", [False, False, False, True, False], difficulty=6)
    up = run(step_functions, session_id="sess_up", round=2, count=3)
    down = run(step_functions, session_id="sess_down", round=2, count=3)
    assert {q["difficulty"] for q in up.output["questions"]} == {8}  # 100% correct: +2
    assert {q["difficulty"] for q in down.output["questions"]} == {5}  # 20% correct: -1


def test_round_two_without_attempts_plans_like_round_one(step_functions):
    execution = run(step_functions, session_id="sess_new", round=2, count=2)
    assert {q["difficulty"] for q in execution.output["questions"]} == {prior_label(2)} == {5}
    assert all(q["round_id"].startswith("sess_new_2_") for q in execution.output["questions"])


def test_difficulty_override(step_functions):
    execution = run(step_functions, difficulty=2, count=2, category="general")
    assert {q["difficulty"] for q in execution.output["questions"]} == {2}


def test_templates_table_failing_still_succeeds(step_functions, faults):
    with faults.dynamodb("search_question_templates", "Query", error="ResourceNotFoundException"):
        execution = run(step_functions, count=3)
    assert execution.status == "SUCCEEDED"
    assert execution.output["total_valid"] == 3


def test_template_search_function_crashing_continues_without_templates(step_functions, monkeypatch):
    def crash(_request):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(step_functions.runtime.module("search_question_templates"), "search_question_templates", crash)
    execution = run(step_functions, count=3)
    assert execution.status == "SUCCEEDED"
    assert "NoTemplates" in execution.states_entered
    assert execution.output["total_valid"] == 3


def test_keywords_table_failing_uses_the_default_keywords(step_functions, faults):
    with faults.dynamodb("get_difficulty_keywords", "GetItem", error="InternalServerError"):
        execution = run(step_functions, count=4)
    assert execution.status == "SUCCEEDED"
    # The default record's concepts, named as a sentence names them ("holds for effective
    # communication", not the record's Title Case heading).
    stems = " ".join(q["stem"] for q in execution.output["questions"])
    assert "effective communication" in stems or "problem-solving approach" in stems


def test_llm_failing_still_succeeds_with_the_fallbacks(step_functions, monkeypatch):
    """Gemini configured but down: generation falls back to the offline generator; validation
    scores the spec's default 0.5, so every question is rejected and regenerated twice."""
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GEMINI_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("LLM_RETRY_INITIAL_DELAY", "0")
    get_provider.cache_clear()
    try:
        execution = run(step_functions, count=3)
    finally:
        get_provider.cache_clear()
    assert execution.status == "SUCCEEDED"
    assert execution.output == {
        "questions": [],
        "total_generated": 9,
        "total_valid": 0,
        "total_rejected": 9,
        # The round says what it could not give, and why.
        "requested": 3,
        "delivered": 0,
        "from_neighbours": 0,
        "shortfall_reason": "rejected",
    }
    assert execution.states_entered.count("Generate") == 3


def test_regeneration_is_bounded_and_asks_only_for_the_missing(step_functions, monkeypatch):
    import slea.llm.offline.semantic_review as semantic  # the offline provider looks it up there when called

    calls = itertools.count()  # the validator rejects every other question
    monkeypatch.setattr(
        semantic,
        "semantic_review",
        lambda item: ItemScore(index=item.index, score=0.9 if next(calls) % 2 == 0 else 0.2),
    )
    execution = run(step_functions, count=4)
    assert execution.status == "SUCCEEDED"
    generated = [
        e
        for e in execution.events
        if e["type"] == "TaskStateEntered" and e["stateEnteredEventDetails"]["name"] == "Generate"
    ]
    assert len(generated) == 3  # the first attempt and at most 2 regenerations
    output = execution.output
    assert output["total_valid"] == len(output["questions"]) <= 4
    assert output["total_generated"] == output["total_valid"] + output["total_rejected"]
    assert output["total_generated"] < 12  # regenerations asked only for the missing questions


def test_save_failing_queues_the_questions_and_succeeds(step_functions, faults):
    with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
        execution = run(step_functions, count=3)
    assert execution.status == "SUCCEEDED"
    questions = execution.output["questions"]
    assert len(questions) == 3
    assert all(q["queued_for_retry"] and q["question_id"] is None for q in questions)
    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=step_functions.runtime.cloud.queue_url("RetryQueue"), AttributeNames=["ApproximateNumberOfMessages"]
    )
    assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "3"


@pytest.mark.parametrize(
    ("changes", "field", "failed_in"),
    [
        ({"user_id": "not-a-uuid"}, "user_id", "GetUserProfile"),
        ({"category": "sports"}, "category", "PlanRound"),
        ({"count": 50}, "count", "PlanRound"),
        ({"round": 3}, "round", "PlanRound"),
        ({"session_id": ""}, "session_id", "PlanRound"),
    ],
)
def test_invalid_input_fails_fast_naming_the_field(step_functions, changes, field, failed_in):
    execution = run(step_functions, **changes)
    assert execution.status == "FAILED"
    assert execution.error in {"ValueError", "TypeError"}
    assert field in execution.cause
    assert execution.states_entered[-2:] == [failed_in, "InvalidInput"]
    assert saved_questions(step_functions.runtime.cloud) == []


def test_transitions_do_not_grow_with_count(step_functions):
    five = run(step_functions, count=5)
    twenty = run(step_functions, count=20, session_id="sess_twenty")
    assert five.transitions == twenty.transitions <= 15
    assert twenty.output["total_valid"] == 20


def one_draft_rejected(step_functions, monkeypatch, change, count, question_type):
    """A round of `count` items of `question_type` whose first attempt's first draft is `change`d:
    the round succeeds, that draft rejected and written again by a second Generate."""
    import slea.llm.offline as offline

    original = offline.OfflineProvider.generate_questions

    def with_the_first_draft_changed(self, request, count):
        batch = original(self, request, count)
        if request.attempt == 0:
            batch.questions[0] = change(batch.questions[0])
        return batch

    monkeypatch.setattr(offline.OfflineProvider, "generate_questions", with_the_first_draft_changed)
    execution = run(step_functions, count=count, question_types=[question_type])
    assert execution.status == "SUCCEEDED", execution.cause
    assert execution.output["total_valid"] == count
    assert execution.output["total_rejected"] == 1
    assert execution.states_entered.count("Generate") == 2
    return execution


def test_a_question_tool_4_passes_but_tool_5_cannot_store_is_rejected_not_fatal(step_functions, monkeypatch):
    """MC with its key outside the choices scores exactly 0.70 (valid) yet cannot be saved."""

    def with_a_broken_key(first):
        return first.model_copy(update={"correct_answer": "E"}) if first.type == "multiple_choice" else first

    one_draft_rejected(step_functions, monkeypatch, with_a_broken_key, 3, "multiple_choice")


def test_the_validate_state_hands_tool_4_each_short_answers_reference(step_functions, monkeypatch):
    """A short answer whose model answer states none of its key terms (one about prompt templates,
    keyed on retrieval) is rejected by Tool 4 and written again: the Validate state passes the
    draft's reference answer."""

    def with_an_unrelated_reference(first):
        return first.model_copy(
            update={
                "correct_keywords": ["retrieval", "documents"],
                "reference_answer": "A prompt template is a reusable prompt with fixed instructions and "
                "named slots filled in for each request.",
            }
        )

    one_draft_rejected(step_functions, monkeypatch, with_an_unrelated_reference, 2, "short_answer")
    # The rejected draft is not saved; what is (a RAG item may well be keyed on retrieval) states
    # every key term in its own model answer.
    from slea.grading.evidence import keywords_stated

    for question in saved_questions(step_functions.runtime.cloud):
        key = question["answer_schema"]
        assert not str(key.get("reference_answer", "")).startswith("A prompt template is a reusable prompt")
        assert keywords_stated(key["reference_answer"], key["correct_keywords"]) == key["correct_keywords"]


def test_round_two_never_repeats_round_one(step_functions):
    first = run(step_functions, session_id="sess_twice", count=5)
    second = run(step_functions, session_id="sess_twice", round=2, count=5)
    assert second.status == "SUCCEEDED"
    assert not {q["stem"] for q in first.output["questions"]} & {q["stem"] for q in second.output["questions"]}


def test_a_korean_learners_round_is_in_korean_on_their_interests_and_tool4_checked_it(step_functions, monkeypatch):
    """The Validate state hands Tool 4 each draft's source and language: a key tampered with after
    generation is caught by the check against the source, not passed."""
    korean_learner, interests = "576f24fe-bc2d-4d30-aed1-51a1dd76449c", {"mlops", "llm", "rag"}
    execution = run(step_functions, user_id=korean_learner, session_id="sess_ko", count=10, difficulty=5)
    assert execution.status == "SUCCEEDED", execution.cause
    questions = execution.output["questions"]
    assert len(questions) == 10
    assert {q["language"] for q in questions} == {"ko"}
    assert all(re.search("[\uac00-\ud7a3]", q["stem"]) for q in questions)
    assert len({q["concept"] for q in questions}) == 10
    assert sum(q["concept_domain"].casefold() in interests for q in questions) >= 8

    from slea.llm.offline import OfflineProvider

    real = OfflineProvider.generate_questions

    def tampered(self, request, count):
        batch = real(self, request, count)
        for draft in batch.questions:
            if draft.type == "multiple_choice":
                draft.correct_answer = "A" if draft.correct_answer != "A" else "B"
        return batch

    monkeypatch.setattr(OfflineProvider, "generate_questions", tampered)
    execution = run(
        step_functions, user_id=korean_learner, session_id="sess_ko2", count=4, question_types=["multiple_choice"]
    )
    assert execution.status == "SUCCEEDED", execution.cause
    assert execution.output["total_valid"] == 0
    assert execution.output["total_rejected"] >= 4
