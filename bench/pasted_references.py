"""An answer that is another item's reference: pasted into each short-answer item of a session,
through the HTTP API on the local AWS (offline provider, demo seed), the reference answer of the
session's next item. What matters: how many are marked correct (must be 0), and how many are
finalised rather than sent to a reviewer.

Each session is a new learner's round of short-answer items (a learner answers a question once);
item i gets item (i+1)'s reference, read from the questions table as a learner would have read
it in that item's feedback.

    python bench/pasted_references.py [--sessions 12] [--count 5]
"""

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from slea_local.demo_aws import seeded_local_aws  # noqa: E402


def measure(sessions: int = 12, count: int = 5) -> dict[str, Any]:
    import boto3

    from slea_local.executions import LocalStepFunctions
    from slea_local.http import HttpApiAdapter, call

    outcomes: list[dict[str, Any]] = []
    with seeded_local_aws() as aws:
        table = boto3.resource("dynamodb").Table(aws.cloud.table_name("QuestionsTable"))
        with LocalStepFunctions(aws.runtime) as step_functions:
            http = HttpApiAdapter(aws.runtime)
            for number in range(sessions):
                learner = str(uuid.UUID(int=number + 1, version=4))
                _, _, created = call(http, "POST", "/sessions", None, learner)
                session = created["session_id"]
                request = {"category": "technical", "count": count, "question_types": ["short_answer"]}
                _, _, started = call(http, "POST", f"/sessions/{session}/rounds", request, learner)
                step_functions.watch(started["execution_arn"])
                _, _, listed = call(http, "GET", f"/sessions/{session}/questions", None, learner)
                shown = listed["questions"]
                references = [
                    table.get_item(Key={"question_id": q["question_id"]})["Item"]["answer_schema"].get(
                        "reference_answer"
                    )
                    for q in shown
                ]
                for index, question in enumerate(shown):
                    pasted = references[(index + 1) % len(shown)]
                    if len(shown) < 2 or not pasted:
                        continue
                    body = {"question_id": question["question_id"], "user_answer": pasted}
                    status, _, graded = call(http, "POST", f"/sessions/{session}/answers", body, learner)
                    if status == 200:
                        outcomes.append(graded)
    return {
        "sessions": sessions,
        "pasted": len(outcomes),
        "marked_correct": sum(bool(graded["is_correct"]) for graded in outcomes),
        "finalised": sum(not graded["needs_review"] for graded in outcomes),
        "scores": sorted(int(graded["score"]) for graded in outcomes),
        "target": "0 marked correct",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=12)
    parser.add_argument("--count", type=int, default=5)
    arguments = parser.parse_args()
    print(json.dumps(measure(arguments.sessions, arguments.count), indent=2))


if __name__ == "__main__":
    main()
