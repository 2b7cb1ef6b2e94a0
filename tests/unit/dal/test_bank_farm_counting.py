"""Counting an account farm without AWS: the accounts of a look-alike group drawn for today, each
once, and what the draw's writes then carry (dal/bank.py)."""

import pytest

from slea.dal import bank
from slea.dal.bank import FARM_GROUP_SIZE, Counter, member


@pytest.fixture(autouse=True)
def tables(monkeypatch):
    for variable in ("ABILITIES_TABLE", "QUESTIONS_TABLE"):
        monkeypatch.setenv(variable, variable.lower())


def counter_with(*entries: str) -> Counter:
    return Counter(learners=1, groups=frozenset(), members=frozenset(entries))


def test_a_group_counts_its_distinct_accounts_and_the_one_drawn_for():
    accounts = [member("g", f"user-{n}") for n in range(FARM_GROUP_SIZE)]
    counter = counter_with(*accounts[:-1], member("other", "user-x"))
    assert counter.group_size("g", accounts[0]) == FARM_GROUP_SIZE - 1  # drawn for again: counted once
    assert not counter.farm("g", accounts[0])
    assert counter.group_size("g", accounts[-1]) == FARM_GROUP_SIZE  # the fifth account
    assert counter.farm("g", accounts[-1])
    assert counter.group_size("other", member("other", "user-y")) == 2


def test_other_groups_and_accounts_alone_never_make_a_farm():
    counter = counter_with(*(member(f"group-{n}", f"user-{n}") for n in range(50)))
    assert counter.group_size("group-0", member("group-0", "user-new")) == 2
    assert not counter.farm("group-new", member("group-new", "user-new"))
    # A group whose digest begins another's is not mistaken for it (the entry ends the group with ":").
    counter = counter_with(*(member("ab", f"u{n}") for n in range(10)))
    assert counter.group_size("a", member("a", "u0")) == 1
    assert counter.group_size("", member("", "u0")) == 1  # no group: an account alone


def test_an_entry_is_the_group_and_a_short_digest_of_the_account():
    entry = member("0123456789abcdef", "x" * 200)
    assert entry.startswith("0123456789abcdef:")
    assert len(entry) == 16 + 1 + 8
    assert member("g", "user-1") == member("g", "user-1") != member("g", "user-2")


def test_the_counter_adds_an_account_once_and_stops_at_its_bound(monkeypatch):
    counter = counter_with(member("g", "u1"))
    new = bank._counter_update("k", False, "g", counter, member("g", "u2"))["Update"]
    assert ", #members :member" in new["UpdateExpression"]
    assert new["ExpressionAttributeValues"][":member"] == {"SS": [member("g", "u2")]}
    again = bank._counter_update("k", False, "g", counter, member("g", "u1"))["Update"]
    assert "#members" not in again["UpdateExpression"].split("REMOVE")[0]
    monkeypatch.setattr(bank, "MEMBER_SET_MAX", 1)
    full = bank._counter_update("k", False, "g", counter, member("g", "u2"))["Update"]
    assert "#members" not in full["UpdateExpression"].split("REMOVE")[0]
    assert "#ymembers" in full["UpdateExpression"]  # yesterday's accounts are dropped


def test_a_farm_draw_rests_the_original_with_its_reason():
    copy = {"item_id": "item-1"}
    farm = bank._original_update(copy, {"draws": 3}, "g", "2026-11-27T06:00:00Z", farm=True)["Update"]
    assert ", bank_key" in farm["UpdateExpression"].split("REMOVE")[1]
    assert "rest_reason = :reason" in farm["UpdateExpression"]
    assert farm["ExpressionAttributeValues"][":reason"] == {"S": bank.FARM_REST_REASON}
    honest = bank._original_update(copy, {"draws": 3}, "g", "2026-11-27T06:00:00Z")["Update"]
    assert "bank_key" not in honest["UpdateExpression"]
    assert "rest_reason" not in honest["UpdateExpression"]
