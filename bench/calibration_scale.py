"""How far one invocation of the calibration job goes (docs/benchmarks.md): attempts refitted per
second by the pure refit (slea.measurement.calibration.calibrate) alone and by the whole job on moto
(Scan, bank items read, refit, writes), extrapolated to one 15-minute Lambda invocation.

The bank: ITEMS items, labels 1-10; learners theta ~ N(0, 1) each answer ANSWERS_PER_LEARNER items
drawn at random, scored from the Rasch model. The refit's cost grows with the number of answers (each
EM round visits every answer a fixed number of times), so attempts per second is the figure that
extrapolates; moto is slower than DynamoDB, so the job's figure on moto is a floor.

    python bench/calibration_scale.py [--attempts 4000 16000] [--job-attempts 4000]
"""

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import LocalCloud, prepare_process_environment  # noqa: E402

ITEMS = 200
ANSWERS_PER_LEARNER = 20
INVOCATION_SECONDS = 900
SCAN_SHARE = 0.5  # slea.logic.jobs.calibration: reading may use half of the invocation


def _simulated(attempts: int, seed: int) -> tuple[dict[str, int], list[tuple[str, str, int]]]:
    """Item labels, and (learner, item, score 0/100) answers drawn from the Rasch model."""
    from slea.measurement.irt import p_correct
    from slea.measurement.scale import label_to_b

    rng = random.Random(seed)
    labels = {f"item-{n:04d}": 1 + n % 10 for n in range(ITEMS)}
    truth = {item: label_to_b(label) + rng.gauss(0.0, 0.7) for item, label in labels.items()}
    answers = []
    for learner_number in range(attempts // ANSWERS_PER_LEARNER):
        learner, theta = f"learner-{learner_number:06d}", rng.gauss(0.0, 1.0)
        for item in rng.sample(sorted(labels), ANSWERS_PER_LEARNER):
            answers.append((learner, item, 100 if rng.random() < p_correct(theta, truth[item]) else 0))
    return labels, answers


def measure_refit(attempts: int, seed: int = 3) -> dict[str, Any]:
    from slea.measurement.calibration import Response, calibrate
    from slea.measurement.items import ItemDifficulty

    labels, answers = _simulated(attempts, seed)
    responses = [Response(item, learner, score / 100) for learner, item, score in answers]
    priors = {item: ItemDifficulty.from_label(label) for item, label in labels.items()}
    started = time.perf_counter()
    calibrate(responses, priors)
    seconds = time.perf_counter() - started
    return {
        "attempts": len(responses),
        "seconds": round(seconds, 2),
        "attempts_per_second": round(len(responses) / seconds),
    }


def measure_job(attempts: int, seed: int = 5) -> dict[str, Any]:
    import boto3

    from slea_local.runtime import LocalRuntime

    labels, answers = _simulated(attempts, seed)
    prepare_process_environment()
    with LocalCloud() as cloud:
        questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
        with questions.batch_writer() as batch:
            for item, label in labels.items():
                batch.put_item(
                    Item={
                        "question_id": item,
                        "item_type": "short_answer",
                        "difficulty": label,
                        "category": "technical",
                    }
                )
        attempts_table = boto3.resource("dynamodb").Table(cloud.table_name("AttemptsTable"))
        with attempts_table.batch_writer() as batch:
            for number, (learner, item, score) in enumerate(answers):
                batch.put_item(
                    Item={
                        "session_id": f"s-{learner}",
                        "attempt_key": f"{item}#{number}",
                        "question_id": item,
                        "user_id": learner,
                        "score": score,
                        "is_correct": score == 100,
                        "question_type": "short_answer",
                        "graded_at": "2026-01-01T00:00:00Z",
                        "user_answer": "an answer the job never reads " * 4,
                    }
                )
        runtime = LocalRuntime(cloud)
        started = time.perf_counter()
        run = runtime.invoke("calibrate_items", {})
        seconds = time.perf_counter() - started
    return {
        "attempts": run["attempts_read"],
        "items_written": run["items_calibrated"],
        "seconds": round(seconds, 2),
        "attempts_per_second": round(run["attempts_read"] / seconds),
    }


def measure(refit_sizes: tuple[int, ...] = (4_000, 16_000), job_attempts: int = 4_000) -> dict[str, Any]:
    refits = [measure_refit(size) for size in refit_sizes]
    job = measure_job(job_attempts)
    refit_rate = min(result["attempts_per_second"] for result in refits)
    # The refit gets the half of the invocation the reading does not use.
    return {
        "refit_alone": refits,
        "job_on_moto": job,
        "attempts_per_15_minute_invocation": {
            "refit_bound": int(refit_rate * INVOCATION_SECONDS * (1 - SCAN_SHARE)),
            "job_on_moto": int(job["attempts_per_second"] * INVOCATION_SECONDS * (1 - SCAN_SHARE)),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, nargs="+", default=[4_000, 16_000])
    parser.add_argument("--job-attempts", type=int, default=4_000)
    arguments = parser.parse_args()
    print(json.dumps(measure(tuple(arguments.attempts), arguments.job_attempts), indent=2))


if __name__ == "__main__":
    main()
