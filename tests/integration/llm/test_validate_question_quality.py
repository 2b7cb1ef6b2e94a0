"""Tool 4 on the offline provider: every rule row, every threshold edge, batches, our own checks."""

import pytest

from slea.authoring.item_rules import UNVERIFIABLE
from slea.authoring.question_quality import StemIndex
from slea.constants import QUESTION_STEM_MAX, VALIDATION_BATCH_MAX, VALIDATION_EXISTING_STEMS_MAX
from slea.contracts.llm import ItemScore, ValidationItem
from slea.contracts.validation import ValidateQuestionInput
from slea.llm.offline.semantic_review import semantic_score
from slea.logic.generation.validation import rule_check, verdict

TOOL = "validate_question_quality"
CHOICES = ["A) Retrieval", "B) Generation", "C) Both", "D) Neither"]
# Rule checks need no source; an item without one is unverifiable offline (at most "revise").
UNGROUNDED = {"stem": "What is RAG?", "question_type": "multiple_choice", "choices": CHOICES, "correct_answer": "C"}
RAG = {
    "name": "Retrieval-Augmented Generation",
    "acronym": "RAG",
    "definition": "Answering with a language model that is given documents retrieved for the question",
    "key_points": [
        "Retrieves passages from an index at query time",
        "Grounds the answer in the retrieved text",
        "Needs no retraining when the documents change",
    ],
}
DEFINITIONS = [
    "A) Adapting a model's weights to a task with labelled examples",
    "B) Answering with a language model that is given documents retrieved for the question",
    "C) Reducing a model's numeric precision to save memory and time",
    "D) Writing instructions that steer the format of a model's output",
]
GOOD = {
    "stem": "Which of the following best describes RAG?",
    "question_type": "multiple_choice",
    "choices": DEFINITIONS,
    "correct_answer": "B",
    "source": RAG,
}
PASS = "질문이 우수한 품질입니다. 즉시 저장할 수 있습니다."
REVISE = "질문이 기본 기준을 충족하지만 개선이 가능합니다. 피드백을 바탕으로 재생성을 권장합니다."
REJECT = "질문이 기준을 충족하지 않습니다. 새로운 질문 생성을 권장합니다."


def validate(runtime, **changes):
    return runtime.invoke(TOOL, {**UNGROUNDED, **changes})


def validate_grounded(runtime, **changes):
    return runtime.invoke(TOOL, {**GOOD, **changes})


def test_a_good_question_passes_with_the_spec_output(runtime):
    result = validate_grounded(runtime)
    assert set(result) == {"is_valid", "score", "rule_score", "final_score", "feedback", "issues", "recommendation"}
    assert result == {**result, "is_valid": True, "rule_score": 1.0, "recommendation": "pass", "feedback": PASS}
    assert result["final_score"] == min(result["score"], result["rule_score"])


@pytest.mark.parametrize(
    ("changes", "rule_score", "issue"),
    [
        ({"stem": "Which statement about RAG is correct? " + "x" * 220}, 0.8, "Stem length exceeds maximum"),
        ({"choices": CHOICES[:3]}, 0.8, "Invalid number of choices"),
        ({"choices": [*CHOICES, "E) Other", "F) More"]}, 0.8, "Invalid number of choices"),
        ({"correct_answer": "E"}, 0.7, "Correct answer not found in choices"),
        (
            {"choices": ["A) Both", "B) Generation", "C) Both", "D) Neither"], "correct_answer": "B"},
            0.85,
            "Duplicate choices detected",
        ),
    ],
)
def test_rule_table(runtime, changes, rule_score, issue):
    result = validate(runtime, **changes)
    assert result["rule_score"] == rule_score
    assert issue in result["issues"]
    assert result["final_score"] == min(result["score"], rule_score)


def test_rules_accumulate_and_floor_at_zero(runtime):
    result = validate(runtime, stem="x" * 260, choices=["A) Same", "B) Same"], correct_answer="Z")
    assert result["rule_score"] == pytest.approx(1 - 0.2 - 0.2 - 0.3 - 0.15)
    assert result["recommendation"] == "reject"
    assert result["is_valid"] is False


@pytest.mark.parametrize(("key", "found"), [("C", True), ("c", True), ("C) Both", True), ("Both", True), ("E", False)])
def test_answer_key_matching(runtime, key, found):
    issues = validate(runtime, correct_answer=key)["issues"]
    assert ("Correct answer not found in choices" not in issues) is found


def test_true_false_answer_must_be_true_or_false(runtime):
    ok = runtime.invoke(
        TOOL, {"stem": "RAG retrieves documents first.", "question_type": "true_false", "correct_answer": "true"}
    )
    bad = runtime.invoke(
        TOOL, {"stem": "RAG retrieves documents first.", "question_type": "true_false", "correct_answer": "Maybe"}
    )
    assert ok["rule_score"] == 1.0
    assert bad["rule_score"] == 0.7


@pytest.mark.parametrize(
    ("semantic", "rule", "recommendation", "valid", "feedback"),
    [
        (0.95, 0.85, "pass", True, PASS),  # exactly 0.85: pass
        (0.8499, 1.0, "revise", True, REVISE),
        (0.70, 1.0, "revise", True, REVISE),  # exactly 0.70: valid, revise
        (0.6999, 1.0, "reject", False, REJECT),
        (0.95, 0.70, "revise", True, REVISE),
        (0.3, 1.0, "reject", False, REJECT),
    ],
)
def test_threshold_edges(semantic, rule, recommendation, valid, feedback):
    result = verdict(ItemScore(index=0, score=semantic), rule, [])
    assert (result.recommendation, result.is_valid, result.feedback) == (recommendation, valid, feedback)
    assert result.final_score == min(semantic, rule)


def test_threshold_edges_through_the_handler(runtime):
    duplicate = validate_grounded(runtime, choices=[*DEFINITIONS[:3], DEFINITIONS[0].replace("A)", "D)")])
    assert (duplicate["final_score"], duplicate["recommendation"]) == (0.85, "pass")
    missing = validate_grounded(runtime, correct_answer="E")
    assert (missing["final_score"], missing["recommendation"], missing["is_valid"]) == (0.7, "revise", True)


def test_batch_scores_each_and_an_invalid_item_gets_its_own_error(runtime):
    results = runtime.invoke(
        TOOL,
        {
            "stem": ["What does the retriever do in RAG?", "", "Is a vector index required for RAG?"],
            "question_type": ["short_answer", "true_false", "true_false"],
            "choices": [None, ["True", "False"], ["True", "False"]],
            "correct_answer": ["retriever, context", "True", "False"],
            "batch": True,
        },
    )
    assert len(results) == 3
    assert results[1]["is_valid"] is False
    assert "stem" in results[1]["error"]
    assert results[1]["recommendation"] == "reject"
    assert results[0]["is_valid"]
    assert results[2]["is_valid"]
    assert "error" not in results[0]


def test_batch_costs_one_llm_call(runtime):
    runtime.invoke(
        TOOL,
        {"stem": ["Q one about RAG?", "Q two about agents?"], "question_type": ["short_answer"] * 2, "batch": True},
    )
    assert runtime.metric_total("LLMCalls", Operation="validate") == 1


def test_spec_batch_example(runtime):
    results = runtime.invoke(
        TOOL,
        {
            "stem": ["Question 1", "Question 2"],
            "question_type": ["short_answer", "true_false"],
            "choices": [None, ["True", "False"]],
            "correct_answer": ["Answer 1", "True"],
            "batch": True,
        },
    )
    assert [r["rule_score"] for r in results] == [1.0, 1.0]
    assert all(0.0 <= r["score"] <= 1.0 for r in results)


def test_near_duplicates_in_the_batch_and_of_existing_templates(runtime):
    results = runtime.invoke(
        TOOL,
        {
            "stem": [
                "What is the main purpose of RAG?",
                "What is the main purpose of RAG ?",
                "Explain LoRA fine-tuning.",
            ],
            "question_type": ["short_answer"] * 3,
            "correct_answer": ["retrieval", "retrieval", "low-rank"],
            "batch": True,
            "existing_stems": ["Explain LoRA fine tuning"],
        },
    )
    assert results[0]["issues"] == [UNVERIFIABLE]
    assert "Near-duplicate of question 1 of this batch" in results[1]["issues"]
    assert results[1]["rule_score"] == 0.8
    assert "Near-duplicate of an existing template" in results[2]["issues"]


def test_a_long_near_duplicate_is_flagged_and_a_distinct_long_stem_is_not(runtime):
    policy = (
        "A retrieval-augmented generation pipeline answers questions about internal policy documents, but users "
        "report that answers cite outdated versions of the {} policy. Which change to the retrieval stage most "
        "directly addresses this problem?"
    )
    agent = (
        "An agent that plans multi-step tasks calls external tools through a gateway and sometimes repeats a "
        "payment call after a timeout. Which design change makes the repeated call safe without losing retries?"
    )
    results = runtime.invoke(
        TOOL,
        {
            "stem": [policy.format("travel"), agent, policy.format("expense")],
            "question_type": ["short_answer"] * 3,
            "batch": True,
            "existing_stems": [agent.replace("gateway", "proxy")],
        },
    )
    assert min(len(stem) for stem in (policy, agent)) >= 200
    assert "Near-duplicate of question 1 of this batch" in results[2]["issues"]
    assert "Near-duplicate of an existing template" in results[1]["issues"]
    assert not any(issue.startswith("Near-duplicate") for issue in results[0]["issues"])


def test_an_invalid_entry_still_counts_in_the_batch_numbering(runtime):
    stem = "What is the main purpose of retrieval in RAG?"
    results = runtime.invoke(TOOL, {"stem": [3, stem, stem], "question_type": ["short_answer"] * 3, "batch": True})
    assert "error" in results[0]
    assert "Near-duplicate of question 2 of this batch" in results[2]["issues"]


def test_rule_check_takes_prepared_stems_or_plain_lists():
    question = ValidateQuestionInput.model_validate({**UNGROUNDED, "stem": "Explain LoRA fine-tuning in practice."})
    earlier = ["What is RAG?", "Explain LoRA fine tuning in practice"]
    expected = (0.8, ["Near-duplicate of question 2 of this batch"])
    assert rule_check(question, earlier, []) == expected
    assert rule_check(question, StemIndex(earlier), StemIndex()) == expected
    assert rule_check(question, [], earlier)[1] == ["Near-duplicate of an existing template"]


def test_distractor_quality_checks(runtime):
    catch_all = validate(runtime, choices=["A) Retrieval", "B) Generation", "C) All of the above", "D) Neither"])
    assert "Avoid 'all of the above' / 'none of the above' choices" in catch_all["issues"]
    assert catch_all["rule_score"] == 0.9
    uneven = validate(
        runtime, choices=["A) Yes", "B) No", "C) Combines retrieval of documents with text generation", "D) Neither"]
    )
    assert "Choice lengths are very unequal; length can cue the answer" in uneven["issues"]
    absolute = validate(runtime, choices=["A) Always retrieval", "B) Never generation", "C) Both", "D) Neither"])
    assert "Absolute words (always/never) in choices can cue the answer" in absolute["issues"]


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"stem": 3, "question_type": "short_answer"}, "stem"),
        ({"stem": "Q?", "question_type": "essay"}, "question_type"),
        ({"stem": "Q?", "question_type": "multiple_choice", "correct_answer": "A"}, "choices"),
        ({"stem": ["Q?"], "question_type": "short_answer", "batch": True}, "question_type"),
    ],
)
def test_invalid_input_raises_naming_the_field(runtime, event, field):
    with pytest.raises((ValueError, TypeError), match=field):
        runtime.invoke(TOOL, event)


def _batch_of(count: int, **changes):
    stems = [f"Question {number} about retrieval?" for number in range(count)]
    return {"stem": stems, "question_type": ["short_answer"] * count, "batch": True, **changes}


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (_batch_of(VALIDATION_BATCH_MAX + 1), "stem"),
        (_batch_of(1, existing_stems=["Q?"] * (VALIDATION_EXISTING_STEMS_MAX + 1)), "existing_stems"),
        (_batch_of(1, existing_stems=["x" * (QUESTION_STEM_MAX + 1)]), r"existing_stems\[0\]"),
        ({**UNGROUNDED, "stem": "x" * (QUESTION_STEM_MAX + 1)}, "stem"),
    ],
)
def test_oversized_input_raises_naming_the_field(runtime, event, field):
    with pytest.raises(ValueError, match=rf"^{field}: .*at most"):
        runtime.invoke(TOOL, event)


def test_the_largest_batch_is_accepted_and_an_overlong_stem_is_its_own_error(runtime):
    event = _batch_of(VALIDATION_BATCH_MAX, existing_stems=["Q?"] * VALIDATION_EXISTING_STEMS_MAX)
    event["stem"][0] = "x" * (QUESTION_STEM_MAX + 1)
    results = runtime.invoke(TOOL, event)
    assert len(results) == VALIDATION_BATCH_MAX
    assert results[0]["error"].startswith("stem: ")
    assert all("error" not in result for result in results[1:])


# ---------------------------------------------------------------- the offline semantic heuristic
@pytest.mark.parametrize(
    ("stem", "expected"),
    [
        ("Which component of a RAG pipeline selects the context?", 0.95),
        ("RAG?", 0.85),  # too short to be clear
        ("Describe retrieval augmented generation", 0.9),  # not phrased as a question or task
        ("Obviously everyone knows what RAG is, right?", 0.75),  # loaded wording
        ("List the parts of RAG, etc.?", 0.9),  # vague
    ],
)
def test_offline_semantic_heuristic(stem, expected):
    item = ValidationItem(index=0, stem=stem, question_type="short_answer", correct_answer="retrieval")
    assert semantic_score(item) == expected


def test_offline_semantic_score_is_deterministic_and_not_constant():
    items = [
        ValidationItem(index=i, stem=s, question_type="short_answer", correct_answer="x")
        for i, s in enumerate(["Why?", "Explain why retrieval helps grounding."])
    ]
    first = [semantic_score(item) for item in items]
    assert first == [semantic_score(item) for item in items]
    assert len(set(first)) == 2


def test_rule_check_is_pure():
    question = ValidateQuestionInput.model_validate(GOOD)
    assert rule_check(question, [], []) == (1.0, [])
    assert rule_check(question, [], []) == (1.0, [])
