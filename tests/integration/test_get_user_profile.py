"""Tool 1 through its handler, on tables built from template.yaml."""

import boto3
import pytest

from slea.constants import FALLBACK_PROFILE
from slea.platform.aws import client_config

USER = "6f1c2a3e-9b7d-4c1e-8f2a-0d3b4c5e6f70"


def survey(submitted_at: str, level: str, **changes):
    return {
        "user_id": USER,
        "self_level": level,
        "years_experience": 3,
        "job_role": "Data Engineer",
        "duty": "Pipelines",
        "interests": ["RAG"],
        "previous_score": 61,
        "submitted_at": submitted_at,
        **changes,
    }


def fallback(user_id):
    return {**FALLBACK_PROFILE, "user_id": user_id}


def test_latest_survey_wins_whatever_the_insertion_order(load, runtime):
    load(
        {
            "profiles": [
                survey("2026-05-01T09:00:00Z", "intermediate", previous_score=70),
                survey("2026-10-01T09:00:00Z", "advanced", previous_score=88, interests=["LLM", "Cloud"]),
                survey("2025-01-01T09:00:00Z", "beginner"),
            ]
        }
    )
    assert runtime.invoke("get_user_profile", {"user_id": USER}) == {
        "user_id": USER,
        "self_level": "advanced",
        "years_experience": 3,
        "job_role": "Data Engineer",
        "duty": "Pipelines",
        "interests": ["LLM", "Cloud"],
        "previous_score": 88,
    }


def test_upper_case_uuid_finds_the_survey_and_is_echoed(load, runtime):
    load({"profiles": [survey("2026-05-01T09:00:00Z", "intermediate")]})
    profile = runtime.invoke("get_user_profile", {"user_id": USER.upper()})
    assert (profile["user_id"], profile["self_level"]) == (USER.upper(), "intermediate")


def test_user_without_survey_gets_the_fallback_profile(runtime):
    assert runtime.invoke("get_user_profile", {"user_id": USER}) == fallback(USER)
    assert runtime.metric_total("ProfileFallback") == 1


def test_fallback_rate_metric_is_zero_when_the_survey_is_found(load, runtime):
    load({"profiles": [survey("2026-05-01T09:00:00Z", "advanced")]})
    runtime.invoke("get_user_profile", {"user_id": USER})
    assert [document["ProfileFallback"] for document in runtime.metric_documents] == [[0.0]]


def test_one_query_newest_first_never_a_scan(load, runtime):
    from slea_local.faults import recorded_dynamodb_calls

    load({"profiles": [survey("2026-05-01T09:00:00Z", "intermediate"), survey("2026-06-01T09:00:00Z", "advanced")]})
    with recorded_dynamodb_calls("get_user_profile") as calls:
        runtime.invoke("get_user_profile", {"user_id": USER})
    assert dict(calls.operations) == {"Query": 1}
    assert calls.items_read == 1  # Limit 1, newest first


@pytest.mark.parametrize("code", ["ResourceNotFoundException", "InternalServerError", "AccessDeniedException"])
def test_database_error_gives_the_fallback_profile(load, runtime, faults, code):
    load({"profiles": [survey("2026-05-01T09:00:00Z", "advanced")]})
    with faults.dynamodb("get_user_profile", "Query", error=code):
        assert runtime.invoke("get_user_profile", {"user_id": USER}) == fallback(USER)


def test_timeouts_are_retried_up_to_three_attempts(load, runtime, faults):
    load({"profiles": [survey("2026-05-01T09:00:00Z", "advanced")]})
    with faults.dynamodb("get_user_profile", "Query", times=2):
        assert runtime.invoke("get_user_profile", {"user_id": USER})["self_level"] == "advanced"
    assert faults.attempts["Query"] == 3


def test_three_timeouts_give_the_fallback_profile(load, runtime, faults):
    load({"profiles": [survey("2026-05-01T09:00:00Z", "advanced")]})
    with faults.dynamodb("get_user_profile", "Query"):
        assert runtime.invoke("get_user_profile", {"user_id": USER}) == fallback(USER)
    assert faults.attempts["Query"] == 3


def test_client_budget_is_three_seconds_and_three_attempts():
    config = client_config("get_user_profile")
    assert (config.connect_timeout, config.read_timeout) == (3, 3)
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}


def test_malformed_stored_survey_gives_the_fallback_profile(cloud, runtime):
    table = boto3.resource("dynamodb").Table(cloud.table_name("ProfilesTable"))
    table.put_item(Item={"user_id": USER, "submitted_at": "2026-01-01T00:00:00Z", "self_level": "guru"})
    assert runtime.invoke("get_user_profile", {"user_id": USER}) == fallback(USER)


@pytest.mark.parametrize(
    ("event", "error"),
    [({"user_id": 42}, TypeError), ({"user_id": "42"}, ValueError), ({"user_id": ""}, ValueError)],
)
def test_invalid_user_id_raises_naming_the_field(runtime, event, error):
    with pytest.raises(error, match="user_id"):
        runtime.invoke("get_user_profile", event)


def test_demo_profiles_are_valid(seeded):
    profile = seeded.invoke("get_user_profile", {"user_id": "550e8400-e29b-41d4-a716-446655440000"})
    assert profile["self_level"] in {"beginner", "intermediate", "advanced"}
    assert 0 <= profile["years_experience"] <= 60
    assert 0 <= profile["previous_score"] <= 100
