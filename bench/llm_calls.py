"""LLM calls for generating and validating one round, counted from the EMF metrics the functions
emit (LLMCalls, by Operation and Provider). Target: <= 2 for a round of 5.

    python bench/llm_calls.py [--count 5]
"""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command import print_measure
from slea_local.demo_aws import DEMO_USER, seeded_local_aws


def measure(count: int = 5) -> dict[str, Any]:

    with seeded_local_aws() as aws:
        runtime = aws.runtime
        profile = runtime.invoke("get_user_profile", {"user_id": DEMO_USER})
        context = {"difficulty": 7, "category": "technical"}
        templates = runtime.invoke("search_question_templates", {"interests": profile["interests"], **context})
        keywords = runtime.invoke("get_difficulty_keywords", context)
        drafts = runtime.invoke(
            "generate_questions",
            {
                "profile": profile,
                "templates": templates,
                "keywords": keywords,
                "session_id": "bench",
                "count": count,
                **context,
            },
        )["questions"]
        verdicts = runtime.invoke(
            "validate_question_quality",
            {
                "stem": [d["stem"] for d in drafts],
                "question_type": [d["type"] for d in drafts],
                "choices": [d["choices"] or None for d in drafts],
                "correct_answer": [
                    ", ".join(d["correct_keywords"]) if d["type"] == "short_answer" else d["correct_answer"]
                    for d in drafts
                ],
                "batch": True,
            },
        )
        return {
            "questions": count,
            "valid": sum(verdict["is_valid"] for verdict in verdicts),
            "llm_calls": runtime.metric_total("LLMCalls"),
            "llm_calls_generate": runtime.metric_total("LLMCalls", Operation="generate"),
            "llm_calls_validate": runtime.metric_total("LLMCalls", Operation="validate"),
        }


def main() -> None:
    print_measure(measure, __doc__, ("--count", 5))


if __name__ == "__main__":
    main()
