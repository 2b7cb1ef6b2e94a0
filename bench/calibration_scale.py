"""How far the calibration refit goes (docs/benchmarks.md, docs/measurement.md):

- the pure refit (slea.measurement.calibration.calibrate) alone, attempts per second;
- the whole refit state machine on moto (export, map over the data files, fit, writes);
- the refit at 10k / 100k / 1M simulated answers from exported files: DYNAMODB_JSON gz data files
  written locally as an export writes them (no moto: moto's export holds the table in one string),
  each reduced by the reduce step's own code (slea.dal.attempt_export), then the fit's own code
  (slea.logic.jobs.calibration: the answers prepared, calibrate_guarded) with the bank items read
  from memory instead of DynamoDB (the storage seam). Seconds of each step, the fit's peak
  memory from its read on, whether the fit's read and refit fit in one 15-minute Lambda
  invocation and its memory, and how many answers one invocation holds by each bound;
- the export's cost per million answers (EXPORT_PRICE_PER_GB, ATTEMPT_BYTES: assumptions, printed).

The bank: ITEMS items, labels 1-10; learners theta ~ N(0, 1) each answer ANSWERS_PER_LEARNER items
drawn at random, scored from the Rasch model. Only AWS measures the export's own duration and the
distributed map's fan-out (their figures here are moto's).

    python bench/calibration_scale.py [--attempts 4000 16000] [--job-attempts 4000]
                                      [--export-sizes 10000 100000 1000000]
"""

import argparse
import gzip
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import LocalCloud, prepare_process_environment  # noqa: E402

ITEMS = 200
ANSWERS_PER_LEARNER = 20
INVOCATION_SECONDS = 900
READ_SHARE = 0.5  # slea.logic.jobs.calibration: reading may use half of the invocation
FIT_MEMORY_MB = 3008  # template.yaml: CalibrateItemsFunction's MemorySize
FIT_BASE_MB = 100  # the fit function before it reads: its modules and clients (72 MB here) and the runtime
ANSWERS_PER_DATA_FILE = 100_000  # how many items an export data file holds here (AWS decides on AWS)
# The export is billed per GB of the table's size at the export time (AWS pricing, DynamoDB
# "Export to Amazon S3", us-east-1; other regions differ by a few per cent).
EXPORT_PRICE_PER_GB = 0.10
# An attempt item's stored size: stem, choices, the learner's answer, the feedback and explanation,
# ids and grading fields. The simulated items below carry about this much text.
ATTEMPT_BYTES = 2_000


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
    """The refit state machine on moto, end to end (export, map, fit, writes)."""
    import boto3

    from slea_local.executions import LocalStepFunctions
    from slea_local.runtime import LocalRuntime

    labels, answers = _simulated(attempts, seed)
    prepare_process_environment()
    with LocalCloud() as cloud:
        questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
        with questions.batch_writer() as batch:
            for item, label in labels.items():
                batch.put_item(Item=_bank_item(item, label))
        attempts_table = boto3.resource("dynamodb").Table(cloud.table_name("AttemptsTable"))
        with attempts_table.batch_writer() as batch:
            for number, answer in enumerate(answers):
                batch.put_item(Item=_attempt(number, *answer))
        with LocalStepFunctions(LocalRuntime(cloud)) as step_functions:
            started = time.perf_counter()
            execution = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 0}, name="bench")
            seconds = time.perf_counter() - started
    run = execution.output
    return {
        "attempts": run["attempts_read"],
        "items_written": run["items_calibrated"],
        "seconds": round(seconds, 2),
        "attempts_per_second": round(run["attempts_read"] / seconds),
    }


def _bank_item(item: str, label: int) -> dict[str, Any]:
    return {"question_id": item, "item_type": "short_answer", "difficulty": label, "category": "technical"}


def _attempt(number: int, learner: str, item: str, score: int) -> dict[str, Any]:
    """An attempt with about ATTEMPT_BYTES of the text a graded answer stores beside its grade."""
    return {
        "session_id": f"s-{learner}",
        "attempt_key": f"{item}#{number}",
        "attempt_id": f"a-{number:09d}",
        "question_id": item,
        "item_id": item,
        "user_id": learner,
        "score": score,
        "is_correct": score == 100,
        "question_type": "short_answer",
        "graded_at": "2026-01-01T00:00:00Z",
        "question_stem": "Explain how retrieval-augmented generation grounds a model's answer " * 3,
        "user_answer": "an answer the refit never reads " * 6,
        "feedback": "what the learner got right, what is missing, and why it matters " * 16,
        "explanation": "the reference answer and the reasoning that leads to it " * 8,
    }


def _data_files(answers: list[tuple[str, str, int]], folder: Path) -> list[Path]:
    """The answers as an export's data files: gzip, one {"Item": DynamoDB JSON} per line."""
    from slea.dal.wire_format import to_item

    files = []
    for start in range(0, len(answers), ANSWERS_PER_DATA_FILE):
        path = folder / f"data-{start // ANSWERS_PER_DATA_FILE:04d}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as data:
            for number, answer in enumerate(answers[start : start + ANSWERS_PER_DATA_FILE], start):
                data.write(json.dumps({"Item": to_item(_attempt(number, *answer))}) + "\n")
        files.append(path)
    return files


def _peak_memory_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _reset_peak() -> bool:
    """Start the process's peak resident memory afresh (Linux: /proc/self/clear_refs); False
    where that is not possible (then the peaks below are the process's so far)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _memory_mb(field: str) -> int:
    """VmHWM (the peak since the last reset) or VmRSS (now) of this process, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024)
    return _peak_memory_mb()


def measure_export_refit(attempts: int, seed: int = 11, refit_rate: float | None = None) -> dict[str, Any]:
    """The refit's steps on `attempts` answers from exported files (see the module's docstring).
    With `refit_rate` (answers per second measured on a smaller size) the refit itself is not run
    but extrapolated: its cost is linear in the answers (a fixed number of passes over them)."""
    from slea.dal import attempt_export
    from slea.dal import calibration as store
    from slea.dal.calibration_records import calibration_item
    from slea.logic.jobs import calibration as job
    from slea.measurement.calibration import calibrate_guarded
    from slea.measurement.items import ItemDifficulty

    labels, answers = _simulated(attempts, seed)
    bank = {item: calibration_item(_bank_item(item, label)) for item, label in labels.items()}
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        files = _data_files(answers, folder)
        del answers
        export_bytes = sum(path.stat().st_size for path in files)
        # The map's children: each data file streamed, reduced to compact answers.
        started = time.perf_counter()
        reduced = []
        for path in files:
            with gzip.open(path, "rb") as lines:
                body, _ = attempt_export.compact(attempt_export.attempts_of(lines))
            reduced.append(body)
        reduce_seconds = time.perf_counter() - started
        # The fit: every reduced file read, the answers prepared (then the answers as read let go,
        # as the job does), the guarded refit. Memory: the peak from the read on, over what the
        # process held before it (the reduced files' bytes, the interpreter and its modules).
        before_fit_mb = _memory_mb("VmRSS")
        peak_reset = _reset_peak()
        started = time.perf_counter()
        shared: dict[str, str] = {}
        read = attempt_export.CompactAnswers()
        for body in reduced:
            read.extend(attempt_export.reduced_answers(gzip.decompress(body).splitlines(), shared))
        read_seconds = time.perf_counter() - started
        answers_read = len(read)
        started = time.perf_counter()
        with mock.patch.object(store, "bank_items", lambda ids: {i: bank[i] for i in set(ids) if i in bank}):
            prepared = job._prepare(read)
        del read, shared
        items_fitted = len(prepared.items)
        if refit_rate is None:
            priors = {item: ItemDifficulty.from_label(float(bank[item].difficulty or 5.5)) for item in prepared.items}
            items_fitted = len(calibrate_guarded(prepared.responses, priors).items)
            fit_seconds = time.perf_counter() - started
        else:
            fit_seconds = time.perf_counter() - started + len(prepared.responses) / refit_rate
        fit_peak_mb = _memory_mb("VmHWM") - before_fit_mb
    fit_invocation = read_seconds + fit_seconds
    return {
        "answers": answers_read,
        "data_files": len(files),
        "export_gz_mb": round(export_bytes / 1e6, 1),
        "reduced_gz_mb": round(sum(map(len, reduced)) / 1e6, 1),
        "reduce_seconds_all_files": round(reduce_seconds, 1),
        "reduce_seconds_per_data_file": round(reduce_seconds / len(files), 1),
        "fit_read_seconds": round(read_seconds, 1),
        "fit_refit_seconds": round(fit_seconds, 1),
        "fit_refit_extrapolated": refit_rate is not None,
        "refit_answers_per_second": round(answers_read / fit_seconds),
        "fit_invocation_seconds": round(fit_invocation, 1),
        "fits_in_15_minutes": read_seconds < INVOCATION_SECONDS * READ_SHARE
        and fit_invocation < INVOCATION_SECONDS - 60,
        "items_fitted": items_fitted,
        "fit_peak_memory_mb": fit_peak_mb if peak_reset else None,
        "fit_memory_bytes_per_answer": round(fit_peak_mb * 2**20 / answers_read) if peak_reset else None,
        "fits_in_memory": fit_peak_mb + FIT_BASE_MB < FIT_MEMORY_MB if peak_reset else None,
        # One fit invocation's bounds if time and memory keep growing linearly with the answers
        # (a fixed number of passes over them; meaningful from about 100,000 answers, below which
        # fixed costs dominate): time leaves a minute for the writes.
        "answers_per_fit_by_time": round(answers_read * (INVOCATION_SECONDS - 60) / fit_invocation, -4),
        "answers_per_fit_by_memory": round(answers_read * (FIT_MEMORY_MB - FIT_BASE_MB) / fit_peak_mb, -4)
        if peak_reset and fit_peak_mb > 0
        else None,
        "peak_memory_mb_so_far": _peak_memory_mb(),
    }


def _export_refits(sizes: tuple[int, ...], fit_up_to: int) -> list[dict[str, Any]]:
    """Each size in turn (smallest first, so the peak memory so far is the size's); above
    `fit_up_to` the refit is extrapolated from the largest size fitted."""
    results: list[dict[str, Any]] = []
    for size in sorted(sizes):
        fitted = [result for result in results if not result["fit_refit_extrapolated"]]
        rate = fitted[-1]["refit_answers_per_second"] if size > fit_up_to and fitted else None
        results.append(measure_export_refit(size, refit_rate=rate))
    return results


def export_cost(attempt_bytes: int = ATTEMPT_BYTES, price_per_gb: float = EXPORT_PRICE_PER_GB) -> dict[str, Any]:
    """What one full export costs per million answers in the table (the export's only charge that
    grows with history; S3 requests, Step Functions transitions and Lambda time are printed apart)."""
    gigabytes = attempt_bytes * 1_000_000 / 2**30
    return {
        "assumed_attempt_bytes": attempt_bytes,
        "assumed_price_per_gb": price_per_gb,
        "table_gb_per_million_answers": round(gigabytes, 2),
        "export_usd_per_million_answers": round(gigabytes * price_per_gb, 3),
        "daily_refit_usd_per_month_per_million_answers": round(30 * gigabytes * price_per_gb, 2),
    }


def measure(
    refit_sizes: tuple[int, ...] = (4_000, 16_000),
    job_attempts: int = 4_000,
    export_sizes: tuple[int, ...] = (10_000, 100_000),
    fit_up_to: int = 100_000,
) -> dict[str, Any]:
    refits = [measure_refit(size) for size in refit_sizes]
    job = measure_job(job_attempts)
    refit_rate = min(result["attempts_per_second"] for result in refits)
    return {
        "refit_alone": refits,
        "refit_state_machine_on_moto": job,
        "attempts_per_15_minute_invocation": {"refit_bound": int(refit_rate * INVOCATION_SECONDS * (1 - READ_SHARE))},
        "refit_from_exported_files": _export_refits(export_sizes, fit_up_to),
        "export_cost": export_cost(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, nargs="+", default=[4_000, 16_000])
    parser.add_argument("--job-attempts", type=int, default=4_000)
    parser.add_argument("--export-sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--fit-up-to", type=int, default=100_000, help="larger sizes: the refit itself is extrapolated (linear)"
    )
    arguments = parser.parse_args()
    figures = measure(
        tuple(arguments.attempts), arguments.job_attempts, tuple(arguments.export_sizes), arguments.fit_up_to
    )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
