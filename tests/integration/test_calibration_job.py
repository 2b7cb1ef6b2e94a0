"""The calibration refit (CalibrationRefitStateMachine: the attempts table's point-in-time export,
each data file reduced by a child of the distributed map, then the fit in CalibrateItemsFunction)
on moto and the local Step Functions interpreter, with answers simulated from known difficulties:
it moves b toward the truth, flags and queues a misfitting item with its reason, gives the values
the earlier Scan of the table gave, is idempotent (also after a fault while writing), never
requeues what a reviewer has seen for the same data, fails cleanly when the export fails, and
stops before its deadline."""

import gzip
import itertools
import json
import math
import random
from decimal import Decimal
from typing import Any

import boto3
import pytest

from slea.measurement.irt import p_correct
from slea.measurement.scale import label_to_b
from slea_local.executions import LocalStepFunctions

CATEGORY = "technical"
LEARNERS = 120
# (label, the item's true b offset from its label's b): labels off by up to 1.2 logits.
ITEMS = {
    f"item-{n:02d}": (label, offset)
    for n, (label, offset) in enumerate(
        [(2, 1.2), (3, -1.0), (4, 0.9), (5, -1.2), (6, 1.0), (7, -0.9), (8, 1.1), (9, -1.1), (5, 0.0), (6, -0.4)]
    )
}
MISFIT = "item-misfit"  # answers at random, whatever the learner's ability


def truth(item_id: str) -> float:
    label, offset = ITEMS[item_id]
    return label_to_b(label) + offset


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def bank_item(item_id: str, label: int, **extra: Any) -> dict[str, Any]:
    return {
        "question_id": item_id,
        "item_id": item_id,
        "item_type": "short_answer",  # partial credit, no guessing floor: the cleanest signal
        "stem": f"Explain concept {item_id} " + "in detail " * 30,
        "difficulty": label,
        "category": CATEGORY,
        "bank_key": f"{CATEGORY}#en",
        "difficulty_b": Decimal(str(label_to_b(label))),
        "status": "active",
        **extra,
    }


def short_answer(item_id: str, user: str, session_id: str, key: str, correct: bool, at: str) -> dict[str, Any]:
    """`user`'s attempt at `item_id`, graded right or wrong at `at` (its attempt key item#`key`)."""
    return {
        "session_id": session_id,
        "attempt_key": f"{item_id}#{key}",
        "question_id": item_id,
        "user_id": user,
        "score": 100 if correct else 0,
        "is_correct": correct,
        "question_type": "short_answer",
        "graded_at": at,
    }


def simulate(cloud, seed: int = 7, learners: int = LEARNERS) -> None:
    """Bank items and every learner's answer to each, drawn from the Rasch model."""
    rng = random.Random(seed)
    questions, attempts = table(cloud, "QuestionsTable"), table(cloud, "AttemptsTable")
    with questions.batch_writer() as batch:
        for item_id, (label, _) in ITEMS.items():
            batch.put_item(Item=bank_item(item_id, label))
        batch.put_item(Item=bank_item(MISFIT, 5))
    with attempts.batch_writer() as batch:
        for number in range(learners):
            user, theta = f"learner-{seed}-{number:04d}", rng.gauss(0.0, 1.0)
            for item_id in [*ITEMS, MISFIT]:
                chance = 0.5 if item_id == MISFIT else p_correct(theta, truth(item_id))
                correct = rng.random() < chance
                at = f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z"
                answer = short_answer(item_id, user, f"s-{user}", str(number), correct, at)
                batch.put_item(Item={**answer, "user_answer": "not read by the job"})


def stored(cloud, item_id: str) -> dict[str, Any]:
    return table(cloud, "QuestionsTable").get_item(Key={"question_id": item_id}, ConsistentRead=True)["Item"]


REFIT = "CalibrationRefitStateMachine"
_RUNS = itertools.count(1)


@pytest.fixture
def refit(runtime):
    """The state machines of template.yaml on the local interpreter, over tables with no demo data."""
    with LocalStepFunctions(runtime) as local:
        yield local


def run_refit(refit, expect="SUCCEEDED"):
    """One scheduled run of the refit (the export polled at once); the fit's report."""
    execution = refit.run(REFIT, {"poll_seconds": 0}, name=f"refit-{next(_RUNS)}")
    assert execution.status == expect, (execution.error, execution.cause, execution.states_entered)
    return execution.output


def run_job(refit):
    return run_refit(refit)


@pytest.fixture
def simulated(cloud, refit):
    simulate(cloud)
    return refit


def metric_total(refit, name):
    return refit.runtime.metric_total(name)


def rmse(values):
    return math.sqrt(sum(value * value for value in values) / len(values))


def test_the_job_moves_difficulties_toward_the_truth_and_stores_the_statistics(simulated, cloud):
    run = run_job(simulated)
    assert run["complete"] is True
    assert (run["attempts_read"], run["responses"]) == (LEARNERS * 11, LEARNERS * 11)
    assert run["items_calibrated"] == len(ITEMS) + 1
    label_error = rmse([label_to_b(ITEMS[i][0]) - truth(i) for i in ITEMS])
    calibrated = {item_id: stored(cloud, item_id) for item_id in ITEMS}
    calibrated_error = rmse([float(calibrated[i]["difficulty_b"]) - truth(i) for i in ITEMS])
    assert calibrated_error <= 0.6 * label_error, (calibrated_error, label_error)
    item = calibrated["item-00"]
    statistics = item["calibration"]
    assert set(statistics) >= {
        "b",
        "se",
        "answers",
        "facility",
        "discrimination",
        "infit",
        "outfit",
        "exposure",
        "calibrated_at",
    }
    assert statistics["b"] == item["difficulty_b"]
    assert float(item["difficulty_precision"]) == pytest.approx(1 / float(statistics["se"]) ** 2, rel=1e-3)
    assert statistics["answers"] == LEARNERS
    assert statistics["exposure"] == 1  # every learner of the category answered it
    assert 0 < statistics["facility"] < 1
    assert statistics["discrimination"] > 0.2
    assert metric_total(simulated, "ItemsCalibrated") == len(ITEMS) + 1
    assert metric_total(simulated, "CalibrationAttemptsRead") == LEARNERS * 11
    assert metric_total(simulated, "CalibrationAnswersReduced") == LEARNERS * 11


def test_a_misfitting_item_is_flagged_and_queued_with_its_reason(simulated, cloud):
    run = run_job(simulated)
    misfit = stored(cloud, MISFIT)
    assert "misfit" in misfit["calibration"]["flags"]
    assert misfit["review_state"] == "open"
    assert "misfit" in misfit["review_reasons"]
    # Every learner answered it; those whose own patterns misfit (person fit) are left out.
    assert misfit["calibration_flags"]["misfit"] == LEARNERS - run["learners_excluded"]
    assert run["learners_excluded"] <= 0.03 * LEARNERS  # honest learners: about the 1% cut's rate
    fitting = [stored(cloud, item_id) for item_id in ITEMS]
    assert not any("misfit" in item["calibration"]["flags"] for item in fitting)
    assert run["items_flagged"] == 1 + sum("review_state" in item for item in fitting)  # label_far ones too
    assert metric_total(simulated, "ItemsFlaggedByCalibration") == run["items_flagged"]


def test_a_rerun_with_the_same_data_writes_nothing_new(simulated, cloud):
    run_job(simulated)
    before = {item_id: stored(cloud, item_id) for item_id in [*ITEMS, MISFIT]}
    again = run_job(simulated)
    assert (again["items_calibrated"], again["items_flagged"]) == (0, 0)
    assert again["items_unchanged"] == len(ITEMS) + 1
    assert {item_id: stored(cloud, item_id) for item_id in before} == before


def test_a_reviewed_item_is_not_queued_again_for_the_same_data_but_is_once_the_data_doubles(simulated, cloud):
    run_job(simulated)
    # A reviewer accepts it: the review route removes it from the queue (slea.logic.review.grades).
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": MISFIT}, UpdateExpression="REMOVE review_state, queued_at, review_reasons"
    )
    run_job(simulated)
    assert "review_state" not in stored(cloud, MISFIT)
    simulate(cloud, seed=8)  # as many new learners again: twice the evidence
    run = run_job(simulated)
    requeued = stored(cloud, MISFIT)
    assert run["complete"] is True
    assert (requeued["review_state"], requeued["review_reasons"]) == ("open", {"misfit"})
    assert requeued["calibration_flags"]["misfit"] == 2 * LEARNERS - run["learners_excluded"]
    assert run["learners_excluded"] <= 0.03 * 2 * LEARNERS


def test_a_retired_item_is_calibrated_but_never_queued(simulated, cloud):
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": MISFIT},
        UpdateExpression="SET #s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":r": "retired"},
    )
    run_job(simulated)
    retired = stored(cloud, MISFIT)
    assert "misfit" in retired["calibration"]["flags"]
    assert "review_state" not in retired


def test_old_attempts_and_copies_count_on_their_bank_item_and_others_are_skipped(cloud, refit):
    questions, attempts = table(cloud, "QuestionsTable"), table(cloud, "AttemptsTable")
    questions.put_item(
        Item=bank_item("bank-1", 5, item_type="multiple_choice", choices=["A) a", "B) b", "C) c", "D) d"])
    )
    common = {"user_id": "u1", "is_correct": True, "score": 100, "graded_at": "2026-01-01T00:00:00Z"}
    attempts.put_item(Item={"session_id": "s1", "attempt_key": "a", "question_id": "bank-1", **common})
    attempts.put_item(
        Item={
            "session_id": "s2",
            "attempt_key": "b",
            "question_id": "copy-9",
            "item_id": "bank-1",
            **common,
            "user_id": "u2",
        }
    )
    attempts.put_item(Item={"session_id": "s3", "attempt_key": "c", "question_id": "never-saved", **common})
    # u1 again, through another copy of the same item: a learner counts once per item (the first answer).
    attempts.put_item(
        Item={"session_id": "s4", "attempt_key": "d", "question_id": "copy-10", "item_id": "bank-1", **common}
    )
    # A skipped item is no evidence of its difficulty (the export carries the attempt's `skipped`).
    attempts.put_item(
        Item={"session_id": "s5", "attempt_key": "e#skipped", "question_id": "bank-1", **common, "user_id": "u3"}
        | {"skipped": True, "is_correct": False, "score": 0}
    )
    run = run_job(refit)
    assert (run["attempts_read"], run["responses"], run["items_calibrated"]) == (5, 3, 1)
    assert stored(cloud, "bank-1")["calibration"]["answers"] == 2


class Clock:
    """get_remaining_time_in_millis of an invocation that loses `step` ms at every look."""

    def __init__(self, start: int, step: int) -> None:
        self.left, self.step = start, step

    def __call__(self) -> int:
        self.left -= self.step
        return self.left


def _in_function(cloud, action):
    with cloud.environment(cloud.environment_of("CalibrateItemsFunction")):
        return action()


def export_now(refit, run):
    """The export steps as the state machine runs them: start, then describe until done."""
    state = refit.runtime.invoke("calibration_export", {"action": "start", "run": run})
    while state["status"] == "IN_PROGRESS":
        state = refit.runtime.invoke("calibration_export", {"action": "describe", "export": state})
    assert state["status"] == "COMPLETED", state
    return state


def _reduced_into_files(cloud, refit, files):
    """The run's export reduced into `files` files, as a map over that many data files leaves it."""
    from slea.dal import attempt_export

    run = f"reduced-{next(_RUNS)}"
    state = export_now(refit, run)
    listed = boto3.client("s3").list_objects_v2(Bucket=state["bucket"], Prefix=state["files_prefix"])
    keys = [entry["Key"] for entry in listed["Contents"] if attempt_export.is_data_file(entry["Key"])]
    with cloud.environment(cloud.environment_of("CalibrationReduceFunction")):
        answers = [answer for key in keys for answer in attempt_export.export_file_attempts(key)]
        for part in range(files):
            attempt_export.write_reduced(run, f"part-{part}", answers[part::files])
    return run


def test_reading_stops_before_the_deadline_and_nothing_is_written(simulated, cloud):
    from slea.logic.jobs.calibration import calibrate_items

    run = _reduced_into_files(cloud, simulated, files=10)
    # 100 s at the start; every look at the clock costs 10 s: reading may use 50 s.
    report = _in_function(cloud, lambda: calibrate_items(Clock(100_000, 10_000), run))
    assert (report.complete, report.stopped) == (False, "read")
    assert 0 < report.files_read < 10
    assert 0 < report.attempts_read < LEARNERS * 11
    assert report.items_calibrated == 0
    assert "calibration" not in stored(cloud, "item-00")


def test_writing_stops_before_the_deadline_and_the_next_run_finishes(simulated, cloud):
    from slea.logic.jobs.calibration import WRITE_RESERVE_MS, calibrate_items

    run = _reduced_into_files(cloud, simulated, files=1)
    clock = Clock(WRITE_RESERVE_MS + 6_000, 1_000)  # a few looks, then the write reserve is reached
    first = _in_function(cloud, lambda: calibrate_items(clock, run))
    assert (first.complete, first.stopped) == (False, "write")
    assert first.items_left > 0
    assert first.items_calibrated + first.items_left == len(ITEMS) + 1
    second = run_job(simulated)
    assert second["complete"] is True
    assert second["items_calibrated"] == first.items_left  # the rest; the written ones are current


# The fields the earlier job's Scan projected (slea.dal.calibration before the refit read exports).
SCAN_PROJECTION = (
    "item_id",
    "question_id",
    "user_id",
    "score",
    "is_correct",
    "guess_floor",
    "question_type",
    "graded_at",
)


def scanned(cloud):
    """Every attempt as the earlier job read it: a Scan of the table with its projection."""
    from slea.dal.wire_format import from_item

    names = {f"#f{number}": field for number, field in enumerate(SCAN_PROJECTION)}
    pages = (
        boto3.client("dynamodb")
        .get_paginator("scan")
        .paginate(
            TableName=cloud.table_name("AttemptsTable"),
            ProjectionExpression=", ".join(names),
            ExpressionAttributeNames=names,
        )
    )
    return [from_item(item) for page in pages for item in page["Items"]]


def test_the_refit_gives_the_values_the_scan_of_the_table_gave(simulated, cloud, monkeypatch):
    """The export changes where the answers come from, nothing else: the fit fed the earlier
    Scan's answers finds every item's stored calibration already equal to what it computes."""
    from slea.dal import attempt_export
    from slea.logic.jobs.calibration import calibrate_items

    refitted = run_job(simulated)
    assert refitted["items_calibrated"] == len(ITEMS) + 1
    before = {item_id: stored(cloud, item_id) for item_id in [*ITEMS, MISFIT]}
    answers = scanned(cloud)
    assert len(answers) == refitted["attempts_read"]
    monkeypatch.setattr(
        attempt_export,
        "reduced_attempts",
        lambda run, may_continue: attempt_export.ReducedAnswers(attempt_export.CompactAnswers(answers), 1, True),
    )
    from_scan = _in_function(cloud, lambda: calibrate_items(Clock(900_000, 0), "from-a-scan"))
    assert from_scan.complete
    assert (from_scan.items_calibrated, from_scan.items_unchanged) == (0, len(ITEMS) + 1)
    assert from_scan.learners_excluded == refitted["learners_excluded"]
    assert {item_id: stored(cloud, item_id) for item_id in before} == before


def _reduced_files(cloud):
    listed = boto3.client("s3").list_objects_v2(
        Bucket=cloud.physical_names["CalibrationExportBucket"], Prefix="refits/"
    )
    return [entry["Key"] for entry in listed.get("Contents", [])]


def test_a_failed_export_fails_the_run_and_nothing_is_written(simulated, cloud):
    # The bucket is gone: DynamoDB accepts the export, then reports it FAILED.
    s3 = boto3.client("s3")
    s3.delete_bucket(Bucket=cloud.physical_names["CalibrationExportBucket"])
    execution = simulated.run(REFIT, {"poll_seconds": 0}, name="export-fails")
    assert (execution.status, execution.error) == ("FAILED", "ExportFailed")
    assert "DescribeExport" in execution.states_entered
    assert not {"ReduceExportFiles", "Fit"} & set(execution.states_entered)
    assert not any("calibration" in stored(cloud, item_id) for item_id in [*ITEMS, MISFIT])
    assert metric_total(simulated, "CalibrationExportFailed") == 1


def test_an_export_that_cannot_start_fails_the_run_and_nothing_is_written(simulated, cloud):
    # Point-in-time recovery off (template.yaml declares it on): DynamoDB refuses the export.
    boto3.client("dynamodb").update_continuous_backups(
        TableName=cloud.table_name("AttemptsTable"),
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False},
    )
    execution = simulated.run(REFIT, {"poll_seconds": 0}, name="export-refused")
    assert (execution.status, execution.error) == ("FAILED", "ExportFailed")
    assert execution.states_entered == ["StartExport", "ExportFailed"]
    assert not any("calibration" in stored(cloud, item_id) for item_id in [*ITEMS, MISFIT])
    assert _reduced_files(cloud) == []


def test_a_fault_while_writing_fails_the_run_and_the_rerun_finishes_it_idempotently(simulated, cloud, faults):
    written_before_fault = 4
    with faults.dynamodb(
        "calibrate_items",
        "UpdateItem",
        error="InternalServerError",
        when=lambda: faults.attempts["UpdateItem"] > written_before_fault,
    ):
        failed = simulated.run(REFIT, {"poll_seconds": 0}, name="fault-while-writing")
    assert (failed.status, failed.error) == ("FAILED", "DataAccessError")
    partly = {item_id: stored(cloud, item_id) for item_id in [*ITEMS, MISFIT]}
    assert sum("calibration" in item for item in partly.values()) == written_before_fault
    rerun = run_job(simulated)
    assert (rerun["items_unchanged"], rerun["items_calibrated"]) == (
        written_before_fault,
        len(ITEMS) + 1 - written_before_fault,
    )
    for item_id, item in partly.items():  # what the failed run wrote stays as it was written
        if "calibration" in item:
            assert stored(cloud, item_id) == item
    again = run_job(simulated)
    assert (again["items_calibrated"], again["items_flagged"], again["items_unchanged"]) == (0, 0, len(ITEMS) + 1)


def test_every_data_file_of_an_export_is_reduced_and_its_manifests_are_not(simulated, cloud):
    """An export on AWS is many data files with manifests beside them (moto writes one data file):
    more files under the run's export prefix, as AWS lays them out, are each reduced, and their
    answers join the fit; the manifests are listed by the map and skipped."""
    from slea.dal.wire_format import to_item

    bucket, run = cloud.physical_names["CalibrationExportBucket"], "aws-shaped"
    folder = f"exports/{run}/AWSDynamoDB/01700000000000-a1b2c3d4"
    s3 = boto3.client("s3")
    extra = []
    for part in range(3):
        lines = [
            json.dumps(
                {
                    "Item": to_item(
                        {
                            "session_id": f"x{part}",
                            "attempt_key": f"{n}",
                            "question_id": "item-00",
                            "user_id": f"extra-{part}-{n}",
                            "score": 100,
                            "is_correct": True,
                            "graded_at": "2026-02-01T00:00:00Z",
                        }
                    )
                }
            )
            for n in range(5)
        ]
        extra += lines
        s3.put_object(
            Bucket=bucket, Key=f"{folder}/data/part-{part}.json.gz", Body=gzip.compress("\n".join(lines).encode())
        )
    for manifest in ("manifest-files.json", "manifest-summary.json", "manifest-files.md5", "_started"):
        s3.put_object(Bucket=bucket, Key=f"{folder}/{manifest}", Body=b'{"not": "answers"}')
    execution = simulated.run(REFIT, {"poll_seconds": 0}, name=run)
    assert execution.status == "SUCCEEDED", (execution.error, execution.cause)
    assert execution.output["attempts_read"] == LEARNERS * 11 + len(extra)
    assert execution.output["files_read"] == 4  # moto's data file and the three above
    assert stored(cloud, "item-00")["calibration"]["answers"] == LEARNERS + len(extra)


def test_the_local_stack_runs_the_refit_state_machine_on_its_schedule(simulated, cloud):
    """`python -m slea_local serve --calibrate-every N`: the refit, export included, every N seconds."""
    import threading
    import time

    from slea_local.__main__ import _calibrate_every

    stop = threading.Event()
    schedule = threading.Thread(target=_calibrate_every, args=(simulated, 0.05, stop), daemon=True)
    schedule.start()
    deadline = time.monotonic() + 120
    while "calibration" not in stored(cloud, MISFIT) and time.monotonic() < deadline:
        time.sleep(0.2)
    stop.set()
    schedule.join(timeout=120)
    assert not schedule.is_alive()
    assert all("calibration" in stored(cloud, item_id) for item_id in [*ITEMS, MISFIT])
    machine = cloud.physical_names[REFIT]
    runs = boto3.client("stepfunctions").list_executions(stateMachineArn=machine)["executions"]
    assert runs
    assert all(run["name"].startswith("local-refit-") for run in runs)
    assert {run["status"] for run in runs} == {"SUCCEEDED"}


# ---------------------------------------------------------------- learners person fit flags
ABERRANT = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"  # right on the hard items, wrong on the easy ones
ABERRANT_ABILITY = {
    "user_id": ABERRANT,
    "entry": f"ability#{CATEGORY}",
    "category": CATEGORY,
    "theta": Decimal("0.8"),
    "se": Decimal("0.4"),
    "updated_at": "2026-01-02T00:00:10Z",
}


def answers_of(cloud, user, name, day, answer) -> None:
    """`user`'s short answers to every item (session s-`name`, graded on January `day`):
    answer(the item's label) -> (correct, the fields it adds to the attempt)."""
    with table(cloud, "AttemptsTable").batch_writer() as batch:
        for number, item_id in enumerate([*ITEMS, MISFIT]):
            correct, fields = answer(ITEMS[item_id][0] if item_id in ITEMS else 5)
            at = f"2026-01-{day:02d}T00:00:{number:02d}Z"
            batch.put_item(Item={**short_answer(item_id, user, f"s-{name}", name, correct, at), **fields})


def aberrant_answers(cloud) -> None:
    answers_of(cloud, ABERRANT, "aberrant", 2, lambda label: (label >= 6, {}))
    table(cloud, "AbilitiesTable").put_item(Item={**ABERRANT_ABILITY, "answers": 11})


def test_a_flagged_learner_is_marked_for_review_their_level_unchanged_and_unmarked_when_no_longer_flagged(
    simulated, cloud, http
):
    from tests.integration.test_review_api import REVIEWER, token

    aberrant_answers(cloud)
    abilities = table(cloud, "AbilitiesTable")
    run = run_job(simulated)
    assert run["learners_excluded"] >= 1
    record = abilities.get_item(Key={"user_id": ABERRANT, "entry": f"ability#{CATEGORY}"})["Item"]
    # The level is what the answers made it; only the mark is new.
    assert (record["theta"], record["se"], record["answers"]) == (Decimal("0.8"), Decimal("0.4"), 11)
    assert record["review"]["source"] == "person_fit"
    assert "Right on hard items and wrong on easy ones" in record["review"]["reason"]
    listed = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"})["Item"]["learners"]
    assert listed[ABERRANT]["categories"] == [CATEGORY]
    assert listed[ABERRANT]["lz"] < -2.33
    # Reviewers read them with the item analysis (first page), the reason in plain words.
    status, _, body = http("GET", "/review/items?limit=5", None, REVIEWER)
    assert status == 200
    flagged = {learner["user_id"]: learner for learner in body["flagged_learners"]}
    assert flagged[ABERRANT]["reason"] == record["review"]["reason"]
    assert flagged[ABERRANT]["answers"] == 11
    # The learner is not told: their ability reads as before, with no mark (it would tell a cheater
    # that the detector fired).
    status, _, mine = http("GET", "/learners/me/ability", None, token(ABERRANT))
    assert status == 200
    (ability,) = mine["abilities"]
    assert ability["theta"] == 0.8
    # ("pending_review", the answers awaiting a reviewer, is the learner's own count, not the mark.)
    assert "review" not in json.dumps(mine).replace('"pending_review"', "")
    # A rerun on the same data rewrites nothing; once the answers no longer misfit, the mark goes.
    before = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"})["Item"]
    run_job(simulated)
    assert abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"})["Item"] == before
    with table(cloud, "AttemptsTable").batch_writer() as batch:
        for item_id in [*ITEMS, MISFIT]:
            batch.delete_item(Key={"session_id": "s-aberrant", "attempt_key": f"{item_id}#aberrant"})
    run_job(simulated)
    record = abilities.get_item(Key={"user_id": ABERRANT, "entry": f"ability#{CATEGORY}"})["Item"]
    assert "review" not in record
    assert record["theta"] == Decimal("0.8")
    listed = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"})["Item"]["learners"]
    assert ABERRANT not in listed


GAVE_UP = "3f2504e0-4f89-41d3-9a0c-0305e82c3302"  # answered up to their level, then gave up


def given_up_answers(cloud, answer_given_up: str) -> None:
    """Right on every item they answered, and `answer_given_up` to the easiest three (the round
    they abandoned): counted as wrong answers, "wrong on easy ones, right on hard ones"."""

    def answer(label: int) -> tuple[bool, dict[str, str]]:
        given_up = label <= 4
        return not given_up, {"user_answer": answer_given_up if given_up else "an answer"}

    answers_of(cloud, GAVE_UP, "gave-up", 3, answer)


@pytest.mark.parametrize("answer_given_up", ["I don't know", "모르겠습니다"])
def test_a_learner_who_abandoned_a_round_is_not_flagged_while_an_aberrant_one_still_is(
    simulated, cloud, answer_given_up
):
    """An abandoned round ("I don't know" to the rest) is not read as key sharing: person fit counts
    only what was answered (slea.measurement.person_fit), in the same run that flags a real misfit."""
    aberrant_answers(cloud)
    given_up_answers(cloud, answer_given_up)
    run_job(simulated)
    listed = table(cloud, "AbilitiesTable").get_item(Key={"user_id": "#review", "entry": "person-fit"})["Item"]
    assert ABERRANT in listed["learners"]
    assert GAVE_UP not in listed["learners"]


def test_the_export_marks_a_non_answer_declined_and_nothing_else():
    from slea.dal.attempt_export import attempts_of

    def line(answer: str) -> bytes:
        item = {
            "user_id": {"S": "u"},
            "question_id": {"S": "q"},
            "score": {"N": "0"},
            "user_answer": {"S": answer},
            "question_stem": {"S": "What is retrieval-augmented generation?"},
        }
        return json.dumps({"Item": item}).encode()

    answers = [
        "I don't know",
        "모르겠습니다",
        "I really don't know what retrieval-augmented generation is",
        "The answer is 42.",
        "I'm not sure, but it retrieves documents first",  # an answer with a doubt is an answer
    ]
    read = list(attempts_of([line(answer) for answer in answers]))
    assert [attempt.get("declined", False) for attempt in read] == [True, True, True, False, False]
    assert all("user_answer" not in attempt for attempt in read)  # the answer itself is still dropped


def test_the_refit_reads_each_items_draws_for_person_fits_exposure(cloud):
    """The share of learners an item's key was shown to is person fit's covariate (a learner who
    succeeds where keys went round): the refit's read of the bank must bring `draws` with it."""
    from slea.dal.calibration import bank_items

    table(cloud, "QuestionsTable").put_item(Item=bank_item("item-drawn", 5, draws=40))
    table(cloud, "QuestionsTable").put_item(Item=bank_item("item-new", 5))
    with cloud.environment(cloud.environment_of("CalibrateItemsFunction")):
        found = bank_items(["item-drawn", "item-new"])
    assert (found["item-drawn"].draws, found["item-new"].draws) == (40, 0)
