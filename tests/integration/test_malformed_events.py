"""Property: whatever event a handler gets, the only exceptions are ValueError/TypeError whose
message names the offending field. Every function of template.yaml must join this test."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slea.contracts.attempt_stream import AttemptStreamEvent
from slea.contracts.generation import GenerateQuestionsInput
from slea.contracts.http_event import HttpApiEvent
from slea.contracts.item_analysis import CalibrateItemsInput, CalibrationExportInput, ReduceExportFileInput
from slea.contracts.keywords import GetKeywordsInput
from slea.contracts.profile import GetUserProfileInput
from slea.contracts.questions import SaveQuestionInput, SaveQuestionsBatchInput
from slea.contracts.retry_event import RetryQueueEvent
from slea.contracts.round import CollectRoundInput, FinishRoundInput, PlanRoundInput
from slea.contracts.scoring import ScoreAnswerInput
from slea.contracts.templates import SearchTemplatesInput
from slea.contracts.validation import ValidateQuestionBatchInput, ValidateQuestionInput

INPUT_CONTRACTS = {
    "get_user_profile": GetUserProfileInput,
    "search_question_templates": SearchTemplatesInput,
    "get_difficulty_keywords": GetKeywordsInput,
    "save_generated_question": (SaveQuestionInput, SaveQuestionsBatchInput),
    "save_retry_worker": RetryQueueEvent,
    "generate_questions": GenerateQuestionsInput,
    "validate_question_quality": (ValidateQuestionInput, ValidateQuestionBatchInput),
    "plan_round": PlanRoundInput,
    "collect_round": CollectRoundInput,
    "finish_round": FinishRoundInput,
    "score_and_explain": ScoreAnswerInput,
    "calibrate_items": CalibrateItemsInput,  # the refit state machine's fit step
    "calibration_export": CalibrationExportInput,
    "calibration_reduce": ReduceExportFileInput,
    "fold_attempts": AttemptStreamEvent,  # the attempts table's stream
    "api": HttpApiEvent,
    "web": HttpApiEvent,
    "mcp": HttpApiEvent,  # the envelope's field names (the web function checks it by hand)
}


def field_names_of(contracts):
    contracts = contracts if isinstance(contracts, tuple) else (contracts,)
    return [name for contract in contracts for name in contract.model_fields]


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=60),
    st.sampled_from(["technical", "Business", "LLM", "550e8400-e29b-41d4-a716-446655440000", "", " "]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def events(field_names: list[str]) -> st.SearchStrategy[object]:
    keys = st.sampled_from(field_names) | st.text(max_size=10)
    return st.dictionaries(keys, json_values, max_size=len(field_names) + 2) | json_values


def test_every_function_is_covered(runtime):
    covered = {runtime.function_id(tool) for tool in INPUT_CONTRACTS}
    assert covered == set(runtime.cloud.template.of_type("AWS::Serverless::Function"))


@pytest.mark.parametrize("tool", sorted(INPUT_CONTRACTS))
def test_malformed_events_raise_only_field_naming_value_or_type_errors(tool, seeded):
    field_names = field_names_of(INPUT_CONTRACTS[tool])

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(event=events(field_names))
    def check(event: object) -> None:
        try:
            seeded.invoke(tool, event)
        except (ValueError, TypeError) as error:
            message = str(error)
        else:
            return
        named = field_names if isinstance(event, dict) else ["event"]
        assert any(message.startswith(name) for name in named), (event, message)

    check()


def test_collect_round_with_a_bad_count_names_the_field(runtime):
    """A plan whose count is impossible (0, or more than a round holds) is refused at the door,
    naming `plan.count`, rather than failing inside the step with an unnamed ValidationError."""
    plan = {
        "session_id": "s",
        "round": 1,
        "round_id": "s_1_2026-11-23T00:00:00Z",
        "category": "technical",
        "count": -3,
        "difficulty": 5,
        "difficulty_reason": "test",
        "interests": ["LLM"],
        "progress": {"attempt": 0, "missing": 0},
    }
    with pytest.raises(ValueError, match=r"plan\.count"):
        runtime.invoke("collect_round", {"plan": plan, "questions": [], "verdicts": []})
