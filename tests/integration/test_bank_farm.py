"""An account farm's items leave the bank (dal/bank.py FARM_GROUP_SIZE): on the real state
machine, look-alike accounts drawn for in one bank key on one UTC day count once each, and from the
fifth every item drawn for any of them rests in the draw that shows it, so it never reaches a later
account; four do not; accounts whose profiles differ never make one; a retried plan or a later
round of one account does not count it twice; honest learners never trigger it."""

import uuid

import pytest

from slea.dal import bank as bank_store
from tests.integration.test_bank_rounds import (  # noqa: F401 (fixtures)
    FIRST,
    SECOND,
    _look_alike,
    bank,
    generation_calls,
    run,
    stored,
    table,
)

REFUSED: list[str] = []  # the withdrawn items whose stem and key Tool 5 refused to save again


@pytest.fixture(autouse=True)
def refusals(monkeypatch):
    """A generated question repeating a rested item's stem and key (the offline writer's stems
    repeat) is written again when the round is collected; one the writer repeats on every pass is
    refused by Tool 5, and the round is short by exactly those (tests/integration/test_bank_withdrawn.py)."""
    REFUSED.clear()
    real = bank_store.withdrawn

    def recorded(item_id):
        withdrawn = real(item_id)
        if withdrawn:
            REFUSED.append(item_id)
        return withdrawn

    monkeypatch.setattr(bank_store, "withdrawn", recorded)
    return REFUSED


def run_counted(steps, user, session, count):
    """The round's execution, and how many of its questions were refused as repeats of withdrawn items."""
    before = len(REFUSED)
    execution = run(steps, user, session, count=count)
    return execution, len(REFUSED) - before


def drawn(steps, user, session, count=4):
    """The bank items drawn for the account's round (it is shown every one of them)."""
    execution, refused = run_counted(steps, user, session, count)
    cloud = steps.runtime.cloud
    assert len(execution.output["questions"]) == count - refused  # whole for the learner, but for those
    return {stored(cloud)[q["question_id"]]["item_id"] for q in execution.output["questions"] if q["from_bank"]}


def originals(steps, item_ids):
    return {item_id: stored(steps.runtime.cloud)[item_id] for item_id in item_ids}


def rested_as_farm(steps, item_ids):
    items = originals(steps, item_ids).values()
    return all(
        item.get("rest_reason") == bank_store.FARM_REST_REASON and item.get("rested_at") and "bank_key" not in item
        for item in items
    )


def resting(steps, item_ids):
    return {item_id for item_id, item in originals(steps, item_ids).items() if item.get("rested_at")}


def another_profile(cloud, user, role):
    """A fresh account with FIRST's interests and language but its own role: another group."""
    profiles = table(cloud, "ProfilesTable")
    first = max(
        (item for item in profiles.scan()["Items"] if item["user_id"] == FIRST), key=lambda item: item["submitted_at"]
    )
    profiles.put_item(Item={**first, "user_id": user, "job_role": role})


def seed_bank(steps, count=4):
    """A bank of `count` items, generated for an account of its own profile (not one of the group's)."""
    seeder = str(uuid.uuid4())
    another_profile(steps.runtime.cloud, seeder, "Author")
    return {q["question_id"] for q in run(steps, seeder, "sess_seed", count=count).output["questions"]}


def members(steps):
    counter = table(steps.runtime.cloud, "AbilitiesTable").get_item(
        Key={"user_id": "#bank", "entry": "rounds#technical#en"}
    )
    return set(counter["Item"].get(bank_store.members_attribute(bank_store._today())) or set())


def farm_accounts(cloud, count):
    accounts = [SECOND, *(str(uuid.uuid4()) for _ in range(count - 1))]
    for account in accounts[1:]:
        _look_alike(cloud, account)
    return accounts


def test_from_the_fifth_look_alike_account_every_item_drawn_for_the_group_rests(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 4)
    accounts = farm_accounts(cloud, bank_store.FARM_GROUP_SIZE)
    for number, account in enumerate(accounts[:-1]):
        assert drawn(bank, account, f"sess_farm_{number}") == bank_items
        assert not resting(bank, bank_items)  # items drawn for the group's first accounts stay
    # The fifth account is shown them as anyone would be; the same draw rests every one.
    assert drawn(bank, accounts[-1], "sess_farm_5") == bank_items
    assert rested_as_farm(bank, bank_items)
    assert len(members(bank)) == bank_store.FARM_GROUP_SIZE + 1  # and the seeding account

    # A later account of another profile never meets them: its round is generated.
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    calls = len(generation_calls)
    assert not drawn(bank, later, "sess_later") & bank_items
    # Asked for four, and again only for a draft that wrote a rested item's stem and key (never
    # saved as its copy: written again).
    assert generation_calls[calls:][:1] == [4]
    assert all(asked < 4 for asked in generation_calls[calls + 1 :])
    fresh = {item_id for item_id, item in stored(cloud).items() if item.get("bank_key")}
    assert fresh

    # The group is a farm for the rest of the day: what its first account is drawn now rests too.
    again = drawn(bank, accounts[0], "sess_farm_again")
    assert again
    assert again <= fresh
    assert rested_as_farm(bank, again)
    other = str(uuid.uuid4())
    another_profile(cloud, other, "Designer")
    assert not drawn(bank, other, "sess_other") & again


def test_four_look_alike_accounts_rest_nothing(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 4)
    for number, account in enumerate(farm_accounts(cloud, bank_store.FARM_GROUP_SIZE - 1)):
        assert drawn(bank, account, f"sess_four_{number}") == bank_items
    assert not resting(bank, bank_items)
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    assert drawn(bank, later, "sess_later") == bank_items


def test_accounts_whose_profiles_differ_never_group(bank, generation_calls):  # noqa: F811 - the fixtures
    """Five accounts alike but for their role: five groups of one, nothing rests."""
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 4)
    for number in range(bank_store.FARM_GROUP_SIZE + 1):
        account = str(uuid.uuid4())
        another_profile(cloud, account, f"Engineer {number}")
        assert drawn(bank, account, f"sess_differ_{number}") == bank_items
    assert not resting(bank, bank_items)
    groups = {entry.split(":")[0] for entry in members(bank)}
    assert len(groups) == len(members(bank)) == bank_store.FARM_GROUP_SIZE + 2  # and the seeding account


def test_honest_learners_playing_several_rounds_never_trigger_it(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    seed_bank(bank, 8)
    learners = [str(uuid.uuid4()) for _ in range(bank_store.FARM_GROUP_SIZE + 1)]
    for number, learner in enumerate(learners):
        another_profile(cloud, learner, f"Learner {number}")
        for round_number in range(2):
            run(bank, learner, f"sess_honest_{number}_{round_number}", count=4)
    assert not any(item.get("rested_at") for item in stored(cloud).values())
    assert len(members(bank)) == len(learners) + 1  # each counted once (and the seeding account), whatever its rounds


def plan_event(profile, user, session, execution, count=4):
    request = {"user_id": user, "session_id": session, "round": 1, "category": "technical", "count": count}
    return {"request": request, "profile": {**profile, "user_id": user}, "correlation_id": execution}


def test_a_retried_plan_or_a_later_round_does_not_count_an_account_twice(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 8)
    accounts = farm_accounts(cloud, bank_store.FARM_GROUP_SIZE - 1)
    # One account, two rounds (it is drawn for twice), and the other three planned twice each
    # under one execution name, as Step Functions retries and redelivers a plan.
    # (A round draws each type for its own slots, so a round may draw fewer than the bank holds.)
    first_round, second_round = drawn(bank, accounts[0], "sess_twice_1"), drawn(bank, accounts[0], "sess_twice_2")
    assert first_round  # drawn for in both rounds,
    assert second_round
    assert not first_round & second_round  # other items each time
    profile = {
        name: value
        for name, value in max(
            (item for item in table(cloud, "ProfilesTable").scan()["Items"] if item["user_id"] == FIRST),
            key=lambda item: item["submitted_at"],
        ).items()
        if name not in {"submitted_at"}
    }
    for number, account in enumerate(accounts[1:]):
        event = plan_event(profile, account, f"sess_retry_{number}", f"exec-farm-{number}")
        first = bank.runtime.invoke("plan_round", event)
        assert first["drawn"]  # drawn for
        assert bank.runtime.invoke("plan_round", event) == first
    assert len(members(bank)) == bank_store.FARM_GROUP_SIZE  # the four, and the seeding account
    assert not resting(bank, bank_items)
    # The next distinct account is the fifth.
    fifth = str(uuid.uuid4())
    _look_alike(cloud, fifth)
    assert resting(bank, drawn(bank, fifth, "sess_fifth"))


def generated_for(steps, user, session, count=4):
    """The questions generated for the account's round, as stored, and how many were refused."""
    execution, refused = run_counted(steps, user, session, count)
    cloud = steps.runtime.cloud
    return [stored(cloud)[q["question_id"]] for q in execution.output["questions"] if not q["from_bank"]], refused


def test_what_a_farms_round_generates_never_joins_the_bank(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    seed_bank(bank, 4)
    accounts = farm_accounts(cloud, bank_store.FARM_GROUP_SIZE + 1)
    for number, account in enumerate(accounts[:-1]):
        drawn(bank, account, f"sess_gen_{number}")
    # The bank's items are rested; the sixth account's round is generated, and saved rested:
    # bank items (their stem and key claimed), never drawable.
    generated, refused = generated_for(bank, accounts[-1], "sess_gen_6")
    assert len(generated) == 4 - refused
    own = [item for item in generated if item["item_id"] == item["question_id"]]
    # (the offline writer may repeat a rested item's stem and key: that one is not served)
    assert own == generated
    for item in own:
        assert "bank_key" not in item
        assert (item["rest_reason"], bool(item["rested_at"])) == (bank_store.FARM_REST_REASON, True)
    for item in generated:  # a copy's item is one of the rested ones
        assert "bank_key" not in stored(cloud)[item["item_id"]]
    # A later account never meets them: not drawn, and a draft of its round that repeats one's
    # stem and key (the offline writer's stems repeat) is not served (its round is shorter).
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    execution, refused = run_counted(bank, later, "sess_later", 4)
    shown = execution.output["questions"]
    assert len(shown) == 4 - refused
    assert not {stored(cloud)[q["question_id"]]["item_id"] for q in shown} & {item["item_id"] for item in generated}


@pytest.mark.parametrize(
    ("accounts", "rests"), [(bank_store.FARM_GROUP_SIZE, True), (bank_store.FARM_GROUP_SIZE - 1, False)]
)
def test_accounts_without_a_survey_are_one_group(bank, generation_calls, accounts, rests):  # noqa: F811 - the fixtures
    """They all have the fallback profile: indistinguishable, so one group (what it costs:
    docs/security.md). The fallback profile names no interest but the category, so they draw
    only items written for it (mostly what was generated for them); from the fifth account on,
    every bank item their round shows, drawn or generated, rests."""
    cloud = bank.runtime.cloud
    shown: list[dict] = []
    for number in range(accounts):
        execution = run(bank, str(uuid.uuid4()), f"sess_none_{number}", count=4)
        questions = [stored(cloud)[q["question_id"]] for q in execution.output["questions"]]
        shown = [stored(cloud)[str(question.get("item_id") or question["question_id"])] for question in questions]
        assert len(shown) == 4
    assert all(bool(item.get("rested_at")) is rests for item in shown)
    assert all(("bank_key" in item) is not rests for item in shown)
