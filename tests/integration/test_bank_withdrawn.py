"""A generated question whose stem and key a withdrawn bank item holds (retired by a reviewer, or
rested: exposure, an account farm, a compromised key) is not served: a round's writer is asked for
another question in its place before anything is saved; Tool 5 writes nothing and says so (not
queued for retry), the retry worker drops such a message, and a round whose check could not be
made shows one question fewer rather than the withdrawn item again. A repeat of an item still in the bank is
saved as its copy, as before (tests/integration/test_bank_uniqueness.py)."""

import itertools
import uuid

import pytest

from slea.dal import bank as bank_store
from slea.llm.offline import OfflineProvider
from slea.logic.generation.saving import REPEATS_WITHDRAWN
from slea.logic.rounds.collection import REPEATS_WITHDRAWN_FEEDBACK
from slea_local.runtime import QueuePoller
from tests.integration.test_bank_farm import another_profile
from tests.integration.test_bank_rounds import bank, run, table  # noqa: F401 (fixture)
from tests.integration.test_bank_uniqueness import OTHER_ROUND, fingerprints, save
from tests.integration.test_save_generated_question import TOOL, queued, stored

WITHDRAWN_AT = "2026-11-22T12:00:00Z"


def retire(cloud, item_id, category="technical"):
    """As a reviewer's retirement writes it (logic/review/question_actions.py)."""
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": item_id},
        UpdateExpression="SET #status = :retired, retired_at = :at, retired_category = :category REMOVE bank_key",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired", ":at": WITHDRAWN_AT, ":category": category},
    )


def rest(cloud, item_id, reason="exposure"):
    """As the draw, the calibration job or a farm's copy rests an item: out of the bank's index."""
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": item_id},
        UpdateExpression="SET rested_at = :at, rest_reason = :reason REMOVE bank_key",
        ExpressionAttributeValues={":at": WITHDRAWN_AT, ":reason": reason},
    )


def withdraw(cloud, item_id, how):
    if how == "retired":
        retire(cloud, item_id)
    else:
        rest(cloud, item_id, how)


HOW = ["retired", "exposure", "farm", "compromised"]


def refused(result, round_id=OTHER_ROUND):
    return result == {
        "question_id": None,
        "round_id": round_id,
        "saved_at": result["saved_at"],
        "success": False,
        "error": REPEATS_WITHDRAWN,
        "queued_for_retry": False,
    }


# ---------------------------------------------------------------- Tool 5, invoked directly
@pytest.mark.parametrize("how", HOW)
def test_a_direct_save_repeating_a_withdrawn_item_writes_nothing_and_says_so(cloud, runtime, how):
    first = save(runtime)
    withdraw(cloud, first["question_id"], how)
    before = stored(cloud)
    result = save(runtime, round_id=OTHER_ROUND, stem="  what is  RAG ? ")  # the same stem, written otherwise
    assert refused(result), result
    assert stored(cloud) == before  # no copy; the item stays withdrawn, untouched
    assert queued(cloud) == 0
    assert list(fingerprints(cloud).values()) == [first["question_id"]]


def test_a_farms_save_repeating_a_retired_item_neither_saves_nor_rests_it(cloud, runtime):
    first = save(runtime)
    retire(cloud, first["question_id"])
    before = stored(cloud)
    assert refused(save(runtime, round_id=OTHER_ROUND, rest_reason="farm"))
    assert stored(cloud) == before


def test_the_owner_is_read_only_when_another_item_holds_the_stem_and_key(cloud, runtime, monkeypatch):
    reads = []
    real = bank_store.withdrawn
    monkeypatch.setattr(bank_store, "withdrawn", lambda item_id: reads.append(item_id) or real(item_id))
    first = save(runtime)
    assert save(runtime, stem="What is a vector index?")["success"]
    assert reads == []  # a new bank item: no read
    copy = save(runtime, round_id=OTHER_ROUND)
    assert copy["success"]  # the owner is in the bank: saved as its copy, as before
    assert stored(cloud)[copy["question_id"]]["item_id"] == first["question_id"]
    assert reads == [first["question_id"]]


def test_a_batch_counts_a_refused_question_as_neither_saved_nor_queued(cloud, runtime):
    first = save(runtime)
    retire(cloud, first["question_id"])
    fresh = _question(stem="What is a vector index?")
    repeat = _question(round_id=OTHER_ROUND)
    result = runtime.invoke(TOOL, {"questions": [fresh, repeat]})
    assert result["results"][0]["success"] is True
    assert refused(result["results"][1])
    assert (result["saved"], result["queued_for_retry"], result["withdrawn"]) == (1, 0, 1)
    assert sorted(stored(cloud)) == sorted([first["question_id"], fresh["question_id"]])


def _question(**changes):
    from tests.integration.test_save_generated_question import question

    return question(question_id=str(uuid.uuid4()), **changes)


def test_the_retry_worker_drops_a_queued_repeat_of_an_item_withdrawn_meanwhile(cloud, runtime, faults):
    first = save(runtime)
    with faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"):
        queued_repeat = save(runtime, round_id=OTHER_ROUND)
    assert queued_repeat["queued_for_retry"] is True
    rest(cloud, first["question_id"], "compromised")
    before = stored(cloud)
    report = QueuePoller(runtime, "RetryQueue").drain(redeliver=lambda message: True)
    assert (report.deleted, report.reported_failures) == (1, 0)  # dropped: deleted, never redelivered
    assert queued(cloud) == 0
    assert queued(cloud, "RetryDeadLetterQueue") == 0
    assert stored(cloud) == before


# ---------------------------------------------------------------- a round on the state machine
@pytest.fixture
def writer(monkeypatch):
    """The offline writer, recording its drafts and requests by session; `repeat` (set by a test)
    replaces the first draft of its type in the next batch: the model writing a withdrawn item's
    stem and key."""
    state = {"drafts": {}, "requests": {}, "repeat": None}
    real = OfflineProvider.generate_questions

    def writing(self, request, count):
        batch = real(self, request, count)
        state["drafts"].setdefault(request.session_id, []).extend(batch.questions)
        state["requests"].setdefault(request.session_id, []).append(request)
        repeat = state["repeat"]
        if repeat is not None:
            drafts = list(batch.questions)
            drafts[next(i for i, draft in enumerate(drafts) if draft.type == repeat.type)] = repeat
            batch = batch.model_copy(update={"questions": drafts})
            state["repeat"] = None
        return batch

    monkeypatch.setattr(OfflineProvider, "generate_questions", writing)
    return state


def _seeded_and_withdrawn(bank, writer, how):  # noqa: F811 - the fixture
    """A round of four generated for another account, every item then withdrawn (the next round is
    all generated); returns its first item and the draft it was saved from."""
    cloud = bank.runtime.cloud
    seeder = str(uuid.uuid4())
    another_profile(cloud, seeder, "Author")
    seeded = run(bank, seeder, "sess_seed", count=4).output["questions"]
    for item in seeded:
        withdraw(cloud, item["question_id"], how)
    target = seeded[0]
    (draft,) = [draft for draft in writer["drafts"]["sess_seed"] if draft.stem == target["stem"]]
    return target, draft


@pytest.mark.parametrize("how", ["retired", "exposure"])
def test_a_rounds_draft_repeating_a_withdrawn_item_is_written_again(bank, writer, how):  # noqa: F811 - the fixture
    cloud = bank.runtime.cloud
    target, draft = _seeded_and_withdrawn(bank, writer, how)
    # A retired stem is avoided word for word by the next round's writer; written otherwise, its
    # stem and key are still the retired item's.
    respaced = draft.model_copy(update={"stem": draft.stem.replace(" ", "  ", 1)})
    writer["repeat"] = respaced if how == "retired" else draft
    before = stored(cloud)

    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    output = run(bank, later, "sess_later", count=4).output
    assert writer["repeat"] is None  # the writer did repeat it
    # Found when the round's valid drafts were collected, before any save: the writer was asked
    # for another question in its place, told why, and the round is whole.
    # Which later request that is depends on the round's draws: when the first batch falls short,
    # the neighbouring difficulties' records are asked too (with no feedback), maybe before it.
    requests = writer["requests"]["sess_later"]
    assert len(requests) >= 2
    told_why = [index for index, request in enumerate(requests) if REPEATS_WITHDRAWN_FEEDBACK in request.feedback]
    assert told_why, [request.feedback for request in requests]
    assert told_why[0] >= 1  # asked again, after the draft that repeated it
    shown = output["questions"]
    assert len(shown) == 4
    assert output["total_rejected"] >= 1
    assert not any(question["queued_for_retry"] for question in shown)
    after = stored(cloud)
    assert not {after[question["question_id"]].get("item_id") for question in shown} & {target["question_id"]}
    assert len(after) == len(before) + 4  # no copy of the withdrawn item
    assert after[target["question_id"]] == before[target["question_id"]]  # it stays withdrawn


def test_a_draft_repeating_an_item_still_in_the_bank_is_kept_and_saved_as_its_copy(bank, writer):  # noqa: F811
    cloud = bank.runtime.cloud
    seeder = str(uuid.uuid4())
    another_profile(cloud, seeder, "Author")
    seeded = run(bank, seeder, "sess_seed", count=4).output["questions"]
    for item in seeded[1:]:  # out of the bank, so the next round's slots are generated
        withdraw(cloud, item["question_id"], "retired")
    # The first item stays in the bank but leaves its index (not drawn): its stem and key may be
    # written again, and are kept.
    kept = seeded[0]["question_id"]
    table(cloud, "QuestionsTable").update_item(Key={"question_id": kept}, UpdateExpression="REMOVE bank_key")
    (draft,) = [draft for draft in writer["drafts"]["sess_seed"] if draft.stem == seeded[0]["stem"]]
    writer["repeat"] = draft
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    output = run(bank, later, "sess_later", count=4).output
    assert writer["repeat"] is None
    assert all(REPEATS_WITHDRAWN_FEEDBACK not in request.feedback for request in writer["requests"]["sess_later"])
    copies = [q for q in output["questions"] if stored(cloud)[q["question_id"]].get("item_id") == kept]
    assert [q["stem"] for q in copies] == [draft.stem]


def test_collecting_reads_the_claims_once_and_their_holders_only_when_a_claim_is_held(bank, writer, monkeypatch):  # noqa: F811
    reads = []
    real = bank_store.batch_get

    def counted(client, request, operation, rounds=None):
        reads.append(operation)
        return real(client, request, operation, rounds)

    monkeypatch.setattr(bank_store, "batch_get", counted)
    cloud = bank.runtime.cloud
    _, draft = _seeded_and_withdrawn(bank, writer, "retired")
    # Nothing in the bank yet: a pass reads the claims, none is held, no holder is read.
    assert set(reads) == {"bank fingerprints get"}
    assert len(reads) <= len(writer["requests"]["sess_seed"])
    reads.clear()
    writer["repeat"] = draft.model_copy(update={"stem": draft.stem.replace(" ", "  ", 1)})
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    run(bank, later, "sess_later", count=4)
    passes = len(writer["requests"]["sess_later"])
    assert reads[:2] == ["bank fingerprints get", "bank holders get"]  # the repeat's holder is read
    # At most one claims read a pass (none for a pass with no valid draft), and a holders read only
    # right after a claims read that found a claim.
    assert reads.count("bank fingerprints get") <= passes
    assert all(
        earlier == "bank fingerprints get" for earlier, read in itertools.pairwise(reads) if read == "bank holders get"
    )


def test_a_failed_check_keeps_the_round_going_and_tool_5_still_refuses_the_repeat(bank, writer, faults):  # noqa: F811
    cloud = bank.runtime.cloud
    target, draft = _seeded_and_withdrawn(bank, writer, "exposure")
    writer["repeat"] = draft
    later = str(uuid.uuid4())
    another_profile(cloud, later, "Analyst")
    with faults.dynamodb("collect_round", "BatchGetItem", error="InternalServerError"):
        output = run(bank, later, "sess_later", count=4).output
    assert writer["repeat"] is None
    shown = output["questions"]
    assert len(shown) <= 3  # the repeat was kept unchecked, and refused when saved: one fewer
    assert not {stored(cloud)[question["question_id"]].get("item_id") for question in shown} & {target["question_id"]}
