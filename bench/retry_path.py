"""Tool 5's retry path under faults: N questions saved in batches while a share of the writes
fail, then the retry queue drained by the worker while a share of the messages arrive twice.
Counts questions lost and duplicated (target 0 and 0).

    python bench/retry_path.py [--questions 1000] [--write-failure-rate 0.2] [--duplicate-rate 0.1]
"""

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from slea_local.cloud import LocalCloud, prepare_process_environment  # noqa: E402

BATCH = 20


def _question(number: int) -> dict[str, Any]:
    return {
        "item_type": "true_false",
        "stem": f"Statement {number}: retrieval quality bounds answer quality in a RAG pipeline.",
        "choices": ["True", "False"],
        "correct_key": "True",
        "difficulty": 1 + number % 10,
        "categories": ["technical"],
        "round_id": f"bench_session_{number // BATCH}_1_2026-11-22T10:00:00Z",
        "validation_score": 0.9,
    }


def measure(questions: int, write_failure_rate: float, duplicate_rate: float, seed: int = 11) -> dict[str, Any]:
    import boto3

    from slea_local.faults import InjectedFaults
    from slea_local.runtime import LocalRuntime, QueuePoller

    prepare_process_environment()
    rng = random.Random(seed)
    sent = [_question(number) for number in range(questions)]
    with LocalCloud() as cloud:
        runtime = LocalRuntime(cloud)
        faults = InjectedFaults()
        queued = 0
        with faults.dynamodb(
            "save_generated_question",
            "PutItem",
            error="InternalServerError",
            when=lambda: rng.random() < write_failure_rate,
        ):
            for start in range(0, questions, BATCH):
                queued += runtime.invoke("save_generated_question", {"questions": sent[start : start + BATCH]})[
                    "queued_for_retry"
                ]
        duplicates_delivered = 0

        def redeliver(_: dict[str, Any]) -> bool:
            nonlocal duplicates_delivered
            twice = rng.random() < duplicate_rate
            duplicates_delivered += twice
            return twice

        report = QueuePoller(runtime, "RetryQueue").drain(redeliver=redeliver)
        paginator = boto3.client("dynamodb").get_paginator("scan")
        stems = [
            item["stem"]["S"]
            for page in paginator.paginate(TableName=cloud.table_name("QuestionsTable"))
            for item in page["Items"]
        ]
    sent_stems = {question["stem"] for question in sent}
    return {
        "questions": questions,
        "writes_failed": faults.failures["PutItem"],
        "queued_for_retry": queued,
        "messages_delivered_twice": duplicates_delivered,
        "worker_invocations": report.invocations,
        "questions_lost": len(sent_stems - set(stems)),
        "questions_duplicated": len(stems) - len(set(stems)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--write-failure-rate", type=float, default=0.2)
    parser.add_argument("--duplicate-rate", type=float, default=0.1)
    args = parser.parse_args()
    print(json.dumps(measure(args.questions, args.write_failure_rate, args.duplicate_rate), indent=2))


if __name__ == "__main__":
    main()
