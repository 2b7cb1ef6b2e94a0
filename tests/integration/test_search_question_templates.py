"""Tool 2 through its handler: the difficulty window, matching, order and limit, fallback and input rules."""

import itertools
import json
import uuid

import pytest

from slea_local.faults import recorded_dynamodb_calls

SPEC_KEYS = {"id", "stem", "type", "choices", "correct_answer", "correct_rate", "usage_count", "avg_difficulty_score"}
_ids = itertools.count()


def template(domain="LLM", score=7.0, rate=0.5, usage=10, category="technical", active=True, stem=None):
    number = next(_ids)
    return {
        "id": str(uuid.UUID(int=number)),
        "category": category,
        "domain": domain,
        "stem": stem or f"Question number {number} about {domain}?",
        "type": "true_false",
        "choices": ["True", "False"],
        "correct_answer": "True",
        "correct_rate": rate,
        "usage_count": usage,
        "avg_difficulty_score": score,
        "is_active": active,
    }


def search(runtime, interests=("LLM",), difficulty=7, category="technical"):
    return runtime.invoke(
        "search_question_templates", {"interests": list(interests), "difficulty": difficulty, "category": category}
    )


def test_difficulty_window_is_plus_minus_one_and_a_half_inclusive(load, runtime):
    load({"templates": [template(score=score) for score in (5.4, 5.5, 7.0, 8.5, 8.6)]})
    found = search(runtime)
    assert sorted(t["avg_difficulty_score"] for t in found) == [5.5, 7.0, 8.5]


def test_float_difficulty_is_truncated_before_the_window(load, runtime):
    load({"templates": [template(score=5.6), template(score=9.4)]})
    assert [t["avg_difficulty_score"] for t in search(runtime, difficulty=7.9)] == [5.6]


def test_only_active_used_templates_of_the_category_and_interests(load, runtime):
    keep = template(domain="RAG")
    load(
        {
            "templates": [
                keep,
                template(domain="Cloud"),  # not an interest
                template(domain="RAG", category="business"),  # other category
                template(domain="RAG", usage=0),  # never used
                template(domain="RAG", active=False),  # retired
            ]
        }
    )
    assert [t["id"] for t in search(runtime, interests=["LLM", "RAG"])] == [keep["id"]]


def test_interests_match_domains_after_strip_and_ignoring_case(load, runtime):
    wanted = template(domain="Agent Architecture")
    load({"templates": [wanted]})
    assert [t["id"] for t in search(runtime, interests=["  agent architecture "])] == [wanted["id"]]


def test_ordered_by_correct_rate_then_usage_count_and_limited_to_ten(load, runtime):
    rates = [0.91, 0.35, 0.78, 0.78, 0.5, 0.62, 0.99, 0.12, 0.44, 0.83, 0.7, 0.66, 0.05, 0.95]
    templates = [template(domain=("LLM", "RAG")[i % 2], rate=rate, usage=10 + i) for i, rate in enumerate(rates)]
    load({"templates": templates})
    found = search(runtime, interests=["LLM", "RAG"])
    expected = sorted(templates, key=lambda t: (-t["correct_rate"], -t["usage_count"]))[:10]
    assert [t["id"] for t in found] == [t["id"] for t in expected]
    tie = [t for t in found if t["correct_rate"] == 0.78]
    assert [t["usage_count"] for t in tie] == sorted((t["usage_count"] for t in tie), reverse=True)


def test_output_is_exactly_the_spec_fields(load, runtime):
    load({"templates": [template()]})
    (found,) = search(runtime)
    assert set(found) == SPEC_KEYS
    json.dumps(found)


def test_no_match_is_an_empty_list_not_an_error(load, runtime):
    load({"templates": [template(score=2.0)]})
    assert search(runtime) == []


def test_database_error_gives_empty_list_and_a_warning_without_content(load, runtime, faults, caplog):
    secret = "SECRET-STEM-TEXT"
    load({"templates": [template(stem=secret)]})
    with faults.dynamodb("search_question_templates", "Query", error="InternalServerError"):
        assert search(runtime, interests=["LLM", "PRIVATE-INTEREST"]) == []
    warnings = [record for record in caplog.records if record.levelname == "WARNING"]
    assert any("template search failed" in record.getMessage() for record in warnings)
    logged = json.dumps([vars(record) for record in caplog.records], default=str)
    assert secret not in logged
    assert "PRIVATE-INTEREST" not in logged


def test_timeout_is_not_retried_tool_2_has_one_attempt(load, runtime, faults):
    load({"templates": [template()]})
    with faults.dynamodb("search_question_templates", "Query"):
        assert search(runtime) == []
    assert faults.attempts["Query"] == 1


def test_items_read_do_not_grow_with_the_table(load, runtime):
    """Only the candidates are read: one index query per interest, never a Scan."""
    candidates = [template(domain=domain, score=score) for domain in ("LLM", "RAG") for score in (6.0, 7.5)]
    load({"templates": candidates})
    with recorded_dynamodb_calls("search_question_templates") as small:
        search(runtime, interests=["LLM", "RAG"])
    noise = [template(domain="LLM", score=2.0) for _ in range(150)]  # outside the window
    noise += [template(domain="Cloud") for _ in range(150)]  # other domain
    noise += [template(domain="LLM", usage=0) for _ in range(100)]  # not in the sparse index
    noise += [template(domain="LLM", active=False) for _ in range(100)]
    load({"templates": noise})
    with recorded_dynamodb_calls("search_question_templates") as large:
        found = search(runtime, interests=["LLM", "RAG"])
    assert len(found) == 4
    assert set(large.operations) == {"Query"}
    assert large.operations["Query"] == 2
    assert large.items_read == small.items_read == 4


def test_demo_seed_example_from_the_spec(seeded):
    found = seeded.invoke(
        "search_question_templates",
        {"interests": ["LLM", "RAG", "Agent Architecture"], "difficulty": 7, "category": "technical"},
    )
    assert 0 < len(found) <= 10
    assert all(5.5 <= t["avg_difficulty_score"] <= 8.5 and t["usage_count"] > 0 for t in found)
    rates = [t["correct_rate"] for t in found]
    assert rates == sorted(rates, reverse=True)


@pytest.mark.parametrize(
    ("event", "error", "field"),
    [
        ({"interests": "LLM", "difficulty": 7, "category": "technical"}, TypeError, "interests"),
        ({"interests": [], "difficulty": 7, "category": "technical"}, ValueError, "interests"),
        ({"interests": ["LLM"], "difficulty": "7", "category": "technical"}, TypeError, "difficulty"),
        ({"interests": ["LLM"], "difficulty": 11, "category": "technical"}, ValueError, "difficulty"),
        ({"interests": ["LLM"], "difficulty": 7, "category": "unknown"}, ValueError, "category"),
    ],
)
def test_invalid_input_raises_naming_the_field(runtime, event, error, field):
    with pytest.raises(error, match=field):
        runtime.invoke("search_question_templates", event)
