"""Compromised items on the stream fold (moto): key-holders' right answers advance the item's CUSUM
in the sums' own transaction and, past its threshold, rest the item once (out of the bank's index,
`rested_at`, `rest_reason` "compromised"), with no flag and no retirement; honest answers leave
it in the bank; another writer between the read of the CUSUM and its write is read again; and the
next round that would have drawn the rested item generates in its slot."""

from decimal import Decimal

import pytest

from slea.measurement.compromise import REST_REASON, Cusum
from slea.measurement.irt import guess_floor
from slea.measurement.scale import label_to_b
from tests.integration.test_bank_rounds import (  # noqa: F401 (fixtures)
    FIRST,
    bank,
    generation_calls,
    round_after_a_rest,
    run,
    stored,
)
from tests.integration.test_fold_attempts import FLOORS, ITEMS, attempt, fold, poller, put, seed_items, table  # noqa: F401


def question(cloud, item_id):
    return table(cloud, "QuestionsTable").get_item(Key={"question_id": item_id})["Item"]


def item_sums(cloud, item_id):
    return table(cloud, "CalibrationSumsTable").get_item(Key={"sums_key": f"item#{item_id}"})["Item"]


def key_holders(item_id, count, theta=-2.0, prefix="holder"):
    """Accounts well below the item answering it right: what holding its key looks like."""
    return [attempt(f"{prefix}-{number}", item_id, 100, theta) for number in range(count)]


def expected_cusum(made):
    state = Cusum()
    for answer in made:
        state = state.after(
            float(answer["learner_theta"]),
            float(answer["item_b"]),
            0.0,
            float(answer["guess_floor"]),
            answer["score"] / 100,
        )
    return state


def test_key_holders_rest_the_item_once_and_nothing_else_changes(cloud, runtime, poller):  # noqa: F811 - the fixtures
    seed_items(cloud)
    leaked = key_holders("item-c", 6)
    # item-a: learners above it right and below it wrong, as the model says.
    honest = [attempt(f"above-{n}", "item-a", 100, 2.0) for n in range(3)]
    honest += [attempt(f"below-{n}", "item-a", 0, -3.0) for n in range(3)]
    put(cloud, leaked + honest)
    records = poller.take()
    assert fold(runtime, records) == {"batchItemFailures": []}

    sums = item_sums(cloud, "item-c")
    expected = expected_cusum(leaked)
    assert expected.compromised
    assert float(sums["cusum"]) == pytest.approx(expected.cusum, abs=1e-5)
    assert float(sums["cusum_b"]) == pytest.approx(label_to_b(ITEMS["item-c"]))
    rested = question(cloud, "item-c")
    assert "bank_key" not in rested  # out of the bank's index: never drawn again
    assert rested["rested_at"]
    assert rested["rest_reason"] == REST_REASON
    # A rest is not a verdict on the item: no flag, no review, no retirement.
    assert "stats_flag" not in rested
    assert "review_state" not in rested
    assert rested["status"] == "active"
    assert rested["calibration"]["flags"] == []
    kept = question(cloud, "item-a")
    assert kept["bank_key"] == "technical#en"
    assert "rested_at" not in kept
    assert float(item_sums(cloud, "item-a")["cusum"]) == 0.0

    # Redelivered: nothing folds, so the CUSUM does not move and the item is not rested again.
    assert fold(runtime, records) == {"batchItemFailures": []}
    assert item_sums(cloud, "item-c")["cusum"] == sums["cusum"]
    assert question(cloud, "item-c")["rested_at"] == rested["rested_at"]
    assert runtime.metric_total("ItemsRestedAsCompromised") == 1
    # A later answer folds and recomputes the item: still rested once, at the first time.
    put(cloud, key_holders("item-c", 1, prefix="later"))
    fold(runtime, poller.take())
    assert question(cloud, "item-c")["rested_at"] == rested["rested_at"]
    assert runtime.metric_total("ItemsRestedAsCompromised") == 1


def test_answers_as_the_model_says_leave_the_item_in_the_bank(cloud, runtime, poller):  # noqa: F811 - the fixtures
    seed_items(cloud)
    made = []
    for item_id in ITEMS:
        b = label_to_b(ITEMS[item_id])
        made += [attempt(f"above-{item_id}-{n}", item_id, 100, b + 2.5) for n in range(8)]
        made += [attempt(f"below-{item_id}-{n}", item_id, 0, b - 2.5) for n in range(4)]
    put(cloud, made)
    fold(runtime, poller.take())
    for item_id in ITEMS:
        assert question(cloud, item_id)["bank_key"] == "technical#en"
        assert float(item_sums(cloud, item_id)["cusum"]) < 1.0


def test_another_writer_between_the_read_and_the_write_is_read_again(cloud, runtime, poller):  # noqa: F811 - the fixtures
    """Two shards folding one item: the one whose CUSUM was read before the other's write is
    refused and reads again, so no step is lost."""
    from slea.logic.jobs.incremental_calibration import Folding

    seed_items(cloud)
    made = key_holders("item-b", 3, theta=-1.0)
    put(cloud, made)
    records = poller.take()
    with cloud.environment(cloud.environment_of("FoldAttemptsFunction")):
        one, other = Folding(), Folding()
        for folding, record in ((one, records[0]), (other, records[1]), (one, records[2])):
            change = record["dynamodb"]
            folding.fold_record(record["eventName"], change.get("OldImage"), change.get("NewImage"))
        assert one.folded == 2
        assert other.folded == 1
    assert float(item_sums(cloud, "item-b")["cusum"]) == pytest.approx(expected_cusum(made).cusum, abs=1e-5)
    assert item_sums(cloud, "item-b")["folds"] == 3


def test_a_compromised_item_is_not_drawn_and_its_slot_is_generated(bank, generation_calls):  # noqa: F811 - the fixtures
    from slea_local.runtime import StreamPoller

    cloud = bank.runtime.cloud
    first = run(bank, FIRST, "sess_a", count=4)
    leaked = first.output["questions"][0]["question_id"]
    # Many learners drawn for, so no exposure limit decides what the next rounds draw.
    table(cloud, "AbilitiesTable").put_item(
        Item={"user_id": "#bank", "entry": "rounds#technical#en", "rounds": 50_000, "learners": 50_000}
    )
    item = stored(cloud)[leaked]
    floor = guess_floor(str(item.get("item_type") or "multiple_choice"), len(item.get("choices") or []) or None)
    holders = [
        {
            "session_id": f"s-holder-{n}",
            "attempt_key": f"{leaked}#holder-{n}",
            "question_id": f"copy-{n}",
            "item_id": leaked,
            "user_id": f"holder-{n}",
            "score": 100,
            "is_correct": True,
            "item_b": item["difficulty_b"],
            "learner_theta": Decimal("-2.5"),
            "guess_floor": Decimal(str(floor)),
            "ability_category": "technical",
        }
        for n in range(8)
    ]
    put(cloud, holders)
    StreamPoller(bank.runtime, "AttemptsTable").drain()
    assert stored(cloud)[leaked]["rest_reason"] == REST_REASON
    assert "bank_key" not in stored(cloud)[leaked]

    # The round is whole, the rested item's slot generated (a draft that wrote a withdrawn item's
    # stem and key is written again, never saved as its copy) ...
    from_bank, generated = round_after_a_rest(bank, generation_calls, leaked)
    assert len(from_bank) == 3  # ... and the three others are drawn
    saved = stored(cloud)[generated[0]]
    owner = saved.get("item_id", generated[0])
    assert owner != leaked
    assert "bank_key" not in stored(cloud)[leaked]
    assert stored(cloud)[leaked]["rest_reason"] == REST_REASON
    assert stored(cloud)[owner]["bank_key"] == "technical#en", saved  # it joins the bank, or copies a drawable item
