"""The release backfill (ops.backfill): records written before an index existed get the attribute
it keys on, from the data-access layer's own functions, so the index finds them; a second run
changes nothing, a write made meanwhile is never overwritten, and a run stopped midway is
finished by running it again."""

from decimal import Decimal

import boto3
import pytest

from ops import backfill as backfill_module
from ops import cli
from ops.backfill import RULES, backfill, fill
from slea.dal import review, templates

RULE = {rule.name: rule for rule in RULES}
PROVISIONAL = [("s1", "q1#a", "2026-11-22T10:00:00Z", "0.2"), ("s1", "q2#b", "2026-11-22T10:05:00Z", "0.6")]
PROVISIONAL += [("s2", "q3#c", "2026-11-22T11:00:00Z", "0.4")]


@pytest.fixture
def old_records(cloud):
    """What a stack of the first releases holds: provisional answers outside any queue, one
    reviewed since, one queued by the current code; templates without stem_digest; review
    records without feed, next to the counters."""
    dynamodb = boto3.resource("dynamodb")
    attempts = dynamodb.Table(cloud.table_name("AttemptsTable"))
    for session_id, key, graded_at, confidence in PROVISIONAL:
        attempts.put_item(
            Item={
                "session_id": session_id,
                "attempt_key": key,
                "attempt_id": key.replace("#", "-"),
                "user_id": "u1",
                "graded_at": graded_at,
                "needs_review": True,
                "confidence": Decimal(confidence),
            }
        )
    base = {"attempt_id": "x", "user_id": "u1", "graded_at": "2026-11-22T09:00:00Z", "confidence": Decimal("0.9")}
    attempts.put_item(Item={**base, "session_id": "s1", "attempt_key": "q4#d", "needs_review": False})
    attempts.put_item(Item={**base, "session_id": "s1", "attempt_key": "q5#e", "needs_review": False, "reviewed": True})
    attempts.put_item(
        Item={
            **base,
            "session_id": "s3",
            "attempt_key": "q6#f",
            "needs_review": True,
            "review_state": "open",
            "queued_at": "2026-12-01T00:00:00Z",
        }
    )
    table = dynamodb.Table(cloud.table_name("TemplatesTable"))
    for number, stem in enumerate(["What is  RAG?", "What is a vector index?"]):
        table.put_item(
            Item={"id": f"t{number}", "stem": stem, "category": "technical", "domain": "AI", "usage_count": 0}
        )
    table.put_item(Item=templates.with_search_key({"id": "t9", "stem": "What is new?", "usage_count": 0}))
    audit = dynamodb.Table(cloud.table_name("ReviewAuditTable"))
    for number in range(2):
        audit.put_item(
            Item={"target_id": f"q{number}", "audit_key": f"2026-11-23T0{number}:00:00#ab", "action": "accept"}
        )
    audit.put_item(Item={"target_id": "#counters", "audit_key": "#counters", "reviewed": 2})
    return attempts


def _run(cloud, **options):
    with cloud.environment(cloud.seed_environment()):
        return {rule.name: backfill(rule, **options).report() for rule in RULES}


def _found(cloud):
    """What the indexes find."""
    with cloud.environment(cloud.seed_environment()):
        return {
            "queue": [(item.session_id, item.attempt_key) for item in review.open_attempts(10).items],
            "by_confidence": [item.attempt_key for item in review.open_attempts(10, by_confidence=True).items],
            "rag": review.templates_with_stem("what is rag?"),
            "recent": [record["target_id"] for record in review.recent_audit_records(10)],
        }


def test_backfill_puts_old_records_in_their_indexes_once(cloud, old_records):
    before = _found(cloud)
    assert before == {"queue": [("s3", "q6#f")], "by_confidence": ["q6#f"], "rag": [], "recent": []}
    dry = _run(cloud, dry_run=True, page_size=2)
    assert {name: counts["to_fill"] for name, counts in dry.items()} == {
        "attempts-review-queue": 3,
        "templates-stem-digest": 2,
        "review-audit-feed": 2,
    }
    assert all(counts["filled"] == 0 for counts in dry.values())
    assert _found(cloud) == before  # a dry run writes nothing

    done = _run(cloud, page_size=2)
    assert {name: counts["filled"] for name, counts in done.items()} == {
        "attempts-review-queue": 3,
        "templates-stem-digest": 2,
        "review-audit-feed": 2,
    }
    assert done["attempts-review-queue"]["read"] == 6
    assert done["attempts-review-queue"]["pages"] >= 3  # paged: two records a page
    found = _found(cloud)
    assert found["queue"] == [(s, k) for s, k, _, _ in PROVISIONAL] + [("s3", "q6#f")]  # by graded_at
    assert found["by_confidence"] == ["q1#a", "q3#c", "q2#b", "q6#f"]
    assert found["rag"] == ["t0"]
    assert sorted(found["recent"]) == ["q0", "q1"]
    queued = old_records.get_item(Key={"session_id": "s3", "attempt_key": "q6#f"})["Item"]
    assert queued["queued_at"] == "2026-12-01T00:00:00Z"  # queued by the current code: untouched

    again = _run(cloud)
    assert all(counts["to_fill"] == 0 and counts["filled"] == 0 for counts in again.values())
    assert _found(cloud) == found


def test_a_record_written_meanwhile_is_not_overwritten(cloud, old_records):
    rule = RULE["attempts-review-queue"]
    with cloud.environment(cloud.seed_environment()):
        read = old_records.get_item(Key={"session_id": "s1", "attempt_key": "q1#a"})["Item"]
        # A reviewer settles it after the backfill read it.
        old_records.update_item(
            Key={"session_id": "s1", "attempt_key": "q1#a"},
            UpdateExpression="SET reviewed = :true, needs_review = :false",
            ExpressionAttributeValues={":true": True, ":false": False},
        )
        assert fill(rule, dict(read)) is False
    item = old_records.get_item(Key={"session_id": "s1", "attempt_key": "q1#a"})["Item"]
    assert "review_state" not in item
    assert "queued_at" not in item


def test_a_run_stopped_midway_is_finished_by_running_it_again(cloud, old_records, monkeypatch):
    real_fill, calls = backfill_module.fill, []

    def failing(rule, record):
        calls.append(record)
        if len(calls) == 2:
            raise backfill_module.DataAccessError("throttled")
        return real_fill(rule, record)

    monkeypatch.setattr(backfill_module, "fill", failing)
    with pytest.raises(cli.CommandError, match="attempts-review-queue: throttled; the updates made stay: run again"):
        _run(cloud, page_size=1)
    monkeypatch.setattr(backfill_module, "fill", real_fill)
    assert len(_found(cloud)["queue"]) == 2  # the one filled before the failure, and q6
    done = _run(cloud, page_size=1)
    assert done["attempts-review-queue"]["filled"] == 2
    found = _found(cloud)
    assert found["queue"] == [(s, k) for s, k, _, _ in PROVISIONAL] + [("s3", "q6#f")]  # each once
    for session_id, key, graded_at, _ in PROVISIONAL:
        item = old_records.get_item(Key={"session_id": session_id, "attempt_key": key})["Item"]
        assert item["queued_at"] == graded_at


def test_command_reads_table_names_from_the_environment(cloud, old_records, capsys, monkeypatch):
    monkeypatch.delenv("SLEA_STACK", raising=False)
    monkeypatch.setattr(cli, "SAMCONFIG_CANDIDATES", [])
    with cloud.environment(cloud.seed_environment()):
        assert backfill_module.main(["--dry-run", "--only", "review-audit-feed", "--region", "us-east-1"]) == 0
    captured = capsys.readouterr()
    assert '"to_fill": 2' in captured.out
    assert "review-audit-feed page 1: 3 read, 2 to fill, 0 filled, 0 changed meanwhile" in captured.err
    monkeypatch.delenv("ATTEMPTS_TABLE", raising=False)
    assert backfill_module.main(["--region", "us-east-1"]) == 2
    assert "no stack: pass --stack" in capsys.readouterr().err
