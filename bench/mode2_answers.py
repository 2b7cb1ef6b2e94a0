"""Mode 2 cost: LLM calls (from the EMF metrics) for 100 answers to one stored multiple-choice
question (Tool 6, direct invocation: the API allows one answer per learner and question).
Target: at most 2 (one explanation per correct/incorrect, then cached).

    python bench/mode2_answers.py [--answers 100]
"""

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command import print_measure
from slea_local.demo_aws import DEMO_USER, seeded_local_aws


def measure(answers: int = 100) -> dict[str, Any]:
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import HttpApiAdapter, call

    with seeded_local_aws() as aws:
        runtime = aws.runtime
        api = HttpApiAdapter(runtime)
        with LocalStepFunctions(runtime) as step_functions:
            request = {"category": "technical", "count": 1, "question_types": ["multiple_choice"]}
            _, _, created = call(api, "POST", "/sessions", None, DEMO_USER)
            session_id = created["session_id"]
            _, _, started = call(api, "POST", f"/sessions/{session_id}/rounds", request, DEMO_USER)
            execution = step_functions.watch(started["execution_arn"])
            question = execution.output["questions"][0]
            wrong = next(c.split(")")[0] for c in question["choices"] if not c.startswith(question["correct_answer"]))
            calls_before = runtime.metric_total("LLMCalls")
            started_at = time.perf_counter()
            correct = 0
            for number in range(answers):
                graded = runtime.invoke(
                    "score_and_explain",
                    {
                        "session_id": session_id,
                        "user_id": f"learner-{number}",
                        "question_id": question["question_id"],
                        "question_type": "multiple_choice",
                        "user_answer": question["correct_answer"] if number % 2 else wrong,
                        "correct_answer": question["correct_answer"],
                        "choices": question["choices"],
                    },
                )
                correct += graded["is_correct"]
            seconds = time.perf_counter() - started_at
    return {
        "answers": answers,
        "correct": correct,
        "llm_calls": runtime.metric_total("LLMCalls") - calls_before,
        "llm_calls_explain": runtime.metric_total("LLMCalls", Operation="explain"),
        "mean_ms_per_answer": round(seconds / answers * 1000, 1),
    }


def main() -> None:
    print_measure(measure, __doc__, ("--answers", 100))


if __name__ == "__main__":
    main()
