"""The operator's backfill (ops/bank_fingerprints.py): every bank item saved before the bank kept
one item per stem and key gets its claim, retired ones included; running it again changes
nothing; it reads the table in pages and resumes after the last page done; two items with one
stem and key are reported, neither deleted."""

import json

import boto3
import pytest

from tests.integration.test_bank_uniqueness import OTHER_ROUND, bank_items, fingerprints, save
from tests.integration.test_save_generated_question import stored


@pytest.fixture
def legacy(cloud, runtime):
    """Bank items as an older stack left them: "What is RAG?" twice (two items, as before the
    claim), two other stems (one retired), a copy, and one item saved with its claim since."""
    saved = {
        "rag": save(runtime)["question_id"],
        "vector": save(runtime, stem="What is a vector index?")["question_id"],
        "retired": save(runtime, stem="What is a context window?")["question_id"],
    }
    copy = save(runtime, round_id=OTHER_ROUND)["question_id"]
    dynamodb = boto3.resource("dynamodb")
    questions = dynamodb.Table(cloud.table_name("QuestionsTable"))
    questions.put_item(Item={**stored(cloud)[saved["rag"]], "question_id": "rag-twin", "item_id": "rag-twin"})
    questions.update_item(
        Key={"question_id": saved["retired"]},
        UpdateExpression="SET #status = :retired REMOVE bank_key",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired"},
    )
    abilities = dynamodb.Table(cloud.table_name("AbilitiesTable"))
    for entry in fingerprints(cloud):
        abilities.delete_item(Key={"user_id": "#bank", "entry": entry})
    saved["claimed"] = save(runtime, stem="What is reranking?")["question_id"]
    return saved | {"copy": copy}


def run(cloud, **options):
    from ops.bank_fingerprints import backfill

    with cloud.environment(cloud.seed_environment()):
        return backfill(**options)


def test_every_bank_item_gets_its_claim_and_two_with_one_stem_and_key_are_reported(cloud, runtime, legacy):
    done = run(cloud)
    assert (done.bank_items, done.claimed, done.already_held) == (5, 3, 1)  # the copy is no bank item
    (duplicate,) = done.duplicates
    assert {duplicate["item_id"], duplicate["held_by"]} == {legacy["rag"], "rag-twin"}
    claims = fingerprints(cloud)
    assert sorted(claims.values()) == sorted(
        [duplicate["held_by"], legacy["vector"], legacy["retired"], legacy["claimed"]]
    )
    assert set(stored(cloud)) >= {legacy["rag"], "rag-twin"}  # neither deleted
    # The claims hold: the same stem and key saved again is a copy, the retired one's too.
    repeated = save(runtime, round_id=OTHER_ROUND)["question_id"]
    assert stored(cloud)[repeated]["item_id"] == duplicate["held_by"]
    again = save(runtime, round_id=OTHER_ROUND, stem="What is a context window?")["question_id"]
    assert stored(cloud)[again]["item_id"] == legacy["retired"]
    assert len(bank_items(cloud)) == 5


def test_running_it_again_changes_nothing(cloud, legacy):
    first = run(cloud)
    claims = fingerprints(cloud)
    second = run(cloud)
    assert (second.claimed, second.already_held) == (0, 4)
    assert second.duplicates == first.duplicates
    assert fingerprints(cloud) == claims


def test_it_reads_in_pages_and_resumes_after_the_last_page_done(cloud, legacy):
    first = run(cloud, page_size=2, max_pages=1)
    assert first.pages == 1
    assert first.questions == 2
    assert first.resume is not None
    assert first.report()["complete"] is False
    rest = run(cloud, page_size=2, start_after=first.resume)
    assert rest.resume is None
    assert first.questions + rest.questions == len(stored(cloud))
    assert first.claimed + rest.claimed == 3
    assert first.already_held + rest.already_held == 1
    assert len(first.duplicates + rest.duplicates) == 1
    assert len(fingerprints(cloud)) == 4


def test_a_dry_run_writes_nothing_and_counts_what_a_run_would(cloud, legacy):
    before = fingerprints(cloud)
    dry = run(cloud, dry_run=True)
    assert fingerprints(cloud) == before
    assert (dry.claimed, dry.already_held, len(dry.duplicates)) == (3, 1, 1)


def test_a_failure_part_way_says_where_to_resume_and_the_claims_written_stay(cloud, legacy, faults):
    from ops import cli

    third_put = lambda: faults.attempts["PutItem"] >= 3  # noqa: E731 - the first two claims are written
    failing = faults.dynamodb("bank_fingerprints", "PutItem", error="InternalServerError", when=third_put)
    with failing, pytest.raises(cli.CommandError) as failed:
        run(cloud, page_size=1)
    message = str(failed.value)
    assert "bank fingerprint put failed: InternalServerError" in message
    resume = message.rpartition("run again with --start-after ")[2]
    assert resume in stored(cloud)
    assert 2 <= len(fingerprints(cloud)) < 4  # claims written before the failure are kept (one was held)
    rest = run(cloud, page_size=1, start_after=resume)
    assert rest.resume is None
    assert len(fingerprints(cloud)) == 4
    assert run(cloud).claimed == 0


def test_the_command_prints_the_counts_and_each_page_on_stderr(cloud, legacy, capsys, monkeypatch):
    from ops.bank_fingerprints import main

    monkeypatch.delenv("SLEA_STACK", raising=False)
    with cloud.environment(cloud.seed_environment()):
        assert main(["--page-size", "3"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (report["claimed"], report["already_held"], report["duplicates_found"]) == (3, 1, 1)
    assert report["complete"] is True
    assert report["dry_run"] is False
    lines = err.strip().splitlines()
    assert lines[0].startswith("page 1: 3 questions")
    assert "resume with --start-after " in lines[0]
    assert lines[-1].endswith("; done")


# ---------------------------------------------------------------- claims left stale by older edits
@pytest.fixture
def edited_before_moves(cloud, runtime):
    """An item edited before edits moved claims: it reads "What is retrieval-augmented
    generation?" and still holds "What is RAG?"'s claim; and a claim whose item is gone."""
    edited = save(runtime)["question_id"]
    gone = save(runtime, stem="What is a vector index?")["question_id"]
    kept = save(runtime, stem="What is reranking?")["question_id"]
    questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    questions.update_item(
        Key={"question_id": edited},
        UpdateExpression="SET stem = :stem",
        ExpressionAttributeValues={":stem": "What is retrieval-augmented generation?"},
    )
    questions.delete_item(Key={"question_id": gone})
    return {"edited": edited, "gone": gone, "kept": kept}


def stale(cloud, **options):
    from ops.bank_fingerprints import stale_claims

    with cloud.environment(cloud.seed_environment()):
        return stale_claims(**options)


def test_stale_claims_are_listed_and_released_only_when_asked(cloud, runtime, edited_before_moves):
    listed = stale(cloud, page_size=2)
    assert (listed.claims, listed.held, listed.released) == (3, 1, 0)
    assert sorted((entry["item_id"], entry["item"]) for entry in listed.stale) == sorted(
        [(edited_before_moves["edited"], "active"), (edited_before_moves["gone"], "missing")]
    )
    assert len(fingerprints(cloud)) == 3  # listing writes nothing
    released = stale(cloud, release=True)
    assert released.released == 1  # the gone item's claim is listed, never released
    claims = fingerprints(cloud)
    assert edited_before_moves["edited"] not in claims.values()
    assert run(cloud).claimed == 1  # the backfill then claims the edited item's own stem and key
    again = save(runtime, round_id=OTHER_ROUND)["question_id"]  # "What is RAG?": free, a new item
    assert again in bank_items(cloud)


def test_a_stale_claim_is_kept_if_its_item_reads_as_it_did_again(cloud, edited_before_moves):
    """Between the read and the release, an edit gives the item its claimed stem and key back:
    the release's condition on the item's text fails and the claim stays."""
    from ops import bank_fingerprints

    questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    edited = edited_before_moves["edited"]
    with cloud.environment(cloud.seed_environment()):
        as_read = bank_fingerprints._items({edited})[edited]
        (entry,) = [claim for claim, holder in fingerprints(cloud).items() if holder == edited]
        questions.update_item(
            Key={"question_id": edited},
            UpdateExpression="SET stem = :stem",
            ExpressionAttributeValues={":stem": "What is RAG?"},
        )
        assert bank_fingerprints._release(entry, as_read) is False
    assert fingerprints(cloud)[entry] == edited
