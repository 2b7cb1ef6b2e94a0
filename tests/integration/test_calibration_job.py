"""The scheduled calibration job (CalibrateItemsFunction) on moto, with answers simulated from
known difficulties: it moves b toward the truth, flags and queues a misfitting item with its
reason, is idempotent, never requeues what a reviewer has seen for the same data, and stops
before its deadline."""

import json
import math
import random
from decimal import Decimal
from typing import Any

import boto3
import pytest

from slea.measurement.irt import p_correct
from slea.measurement.scale import label_to_b

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
                batch.put_item(
                    Item={
                        "session_id": f"s-{user}",
                        "attempt_key": f"{item_id}#{number}",
                        "question_id": item_id,
                        "user_id": user,
                        "score": 100 if correct else 0,
                        "is_correct": correct,
                        "question_type": "short_answer",
                        "graded_at": f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z",
                        "user_answer": "not read by the job",
                    }
                )


def stored(cloud, item_id: str) -> dict[str, Any]:
    return table(cloud, "QuestionsTable").get_item(Key={"question_id": item_id}, ConsistentRead=True)["Item"]


def run_job(runtime, event=None):
    return runtime.invoke("calibrate_items", event or {})


@pytest.fixture
def simulated(cloud, runtime):
    simulate(cloud)
    return runtime


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
    assert simulated.metric_total("ItemsCalibrated") == len(ITEMS) + 1
    assert simulated.metric_total("CalibrationAttemptsRead") == LEARNERS * 11


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
    assert simulated.metric_total("ItemsFlaggedByCalibration") == run["items_flagged"]


def test_a_rerun_with_the_same_data_writes_nothing_new(simulated, cloud):
    run_job(simulated)
    before = {item_id: stored(cloud, item_id) for item_id in [*ITEMS, MISFIT]}
    again = run_job(simulated)
    assert (again["items_calibrated"], again["items_flagged"]) == (0, 0)
    assert again["items_unchanged"] == len(ITEMS) + 1
    assert {item_id: stored(cloud, item_id) for item_id in before} == before


def test_a_reviewed_item_is_not_queued_again_for_the_same_data_but_is_once_the_data_doubles(simulated, cloud):
    run_job(simulated)
    # A reviewer accepts it: the review route removes it from the queue (slea.logic.review.actions).
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


def test_old_attempts_and_copies_count_on_their_bank_item_and_others_are_skipped(cloud, runtime):
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
    run = run_job(runtime)
    assert (run["attempts_read"], run["responses"], run["items_calibrated"]) == (4, 3, 1)
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


def test_the_scan_stops_before_the_deadline_and_nothing_is_written(simulated, cloud):
    from slea.logic.jobs.calibration import calibrate_items

    # 100 s at the start; every look at the clock costs 10 s: the scan may use 50 s.
    run = _in_function(cloud, lambda: calibrate_items(Clock(100_000, 10_000), page_size=50))
    assert (run.complete, run.stopped) == (False, "scan")
    assert 0 < run.attempts_read < LEARNERS * 11
    assert run.items_calibrated == 0
    assert "calibration" not in stored(cloud, "item-00")


def test_writing_stops_before_the_deadline_and_the_next_run_finishes(simulated, cloud):
    from slea.logic.jobs.calibration import WRITE_RESERVE_MS, calibrate_items

    clock = Clock(WRITE_RESERVE_MS + 6_000, 1_000)  # a few looks, then the write reserve is reached
    first = _in_function(cloud, lambda: calibrate_items(clock))
    assert (first.complete, first.stopped) == (False, "write")
    assert first.items_left > 0
    assert first.items_calibrated + first.items_left == len(ITEMS) + 1
    second = run_job(simulated)
    assert second["complete"] is True
    assert second["items_calibrated"] == first.items_left  # the rest; the written ones are current


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


def aberrant_answers(cloud) -> None:
    with table(cloud, "AttemptsTable").batch_writer() as batch:
        for number, item_id in enumerate([*ITEMS, MISFIT]):
            label = ITEMS[item_id][0] if item_id in ITEMS else 5
            correct = label >= 6
            batch.put_item(
                Item={
                    "session_id": "s-aberrant",
                    "attempt_key": f"{item_id}#aberrant",
                    "question_id": item_id,
                    "user_id": ABERRANT,
                    "score": 100 if correct else 0,
                    "is_correct": correct,
                    "question_type": "short_answer",
                    "graded_at": f"2026-01-02T00:00:{number:02d}Z",
                }
            )
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
    assert "review" not in json.dumps(mine)
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
