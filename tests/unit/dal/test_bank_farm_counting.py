"""The counter's and a flagged learner's draw writes without AWS (dal/bank.py): the counter keeps no
accounts (no look-alike farm rule), and a draw for a learner flagged by behaviour rests its item."""

import pytest

from slea.dal import bank
from slea.dal.bank import Counter


@pytest.fixture(autouse=True)
def tables(monkeypatch):
    for variable in ("ABILITIES_TABLE", "QUESTIONS_TABLE"):
        monkeypatch.setenv(variable, variable.lower())


def test_the_counter_no_longer_records_accounts_and_drops_what_it_kept():
    """Test changed to the new behaviour: the counter kept each day's accounts by look-alike group
    to find account farms of five; accounts are judged by behaviour now, so it keeps none, and the
    write removes what an earlier day kept."""
    counter = Counter(learners=1, groups=frozenset({"g"}))
    update = bank._counter_update("k", True, "h", counter)["Update"]
    adding, removing = update["UpdateExpression"].split("REMOVE")
    assert "#members" not in adding
    assert "#ymembers" in removing
    assert update["ExpressionAttributeNames"]["#ymembers"] == bank.members_attribute(bank._yesterday())
    assert not hasattr(bank, "FARM_GROUP_SIZE")
    assert not hasattr(Counter, "farm")


def test_a_farm_draw_rests_the_original_with_its_reason():
    original = bank.bank_item({"question_id": "item-1", "item_id": "item-1", "draws": 3})
    farm = bank._original_update("item-1", original, "g", "2026-11-27T06:00:00Z", farm=True)["Update"]
    assert ", bank_key" in farm["UpdateExpression"].split("REMOVE")[1]
    assert "rest_reason = :reason" in farm["UpdateExpression"]
    assert farm["ExpressionAttributeValues"][":reason"] == {"S": bank.FARM_REST_REASON}
    honest = bank._original_update("item-1", original, "g", "2026-11-27T06:00:00Z")["Update"]
    assert "bank_key" not in honest["UpdateExpression"]
    assert "rest_reason" not in honest["UpdateExpression"]
