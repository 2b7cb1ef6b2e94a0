"""Accounts judged by behaviour, not by their survey (logic/rounds/bank_draw.py): on the real state
machine, a learner whose answers person fit flagged (the refit's `review` mark on their ability
record) has every item drawn for them rest in the draw that shows it, and what their round
generates saved rested, so it never reaches a later account; look-alike accounts, however many,
rest nothing (the rule that made five of them an account farm is gone: a team of new hires fills
the survey in alike), nor do accounts without a survey."""

import uuid
from decimal import Decimal

import pytest

from slea.dal import bank as bank_store
from slea.logic.rounds import bank_draw
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


def farm_accounts(cloud, count):
    accounts = [SECOND, *(str(uuid.uuid4()) for _ in range(count - 1))]
    for account in accounts[1:]:
        _look_alike(cloud, account)
    return accounts


def flag(cloud, user, category="technical"):
    """Person fit flagged the learner (as logic/jobs/person_review.py marks the ability record)."""
    table(cloud, "AbilitiesTable").put_item(
        Item={
            "user_id": user,
            "entry": f"ability#{category}",
            "theta": Decimal("0"),
            "se": Decimal("0.5"),
            "answers": 12,
            "review": {"reason": "aberrant answers", "flagged_at": "2026-11-27T06:00:00Z", "source": "person_fit"},
        }
    )


def look_alikes_rest_nothing(steps, accounts, sessions):
    """`accounts` look-alike accounts are each shown the whole four-item bank, nothing of it rests,
    and a later account of another profile is shown all of it again."""
    cloud = steps.runtime.cloud
    bank_items = seed_bank(steps, 4)
    for number, account in enumerate(farm_accounts(cloud, accounts)):
        assert drawn(steps, account, f"{sessions}_{number}") == bank_items
    assert not resting(steps, bank_items)
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    assert drawn(steps, later, "sess_later") == bank_items


def test_look_alike_accounts_rest_nothing_however_many(bank, generation_calls, monkeypatch):  # noqa: F811 - the fixtures
    """Test changed to the new behaviour: five (and more) accounts with one survey were an account
    farm whose items rested as they were shown; equal surveys alone now rest nothing. (The
    exposure cap, which eight viewers of a four-item bank would reach, is not under test here.)"""
    monkeypatch.setattr(bank_draw, "EXPOSURE_MIN_LEARNERS", 1000)
    look_alikes_rest_nothing(bank, 7, "sess_alike")


def test_a_flagged_learner_is_shown_items_that_then_rest(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 4)
    suspect = str(uuid.uuid4())
    another_profile(cloud, suspect, "Contractor")
    flag(cloud, suspect)
    # Shown them as anyone would be; the same draw rests every one.
    assert drawn(bank, suspect, "sess_flagged") == bank_items
    assert rested_as_farm(bank, bank_items)
    # A later account never meets them: its round is generated (asked for four, and again only
    # for a draft that wrote a rested item's stem and key).
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    calls = len(generation_calls)
    assert not drawn(bank, later, "sess_later") & bank_items
    assert generation_calls[calls:][:1] == [4]
    assert all(asked < 4 for asked in generation_calls[calls + 1 :])


def test_four_look_alike_accounts_rest_nothing(bank, generation_calls):  # noqa: F811 - the fixtures
    look_alikes_rest_nothing(bank, 4, "sess_four")


def test_accounts_whose_profiles_differ_rest_nothing(bank, generation_calls, monkeypatch):  # noqa: F811 - the fixtures
    """Six accounts alike but for their role: nothing rests (the exposure cap aside, as above)."""
    monkeypatch.setattr(bank_draw, "EXPOSURE_MIN_LEARNERS", 1000)
    cloud = bank.runtime.cloud
    bank_items = seed_bank(bank, 4)
    for number in range(6):
        account = str(uuid.uuid4())
        another_profile(cloud, account, f"Engineer {number}")
        assert drawn(bank, account, f"sess_differ_{number}") == bank_items
    assert not resting(bank, bank_items)


def test_honest_learners_playing_several_rounds_never_trigger_it(bank, generation_calls):  # noqa: F811 - the fixtures
    cloud = bank.runtime.cloud
    seed_bank(bank, 8)
    for number in range(6):
        learner = str(uuid.uuid4())
        another_profile(cloud, learner, f"Learner {number}")
        for round_number in range(2):
            run(bank, learner, f"sess_honest_{number}_{round_number}", count=4)
    assert not any(item.get("rested_at") for item in stored(cloud).values())


def plan_event(profile, user, session, execution, count=4):
    request = {"user_id": user, "session_id": session, "round": 1, "category": "technical", "count": count}
    return {"request": request, "profile": {**profile, "user_id": user}, "correlation_id": execution}


def test_a_retried_plan_of_a_flagged_learner_rests_what_it_drew_once(bank, generation_calls):  # noqa: F811 - the fixtures
    """Test changed to the new behaviour: a retried plan returns its first draw, and says the
    learner is flagged without reading the counter (the flag comes with the ability record)."""
    cloud = bank.runtime.cloud
    seed_bank(bank, 8)
    profile = {
        name: value
        for name, value in max(
            (item for item in table(cloud, "ProfilesTable").scan()["Items"] if item["user_id"] == FIRST),
            key=lambda item: item["submitted_at"],
        ).items()
        if name not in {"submitted_at"}
    }
    suspect = str(uuid.uuid4())
    flag(cloud, suspect)
    event = plan_event(profile, suspect, "sess_retry_flagged", "exec-flagged")
    first = bank.runtime.invoke("plan_round", event)
    assert first["drawn"]
    assert first["farm"] is True
    assert bank.runtime.invoke("plan_round", event) == first
    drawn_ids = {stored(cloud)[q["question_id"]]["item_id"] for q in first["drawn"]}
    assert rested_as_farm(bank, drawn_ids)


def generated_for(steps, user, session, count=4):
    """The questions generated for the account's round, as stored, and how many were refused."""
    execution, refused = run_counted(steps, user, session, count)
    cloud = steps.runtime.cloud
    return [stored(cloud)[q["question_id"]] for q in execution.output["questions"] if not q["from_bank"]], refused


def test_what_a_flagged_learners_round_generates_never_joins_the_bank(bank, generation_calls):  # noqa: F811 - the fixtures
    """Test changed to the new behaviour: the learner is flagged by person fit, not the sixth of a
    look-alike group."""
    cloud = bank.runtime.cloud
    seed_bank(bank, 4)
    suspect = str(uuid.uuid4())
    another_profile(cloud, suspect, "Contractor")
    flag(cloud, suspect)
    drawn(bank, suspect, "sess_gen_0")
    # The bank's items are rested; the learner's next round is generated, and saved rested:
    # bank items (their stem and key claimed), never drawable.
    generated, refused = generated_for(bank, suspect, "sess_gen_1")
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


def test_accounts_without_a_survey_rest_nothing(bank, generation_calls):  # noqa: F811 - the fixtures
    """Test changed to the new behaviour: accounts without a survey all have the fallback profile,
    and five of them were an account farm; indistinguishable by survey, they are judged, as anyone,
    by their answers."""
    cloud = bank.runtime.cloud
    shown: list[dict] = []
    for number in range(6):
        execution = run(bank, str(uuid.uuid4()), f"sess_none_{number}", count=4)
        questions = [stored(cloud)[q["question_id"]] for q in execution.output["questions"]]
        shown = [stored(cloud)[str(question.get("item_id") or question["question_id"])] for question in questions]
        assert len(shown) == 4
    assert not any(item.get("rested_at") for item in shown)
    assert all("bank_key" in item for item in shown)


def test_an_honest_cohort_with_three_surveys_keeps_the_banks_reuse(bank, generation_calls):  # noqa: F811 - the fixtures
    """45 learners whose surveys take three forms (a team of new hires fills them in alike), one
    round each: nothing rests and generation does not rise as the bank fills (the last third's
    calls per round at most the first's). With the look-alike farm rule, every item shown to a
    form's fifth account on rested and the calls rose; with a draw that dropped a pick repeating an
    earlier one instead of drawing the next best, every learner from the 19th generated
    (3 -> 8 calls a third). The halving of the calls the issue asks for is measured by
    bench/honest_cohort.py: reached in some runs, not reliably (docs/benchmarks.md)."""
    cloud = bank.runtime.cloud
    learners = [str(uuid.uuid4()) for _ in range(45)]
    calls_per_round = []
    for number, learner in enumerate(learners):
        another_profile(cloud, learner, ("Engineer", "Analyst", "Designer")[number % 3])
        before = len(generation_calls)
        run(bank, learner, f"sess_cohort_{number}", count=5)
        calls_per_round.append(len(generation_calls) - before)
    first, last = sum(calls_per_round[:15]) / 15, sum(calls_per_round[30:]) / 15
    assert first > 0
    assert last <= first, str(calls_per_round)
    assert not any(item.get("rested_at") for item in stored(cloud).values())
