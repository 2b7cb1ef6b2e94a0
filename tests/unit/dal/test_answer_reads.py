"""An answer's reads in one BatchGetItem (slea.dal.answer_reads), without AWS: the keys asked per
table, the records found, and keys DynamoDB leaves unprocessed asked again, then reported."""

import pytest

from slea.dal import answer_reads
from slea.dal.answer_reads import AnswerReads
from slea.dal.sessions import StoredSession

TABLES = ("SESSIONS_TABLE", "ATTEMPTS_TABLE", "ABILITIES_TABLE", "QUESTIONS_TABLE", "EXPLANATIONS_TABLE")


@pytest.fixture(autouse=True)
def table_names(monkeypatch):
    for variable in TABLES:
        monkeypatch.setenv(variable, variable.lower())


class Client:
    """Answers each call with the items it holds; `unprocessed` tables stay unanswered that many times."""

    def __init__(self, items, unprocessed=None):
        self.items, self.unprocessed, self.calls = items, dict(unprocessed or {}), []

    def batch_get_item(self, RequestItems):
        self.calls.append(RequestItems)
        responses, left = {}, {}
        for table, request in RequestItems.items():
            assert request["ConsistentRead"] is True
            if self.unprocessed.get(table):
                self.unprocessed[table] -= 1
                left[table] = request
                continue
            responses[table] = [
                item
                for item in self.items.get(table, [])
                if any(all(item.get(k) == v for k, v in key.items()) for key in request["Keys"])
            ]
        return {"Responses": responses, "UnprocessedKeys": left}


READS = AnswerReads(
    session_id="s1",
    attempt_key=("s1", "q1#abc"),
    ability=("u1", "technical"),
    bank_item_id="bank-1",
    explanation=("q1", "correct#v1#d"),
)
ITEMS = {
    "sessions_table": [{"session_id": {"S": "s1"}, "user_id": {"S": "u1"}}],
    "abilities_table": [{"user_id": {"S": "u1"}, "entry": {"S": "ability#technical"}, "version": {"N": "3"}}],
    "questions_table": [{"question_id": {"S": "bank-1"}, "difficulty_b": {"N": "0.5"}}],
}


def test_one_call_reads_every_part_and_finds_what_exists(monkeypatch):
    client = Client(ITEMS)
    monkeypatch.setattr(answer_reads, "dynamodb", lambda tool: client)
    records = answer_reads.read(READS)
    assert len(client.calls) == 1
    assert set(client.calls[0]) == {name.lower() for name in TABLES}
    assert records.session == StoredSession(session_id="s1", user_id="u1")
    assert records.ability.version == 3
    assert records.bank_item is not None
    assert records.bank_item.difficulty_b == 0.5
    assert (records.attempt, records.explanation, records.unanswered) == (None, None, set())


def test_unprocessed_keys_are_asked_again(monkeypatch):
    client = Client(ITEMS, unprocessed={"abilities_table": 1})
    monkeypatch.setattr(answer_reads, "dynamodb", lambda tool: client)
    records = answer_reads.read(READS)
    assert len(client.calls) == 2
    assert set(client.calls[1]) == {"abilities_table"}
    assert records.ability.version == 3
    assert records.unanswered == set()


def test_keys_still_unprocessed_are_reported_not_guessed(monkeypatch):
    client = Client(ITEMS, unprocessed={"abilities_table": 99})
    monkeypatch.setattr(answer_reads, "dynamodb", lambda tool: client)
    records = answer_reads.read(READS)
    assert len(client.calls) == answer_reads.UNPROCESSED_ROUNDS
    assert records.unanswered == {"ability"}
    assert records.ability is None
    assert records.session is not None


def test_nothing_to_read_makes_no_call(monkeypatch):
    client = Client({})
    monkeypatch.setattr(answer_reads, "dynamodb", lambda tool: client)
    assert answer_reads.read(AnswerReads()).session is None
    assert client.calls == []


def test_batch_get_without_a_bound_asks_until_every_key_is_processed():
    from slea.dal.wire_format import batch_get

    client = Client(ITEMS, unprocessed={"abilities_table": 5})
    request = {
        "abilities_table": {
            "Keys": [{"user_id": {"S": "u1"}, "entry": {"S": "ability#technical"}}],
            "ConsistentRead": True,
        }
    }
    found, left = batch_get(client, request, "test get")
    assert len(client.calls) == 6
    assert left == {}
    assert found["abilities_table"][0]["version"] == {"N": "3"}
