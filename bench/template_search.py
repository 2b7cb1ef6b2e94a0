"""Tool 2: items DynamoDB reads per call (ScannedCount summed over its calls) with a small and a
large templates table holding the same matching candidates. Target: equal.

    python bench/template_search.py [--small 1000] [--large 50000]
"""

import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from bench.command import print_measure  # noqa: E402
from slea_local.cloud import LocalCloud, prepare_process_environment  # noqa: E402

REQUEST = {"interests": ["LLM", "RAG", "Agent Architecture"], "difficulty": 7, "category": "technical"}
DOMAINS = ["LLM", "RAG", "Agent Architecture", "Cloud", "Security", "MLOps", "Data", "Frontend"]


def _template(rng: random.Random, **fields: Any) -> dict[str, Any]:
    return {
        "id": str(uuid.UUID(int=rng.getrandbits(128))),
        "category": "technical",
        "domain": "LLM",
        "stem": "Which statement about retrieval-augmented generation is accurate?",
        "type": "true_false",
        "choices": ["True", "False"],
        "correct_answer": "True",
        "correct_rate": round(rng.random(), 2),
        "usage_count": rng.randint(1, 500),
        "avg_difficulty_score": 7.0,
        "is_active": True,
        **fields,
    }


def candidates(rng: random.Random) -> list[dict[str, Any]]:
    """30 templates that match REQUEST (interests x window 5.5-8.5)."""
    return [
        _template(rng, domain=REQUEST["interests"][i % 3], avg_difficulty_score=round(rng.uniform(5.5, 8.5), 1))
        for i in range(30)
    ]


def non_matching(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Templates that must not be read: other domains or categories, outside the window,
    retired or never used — a realistic mix of the rest of a large bank."""
    kinds = [
        lambda: {"domain": rng.choice(DOMAINS[3:])},
        lambda: {"category": rng.choice(["business", "general"]), "domain": rng.choice(DOMAINS[:3])},
        lambda: {"avg_difficulty_score": rng.choice([round(rng.uniform(1, 5.4), 1), round(rng.uniform(8.6, 10), 1)])},
        lambda: {"is_active": False},
        lambda: {"usage_count": 0},
    ]
    return [_template(rng, **rng.choice(kinds)()) for _ in range(count)]


def items_read(table_size: int, seed: int = 7) -> dict[str, Any]:
    from ops.seed import load_seed
    from slea_local.faults import recorded_dynamodb_calls
    from slea_local.runtime import LocalRuntime

    matching = candidates(random.Random(seed))  # identical candidates at every size
    rng = random.Random(seed + 1)
    with LocalCloud() as cloud:
        runtime = LocalRuntime(cloud)
        started = time.perf_counter()
        with cloud.environment(cloud.seed_environment()):
            load_seed({"templates": matching + non_matching(rng, table_size - len(matching))})
        load_seconds = time.perf_counter() - started
        with recorded_dynamodb_calls("search_question_templates") as calls:
            found = runtime.invoke("search_question_templates", REQUEST)
    return {
        "table_size": table_size,
        "items_read": calls.items_read,
        "queries": calls.operations["Query"],
        "scans": calls.operations["Scan"],
        "returned": len(found),
        "load_seconds": round(load_seconds, 1),
    }


def measure(small: int, large: int) -> dict[str, Any]:
    prepare_process_environment()
    runs = [items_read(small), items_read(large)]
    return {"runs": runs, "items_read_ratio_large_to_small": runs[1]["items_read"] / runs[0]["items_read"]}


def main() -> None:
    print_measure(measure, __doc__, ("--small", 1_000), ("--large", 50_000))


if __name__ == "__main__":
    main()
