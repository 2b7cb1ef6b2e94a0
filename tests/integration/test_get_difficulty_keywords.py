"""Tool 3 through its handler: one GetItem per (difficulty, category), a 1 h cache kept across
warm invocations, defaults on a miss, stale-or-defaults on a database error."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from slea.constants import DEFAULT_KEYWORDS
from slea.contracts.keywords import GetKeywordsInput
from slea.logic.generation import keywords as difficulty_keywords
from slea.platform.cache import StaleOnErrorCache
from slea_local.faults import recorded_dynamodb_calls

TOOL = "get_difficulty_keywords"


def record(difficulty=7, category="technical", marker="Attention"):
    return {
        "difficulty": difficulty,
        "category": category,
        "keywords": [marker, "Transformer", "KV cache", "LoRA", "RAG"],
        "concepts": [
            {
                "name": "Self-Attention",
                "acronym": "SA",
                "definition": "Each token weighs every other token of the sequence.",
                "key_points": ["queries, keys, values", "softmax weights", "quadratic cost"],
            }
        ],
        "example_questions": [
            {"stem": "Why scale by sqrt(d)?", "type": "short_answer", "difficulty_score": 7.0, "answer_summary": "x"}
        ],
    }


def defaults(difficulty, category):
    return {**DEFAULT_KEYWORDS, "difficulty": difficulty, "category": category}


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(difficulty_keywords, "keyword_cache", StaleOnErrorCache(ttl=3600, timer=clock))
    return clock


def test_returns_the_record_of_the_difficulty_and_category(load, runtime):
    load({"keywords": [record(), record(category="business", marker="OKR"), record(difficulty=6, marker="IAM")]})
    assert runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"}) == record()
    assert runtime.invoke(TOOL, {"difficulty": 7, "category": "BUSINESS"})["keywords"][0] == "OKR"


def test_one_get_item_on_difficulty_and_category_then_cached_across_invocations(load, runtime):
    load({"keywords": [record()]})
    with recorded_dynamodb_calls(TOOL) as calls:
        first = runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
        second = runtime.invoke(TOOL, {"difficulty": 7.2, "category": "Technical"})
    assert first == second
    assert dict(calls.operations) == {"GetItem": 1}


def test_missing_record_gives_defaults_echoing_the_request(runtime):
    assert runtime.invoke(TOOL, {"difficulty": 9, "category": "business"}) == defaults(9, "business")


def test_cache_expires_after_an_hour(load, runtime, clock):
    load({"keywords": [record()]})
    with recorded_dynamodb_calls(TOOL) as calls:
        runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
        clock.now = 3599
        runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
        assert calls.operations["GetItem"] == 1
        clock.now = 3601
        runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
        assert calls.operations["GetItem"] == 2


def test_database_error_serves_the_expired_cached_record(load, runtime, faults, clock):
    load({"keywords": [record()]})
    runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
    clock.now = 7200
    with faults.dynamodb(TOOL, "GetItem", error="InternalServerError"):
        assert runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"}) == record()
    assert faults.attempts["GetItem"] == 1


@pytest.mark.parametrize("error", ["timeout", "ResourceNotFoundException"])
def test_database_error_with_nothing_cached_serves_defaults(load, runtime, faults, error):
    load({"keywords": [record()]})
    with faults.dynamodb(TOOL, "GetItem", error=error):
        assert runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"}) == defaults(7, "technical")


def test_concurrent_cold_calls_read_the_table_once(load, runtime):
    load({"keywords": [record()]})
    start = threading.Barrier(12)

    runtime.handler(TOOL)  # imported once, as in one execution environment

    def call(_):
        # The logic, not the handler: Lambda never runs two invocations in one environment, and
        # Powertools' metrics singleton is not meant to be flushed from several threads at once.
        start.wait()
        request = GetKeywordsInput(difficulty=7, category="technical")
        return difficulty_keywords.get_difficulty_keywords(request).model_dump(mode="json")

    environment = runtime.cloud.environment(runtime.cloud.environment_of("GetDifficultyKeywordsFunction"))
    with environment, recorded_dynamodb_calls(TOOL) as calls, ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(call, range(12)))
    assert results == [record()] * 12
    assert calls.operations["GetItem"] == 1


def test_oversized_record_is_trimmed_to_the_limits(load, runtime):
    big = record()
    big["keywords"] = [f"k{i}" for i in range(25)]
    first = big["concepts"][0]
    big["concepts"] = [{**first, "name": f"{first['name']} {i}"} for i in range(70)]
    big["example_questions"] = big["example_questions"] * 7
    import boto3

    from slea.dal.wire_format import dynamo_numbers

    boto3.resource("dynamodb").Table(runtime.cloud.table_name("KeywordsTable")).put_item(Item=dynamo_numbers(big))
    result = runtime.invoke(TOOL, {"difficulty": 7, "category": "technical"})
    assert (len(result["keywords"]), len(result["concepts"]), len(result["example_questions"])) == (20, 60, 5)


def test_every_demo_pair_has_real_content(seeded):
    for difficulty in range(1, 11):
        for category in ("technical", "business", "general"):
            result = seeded.invoke(TOOL, {"difficulty": difficulty, "category": category})
            assert result["keywords"] != DEFAULT_KEYWORDS["keywords"]
            assert 5 <= len(result["keywords"]) <= 20
            assert all(3 <= len(concept["key_points"]) <= 5 for concept in result["concepts"])
            assert result["example_questions"]


@pytest.mark.parametrize(
    ("event", "error"),
    [
        ({"difficulty": "7", "category": "technical"}, TypeError),
        ({"difficulty": 0, "category": "technical"}, ValueError),
        ({"difficulty": 7, "category": "sports"}, ValueError),
        ({"category": "technical"}, ValueError),
    ],
)
def test_invalid_input(runtime, event, error):
    with pytest.raises(error, match=r"difficulty|category"):
        runtime.invoke(TOOL, event)
