"""An answer that is another item's reference: pasted into each short-answer item of a session,
through the HTTP API on the local AWS (offline provider, demo seed), the reference answer of the
session's next item. What matters: how many are marked correct (must be 0), and how many are
finalised rather than sent to a reviewer.

Each session is a new learner's round of short-answer items (a learner answers a question once);
item i gets item (i+1)'s reference, read from the questions table as a learner would have read
it in that item's feedback. With `--across`, item i gets instead the reference of an item of the
PREVIOUS session (another learner's, of the same category) whose stem differs: the reference of
another concept that the session's own items cannot reveal (grading/reference_prints.py).

    python bench/pasted_references.py [--sessions 12] [--count 5] [--across]
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


def measure(sessions: int = 12, count: int = 5, across: bool = False) -> dict[str, Any]:
    import boto3

    from slea_local.executions import LocalStepFunctions
    from slea_local.http import HttpApiAdapter, call

    outcomes: list[dict[str, Any]] = []
    previous: list[tuple[str, str]] = []  # (stem, reference) of the previous session's items
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
                stems = [str(q.get("stem") or "") for q in shown]
                for index, question in enumerate(shown):
                    if across:
                        others = [ref for stem, ref in previous if ref and stem not in stems]
                        pasted = others[index % len(others)] if others else None
                    else:
                        pasted = references[(index + 1) % len(shown)] if len(shown) >= 2 else None
                    if not pasted:
                        continue
                    body = {"question_id": question["question_id"], "user_answer": pasted}
                    status, _, graded = call(http, "POST", f"/sessions/{session}/answers", body, learner)
                    if status == 200:
                        outcomes.append(graded)
                previous = list(zip(stems, [str(ref or "") for ref in references], strict=True))
    return {
        "sessions": sessions,
        "source": "the previous session's items" if across else "the session's next item",
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
    parser.add_argument("--across", action="store_true", help="paste references of another session's items")
    arguments = parser.parse_args()
    print(json.dumps(measure(arguments.sessions, arguments.count, arguments.across), indent=2))


if __name__ == "__main__":
    main()
