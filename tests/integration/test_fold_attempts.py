"""The stream-fed calibration (FoldAttemptsFunction) on moto, driven with real records read from
the attempts table's stream: the sums equal those computed from the same answers, each answer is
folded once whatever is redelivered or retried, a reviewer's correction folds its difference once,
a fault mid-batch reports only the failed records, and answers through the HTTP API reach the
reviewers' item analysis."""

import random
from decimal import Decimal
from typing import Any

import boto3
import pytest

from slea.measurement.scale import label_to_b
from slea.measurement.sufficient import ItemSums, LearnerSums, item_part, learner_part
from slea_local.runtime import StreamPoller

CATEGORY = "technical"
ITEMS = {"item-a": 4, "item-b": 6, "item-c": 8}
FLOORS = {"item-a": 0.25, "item-b": 0.5, "item-c": 0.0}
ITEM_FIELDS = ("answers", "score", "expected", "variance", "squared", "standardised")
LEARNER_FIELDS = ("answers", "observed", "expected", "variance")


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def seed_items(cloud) -> None:
    with table(cloud, "QuestionsTable").batch_writer() as batch:
        for item_id, label in ITEMS.items():
            batch.put_item(
                Item={
                    "question_id": item_id,
                    "item_type": "multiple_choice",
                    "difficulty": label,
                    "category": CATEGORY,
                    "bank_key": f"{CATEGORY}#en",
                    "difficulty_b": Decimal(str(label_to_b(label))),
                    "status": "active",
                }
            )


def attempt(user: str, item_id: str, score: int, theta: float, session: str | None = None, **extra: Any) -> dict:
    """An attempt as the answer's transaction records it (the fields the fold reads, and others)."""
    return {
        "session_id": session or f"s-{user}",
        "attempt_key": f"{item_id}#{user}",
        "question_id": f"copy-{item_id}-{user}",
        "item_id": item_id,
        "user_id": user,
        "score": score,
        "is_correct": score == 100,
        "question_type": "multiple_choice",
        "graded_at": "2026-11-27T02:00:00Z",
        "item_b": Decimal(str(label_to_b(ITEMS[item_id]))),
        "learner_theta": Decimal(str(round(theta, 6))),
        "guess_floor": Decimal(str(FLOORS[item_id])),
        "ability_category": CATEGORY,
        "ability_score": score,
        "user_answer": "not read by the fold",
        **extra,
    }


def answers(seed: int = 3, learners: int = 12) -> list[dict]:
    rng = random.Random(seed)
    made = []
    for number in range(learners):
        user, theta = f"learner-{number:03d}", round(rng.gauss(0.0, 1.0), 6)
        for item_id in ITEMS:
            made.append(attempt(user, item_id, rng.choice((0, 100)), theta))
    return made


def put(cloud, items: list[dict]) -> None:
    attempts = table(cloud, "AttemptsTable")
    for item in items:
        attempts.put_item(Item=item)


def expected_sums(items: list[dict]) -> tuple[dict[str, ItemSums], dict[str, LearnerSums]]:
    """The sums computed straight from the answers (the first per learner and item)."""
    by_item: dict[str, ItemSums] = {}
    by_learner: dict[str, LearnerSums] = {}
    seen = set()
    for item in items:
        key = (item["item_id"], item["user_id"])
        if key in seen or item.get("skipped"):
            continue
        seen.add(key)
        theta, b, floor = float(item["learner_theta"]), float(item["item_b"]), float(item["guess_floor"])
        score = item["score"] / 100
        by_item[item["item_id"]] = by_item.get(item["item_id"], ItemSums()) + item_part(theta, b, floor, score)
        by_learner[item["user_id"]] = by_learner.get(item["user_id"], LearnerSums()) + learner_part(
            theta, b, floor, score
        )
    return by_item, by_learner


def stored_sums(cloud) -> dict[str, dict[str, float]]:
    records = table(cloud, "CalibrationSumsTable").scan()["Items"]
    return {
        record["sums_key"]: {
            name: float(value) for name, value in record.items() if isinstance(value, Decimal) and name != "score"
        }
        | ({"score": float(record["score"])} if "score" in record else {})
        for record in records
    }


def assert_sums(cloud, items: list[dict]) -> None:
    by_item, by_learner = expected_sums(items)
    stored = stored_sums(cloud)
    for item_id, sums in by_item.items():
        for name in ITEM_FIELDS:
            assert stored[f"item#{item_id}"][name] == pytest.approx(getattr(sums, name), abs=1e-9), (item_id, name)
    for user, sums in by_learner.items():
        for name in LEARNER_FIELDS:
            assert stored[f"learner#{user}"][name] == pytest.approx(getattr(sums, name), abs=1e-9), (user, name)
    responses = [key for key in stored if key.startswith("response#")]
    assert len(responses) == sum(sums.answers for sums in by_item.values())


@pytest.fixture
def poller(runtime):
    return StreamPoller(runtime, "AttemptsTable")


def fold(runtime, records):
    return runtime.invoke("fold_attempts", {"Records": records})


def test_folded_sums_equal_the_answers_sums_and_the_items_statistics_follow(cloud, runtime, poller):
    seed_items(cloud)
    made = answers()
    put(cloud, made)
    records = poller.take()
    assert len(records) == len(made) + len(ITEMS) * 0  # the bank items are another table
    assert fold(runtime, records) == {"batchItemFailures": []}
    assert_sums(cloud, made)
    by_item, _ = expected_sums(made)
    for item_id, sums in by_item.items():
        calibration = table(cloud, "QuestionsTable").get_item(Key={"question_id": item_id})["Item"]["calibration"]
        assert calibration["answers"] == 12
        assert float(calibration["facility"]) == pytest.approx(sums.facility, abs=1e-4)
        assert float(calibration["infit"]) == pytest.approx(sums.infit, abs=1e-4)
        assert float(calibration["outfit"]) == pytest.approx(sums.outfit, abs=1e-4)
        assert float(calibration["exposure"]) == 1.0  # all 12 learners of the category answered it
        assert float(calibration["b"]) == label_to_b(ITEMS[item_id])  # no refit yet: the online b
        assert calibration["flags"] == []  # flags are the full refit's
        assert calibration["calibrated_at"]
    assert stored_sums(cloud)[f"category#{CATEGORY}"]["learners"] == 12


def test_the_same_batch_delivered_twice_changes_nothing_the_second_time(cloud, runtime, poller):
    seed_items(cloud)
    made = answers(seed=4)
    put(cloud, made)
    records = poller.take()
    fold(runtime, records)
    once = stored_sums(cloud)
    assert fold(runtime, records) == {"batchItemFailures": []}
    twice = stored_sums(cloud)
    assert twice == once
    assert runtime.metric_total("AnswersAlreadyFolded") == len(made)


def test_a_learners_later_answer_to_an_item_is_not_folded(cloud, runtime, poller):
    seed_items(cloud)
    first = attempt("learner-x", "item-a", 0, 0.3)
    again = attempt("learner-x", "item-a", 100, 0.5, session="another-session")  # a drawn copy, later
    put(cloud, [first, again])
    fold(runtime, poller.take())
    assert_sums(cloud, [first])


def test_a_reviewers_correction_folds_its_difference_once(cloud, runtime, poller):
    seed_items(cloud)
    made = [attempt("learner-r", "item-c", 0, -0.2), attempt("learner-s", "item-c", 100, 0.8)]
    put(cloud, made)
    fold(runtime, poller.take())
    attempts = table(cloud, "AttemptsTable")
    attempts.update_item(
        Key={"session_id": made[0]["session_id"], "attempt_key": made[0]["attempt_key"]},
        UpdateExpression="SET score = :score, is_correct = :correct",
        ExpressionAttributeValues={":score": 100, ":correct": True},
    )
    records = poller.take()
    assert [record["eventName"] for record in records] == ["MODIFY"]
    fold(runtime, records)
    fold(runtime, records)  # redelivered: the recorded score is the new one, nothing more is folded
    corrected = [{**made[0], "score": 100}, made[1]]
    assert_sums(cloud, corrected)


def test_a_change_that_leaves_the_score_alone_and_a_skip_fold_nothing(cloud, runtime, poller):
    seed_items(cloud)
    answered = attempt("learner-t", "item-b", 100, 0.1)
    skipped = attempt("learner-u", "item-b", 0, 0.1, skipped=True)
    unmodelled = {k: v for k, v in attempt("learner-v", "item-b", 100, 0.0).items() if k != "learner_theta"}
    put(cloud, [answered, skipped, unmodelled])
    table(cloud, "AttemptsTable").update_item(
        Key={"session_id": answered["session_id"], "attempt_key": answered["attempt_key"]},
        UpdateExpression="SET review_state = :state",
        ExpressionAttributeValues={":state": "reviewed"},
    )
    fold(runtime, poller.take())
    assert_sums(cloud, [answered])


def test_a_deleted_attempt_is_taken_out(cloud, runtime, poller):
    seed_items(cloud)
    made = [attempt("learner-d", "item-a", 100, 0.0), attempt("learner-e", "item-a", 0, 0.0)]
    put(cloud, made)
    fold(runtime, poller.take())
    table(cloud, "AttemptsTable").delete_item(
        Key={"session_id": made[0]["session_id"], "attempt_key": made[0]["attempt_key"]}
    )
    fold(runtime, poller.take())
    assert_sums(cloud, [made[1]])


def test_a_fault_mid_batch_reports_only_the_failed_records_and_the_retry_folds_each_once(
    cloud, runtime, poller, faults
):
    seed_items(cloud)
    made = answers(seed=5, learners=6)
    put(cloud, made)
    records = poller.take()
    # Records 5 and 11 of the batch fail. A learner's first answer in the category takes two
    # transactions (the one for a known learner is refused, then the one that adds the category),
    # so records 1, 4, 7, 10 take two each: record 5's is the 7th call, record 11's the 15th.
    failing = {7, 15}
    with faults.dynamodb(
        "fold_attempts",
        "TransactWriteItems",
        error="InternalServerError",
        when=lambda: faults.attempts["TransactWriteItems"] in failing,
    ):
        response = fold(runtime, records)
    reported = [failure["itemIdentifier"] for failure in response["batchItemFailures"]]
    assert reported == [records[4]["dynamodb"]["SequenceNumber"], records[10]["dynamodb"]["SequenceNumber"]]
    # Lambda's retry starts at the first failed record: what succeeded after it comes again.
    assert fold(runtime, records[4:]) == {"batchItemFailures": []}
    assert_sums(cloud, made)


def test_the_poller_retries_from_the_failed_record_and_each_answer_is_folded_once(cloud, runtime, poller, faults):
    seed_items(cloud)
    made = answers(seed=6, learners=5)
    put(cloud, made)
    with faults.dynamodb("fold_attempts", "TransactWriteItems", error="InternalServerError", times=1):
        report = poller.drain(redeliver=True)
    assert report.reported_failures >= 1
    assert report.checkpointed == len(made)
    assert report.sent_on_failure == 0
    assert_sums(cloud, made)


def test_a_learners_lz_is_read_from_their_sums(cloud, runtime, poller):
    from slea.logic.jobs.incremental_calibration import learner_lz

    seed_items(cloud)
    made = []
    for round_number in range(4):  # 12 answers of one learner: enough for person fit
        for item_id in ITEMS:
            made.append(
                attempt("learner-z", item_id, 100 if item_id == "item-c" else 0, 0.0, session=f"s{round_number}")
            )
    put(cloud, made)
    fold(runtime, poller.take())
    _, by_learner = expected_sums(made)
    assert by_learner["learner-z"].answers == 3  # one answer per item is folded
    with cloud.environment(cloud.environment_of("FoldAttemptsFunction")):
        assert learner_lz("learner-z") is None  # 3 folded answers: below person fit's minimum
        assert learner_lz("nobody") is None


def test_answers_through_the_api_reach_the_item_analysis(http, step_functions, unlimited_rates):
    from tests.integration.test_api import ALICE, wait_for_questions
    from tests.integration.test_review_api import REVIEWER

    runtime = step_functions.runtime
    poller = StreamPoller(runtime, "AttemptsTable")
    poller.take()  # the seed's records
    status, _, created = http("POST", "/sessions", None, ALICE)
    session = created["session_id"]
    http("POST", f"/sessions/{session}/rounds", {"category": "technical", "count": 3}, ALICE)
    questions = wait_for_questions(http, session, count=3)
    for item in questions:
        status, _, graded = http(
            "POST", f"/sessions/{session}/answers", {"question_id": item["question_id"], "user_answer": "A"}, ALICE
        )
        assert status == 200, graded
    report = poller.drain()
    assert report.reported_failures == 0
    assert runtime.metric_total("AnswersFolded") == 3
    status, _, body = http("GET", "/review/items?limit=100", None, REVIEWER)
    assert status == 200, body
    answered = [row for row in body["items"] if row["answers"] >= 1 and row["infit"] is not None]
    assert len(answered) >= 3


def test_the_local_stack_folds_answers_as_they_arrive(cloud, runtime):
    """`python -m slea_local serve` reads the stream on a short timer, as the event source mapping
    would: an answer recorded is in the item's statistics within moments, with nothing invoked."""
    import threading
    import time

    from slea_local.__main__ import _fold_stream

    seed_items(cloud)
    stop = threading.Event()
    thread = threading.Thread(target=_fold_stream, args=(runtime, 0.05, stop), daemon=True)
    thread.start()
    try:
        put(cloud, [attempt("learner-live", "item-b", 100, 0.2)])
        for _ in range(200):
            calibration = (
                table(cloud, "QuestionsTable").get_item(Key={"question_id": "item-b"})["Item"].get("calibration")
            )
            if calibration:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(5)
    assert calibration["answers"] == 1
    assert float(calibration["facility"]) == 1.0


def test_statistics_from_fewer_folds_never_replace_newer_ones(cloud, runtime, poller):
    """Two batches touching one item at once (two shards): the one that read the older sums
    writes last, and is refused."""
    from slea.dal.calibration_records import ItemCalibration
    from slea.dal.calibration_sums import write_statistics

    seed_items(cloud)
    put(cloud, [attempt("learner-1", "item-a", 100, 0.0), attempt("learner-2", "item-a", 0, 0.0)])
    fold(runtime, poller.take())
    stored = table(cloud, "QuestionsTable").get_item(Key={"question_id": "item-a"})["Item"]
    assert stored["calibration_folds"] == 2
    with cloud.environment(cloud.environment_of("FoldAttemptsFunction")):
        assert write_statistics("item-a", ItemCalibration(answers=1), folds=1) is False
        assert write_statistics("item-a", ItemCalibration(answers=2), folds=2) is False  # as recent: nothing to do
        assert write_statistics("gone", ItemCalibration(answers=1), folds=9) is False
    assert table(cloud, "QuestionsTable").get_item(Key={"question_id": "item-a"})["Item"]["calibration"]["answers"] == 2


def test_a_correction_of_an_answer_never_folded_folds_it_as_it_now_stands(cloud, runtime, poller):
    """Its first record was given up on (sent to the failure queue); the reviewer's override then
    folds the corrected answer once. A correction of a learner's later answer (another attempt
    holds the record) folds nothing."""
    seed_items(cloud)
    lost = attempt("learner-lost", "item-b", 0, 0.1)
    first = attempt("learner-two", "item-b", 0, 0.3)
    later = attempt("learner-two", "item-b", 0, 0.4, session="later-session")
    put(cloud, [lost, first, later])
    records = poller.take()
    fold(runtime, records[1:])  # the lost answer's record never arrives
    attempts = table(cloud, "AttemptsTable")
    for corrected in (lost, later):
        attempts.update_item(
            Key={"session_id": corrected["session_id"], "attempt_key": corrected["attempt_key"]},
            UpdateExpression="SET score = :score",
            ExpressionAttributeValues={":score": 100},
        )
    records = poller.take()
    fold(runtime, records)
    fold(runtime, records)  # redelivered: nothing more
    assert_sums(cloud, [{**lost, "score": 100}, first])
