"""The round's record dal/rounds.py builds from its stored item (StoredRound: read in one place,
with honest defaults for what an item may lack) and the items its writes make of one: a claim, a
claim put back, an outcome written back."""

from decimal import Decimal
from typing import Any

import pytest

from slea.dal import rounds
from slea.dal.rounds import RoundOutcome, StoredRound, stored_round
from slea.dal.wire_format import from_item

CLAIM = StoredRound(
    session_id="s1",
    round=2,
    round_status="RUNNING",
    claim_id="c1",
    user_id="u1",
    started_at="2026-11-02T10:00:00Z",
    execution_name="s1-r2-c1",
    requested=5,
    category="technical",
)
# The item a claim of CLAIM stores, attribute for attribute (as before the record was typed).
CLAIM_ITEM = {
    "session_id": {"S": "s1#round#2"},
    "owner_session": {"S": "s1"},
    "round": {"N": "2"},
    "round_status": {"S": "RUNNING"},
    "claim_id": {"S": "c1"},
    "execution_name": {"S": "s1-r2-c1"},
    "user_id": {"S": "u1"},
    "requested": {"N": "5"},
    "category": {"S": "technical"},
    "started_at": {"S": "2026-11-02T10:00:00Z"},
}
FINISHED_ITEM = CLAIM_ITEM | {
    "quota_day": {"S": "2026-11-02"},
    "execution_arn": {"S": "arn:aws:states:eu-west-1:1:execution:m:s1-r2-c1"},
    "round_status": {"S": "SUCCEEDED"},
    "finished_at": {"S": "2026-11-02T10:01:00Z"},
    "generated": {"N": "6"},
    "valid": {"N": "5"},
    "delivered": {"N": "4"},
    "from_neighbours": {"N": "1"},
    "shortfall_reason": {"S": "rejected"},
}


class Recording:
    """A DynamoDB client that records the requests made of it (every write succeeds)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def put_item(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("put_item", request))
        return {}

    def update_item(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("update_item", request))
        return {}

    def transact_write_items(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("transact_write_items", request))
        return {}


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Recording:
    monkeypatch.setenv(rounds.TABLE_VARIABLE, "sessions")
    recording = Recording()
    monkeypatch.setattr(rounds, "dynamodb", lambda tool: recording)
    return recording


def test_a_stored_round_is_read_with_its_own_session_and_its_outcome():
    record = stored_round(from_item(FINISHED_ITEM))
    assert (record.session_id, record.round, record.round_status, record.claim_id) == ("s1", 2, "SUCCEEDED", "c1")
    assert (record.user_id, record.started_at, record.execution_name) == ("u1", "2026-11-02T10:00:00Z", "s1-r2-c1")
    assert (record.requested, record.category, record.quota_day) == (5, "technical", "2026-11-02")
    assert record.execution_arn == "arn:aws:states:eu-west-1:1:execution:m:s1-r2-c1"
    assert (record.finished_at, record.generated, record.valid) == ("2026-11-02T10:01:00Z", 6, 5)
    assert (record.delivered, record.from_neighbours, record.shortfall_reason, record.error) == (4, 1, "rejected", None)


def test_a_round_read_by_its_key_alone_or_with_numbers_as_decimals_is_the_same_record():
    keyed = {"session_id": "s1#round#2", "round": Decimal(2), "requested": Decimal(5), "delivered": Decimal(3)}
    record = stored_round(keyed)
    assert (record.session_id, record.round, record.requested, record.delivered) == ("s1", 2, 5, 3)
    assert stored_round({**keyed, "session_id": "s1"}) == record  # as a caller holds it: its own session


def test_a_round_read_with_few_fields_has_the_records_defaults():
    record = stored_round({"session_id": "s1#round#1"})
    assert (record.round, record.round_status, record.claim_id, record.user_id, record.started_at) == (
        0,
        "",
        "",
        "",
        "",
    )
    assert (record.requested, record.execution_name, record.execution_arn, record.quota_day) == (0, None, None, None)
    assert (record.generated, record.valid, record.delivered, record.from_neighbours) == (None, None, None, None)
    assert (record.finished_at, record.shortfall_reason, record.error, record.category) == (None, None, None, None)


def test_a_claim_stores_the_records_fields_that_are_set_under_the_rounds_key(client):
    assert rounds.claim(CLAIM) == (True, None)
    [(operation, request)] = client.calls
    assert (operation, request["TableName"], request["Item"]) == ("put_item", "sessions", CLAIM_ITEM)


def test_a_claim_put_back_is_the_item_it_replaced(client):
    previous = stored_round(from_item(FINISHED_ITEM | {"round_status": {"S": "FAILED"}, "error": {"S": "boom"}}))
    rounds.release(CLAIM, previous)
    [(operation, request)] = client.calls
    [undo] = request["TransactItems"]
    assert operation == "transact_write_items"
    assert undo["Put"]["Item"] == FINISHED_ITEM | {"round_status": {"S": "FAILED"}, "error": {"S": "boom"}}
    client.calls.clear()
    rounds.release(CLAIM, None)
    assert client.calls[0][1]["TransactItems"][0]["Delete"]["Key"] == {"session_id": {"S": "s1#round#2"}}


def test_an_outcome_writes_back_its_known_parts_and_the_record_takes_them(client):
    outcome = RoundOutcome("SUCCEEDED", "2026-11-02T10:01:00Z", generated=6, valid=5, delivered=4)
    assert rounds.record_outcome(CLAIM, outcome)
    [(operation, request)] = client.calls
    assert operation == "update_item"
    assert request["UpdateExpression"] == "SET #f0 = :v0, #f1 = :v1, #f2 = :v2, #f3 = :v3, #f4 = :v4"
    written = [request["ExpressionAttributeNames"][f"#f{i}"] for i in range(5)]
    assert written == ["round_status", "finished_at", "generated", "valid", "delivered"]
    assert request["ConditionExpression"] == "claim_id = :claim"
    assert request["ExpressionAttributeValues"][":claim"] == {"S": "c1"}
    ended = CLAIM.ended(outcome)
    assert (ended.round_status, ended.finished_at, ended.delivered, ended.shortfall_reason) == (
        "SUCCEEDED",
        "2026-11-02T10:01:00Z",
        4,
        None,
    )
    assert (ended.claim_id, ended.started_at, ended.requested) == ("c1", CLAIM.started_at, 5)  # the claim kept
