"""Mode 1 rounds on the real state machine definition (moto's interpreter, tasks in-process):
state transitions per round for count 5 and 20 (target: equal and <= 15), wall time of one full
offline round (median of 10, target < 2 s), and LLM calls per round from the EMF metrics
(target <= 2 when nothing is rejected).

    python bench/mode1_round.py [--runs 10]
"""

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.command import print_measure
from slea_local.demo_aws import DEMO_USER, seeded_local_aws


def measure(runs: int = 10) -> dict[str, Any]:
    from slea_local.executions import LocalStepFunctions

    with seeded_local_aws() as aws:
        runtime = aws.runtime
        with LocalStepFunctions(runtime) as step_functions:

            def run(count: int, name: str) -> Any:
                execution_input = {"user_id": DEMO_USER, "session_id": name, "category": "technical", "count": count}
                return step_functions.run("GenerateRoundStateMachine", execution_input, name=name)

            five, twenty = run(5, "bench-5"), run(20, "bench-20")
            calls_before = runtime.metric_total("LLMCalls")
            seconds = []
            for number in range(runs):
                started = time.perf_counter()
                execution = run(5, f"bench-time-{number}")
                seconds.append(time.perf_counter() - started)
                assert execution.status == "SUCCEEDED", execution.cause
            calls_per_round = (runtime.metric_total("LLMCalls") - calls_before) / runs
    return {
        "transitions_count_5": five.transitions,
        "transitions_count_20": twenty.transitions,
        "valid_count_5": five.output["total_valid"],
        "valid_count_20": twenty.output["total_valid"],
        "round_wall_seconds_median_of_10": round(statistics.median(seconds), 3),
        "llm_calls_per_round": calls_per_round,
    }


def main() -> None:
    print_measure(measure, __doc__, ("--runs", 10))


if __name__ == "__main__":
    main()
