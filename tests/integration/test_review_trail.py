"""The review trail through the HTTP API: actions reach the bank item a copy was drawn from (and
its same-stem twins), a final grade takes two reviewers to change, every change carries a reason
the learner sees, and a retirement or a bulk accept can be undone (the undo audited too)."""

import boto3
import pytest

from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    sessions_table,
    start,
    wait_for_questions,
)
from tests.integration.test_bank_rounds import FIRST, SECOND, run, stored
from tests.integration.test_review_api import (
    CAROL,
    REVIEWER,
    answer,
    audit,
    entry_for,
    flagged_attempt,  # noqa: F401 - a fixture the tests below take
    queue,
    stats,
    token,
    wrong_answer,
)

MALLORY = "3f1d2c4b-5a69-4788-9e0f-1a2b3c4d5e6f"  # a second account with the reviewer role
COLLUDER = token(MALLORY, **{"cognito:groups": ["reviewers"]})
NEW_LEARNERS = [f"9a8b7c6d-0000-4000-8000-00000000000{n}" for n in range(6)]


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


@pytest.fixture
def bank(step_functions):
    """Learners with the first demo learner's profile (the same interests: the same bank)."""
    profiles = table(step_functions.runtime.cloud, "ProfilesTable")
    first = max(
        (item for item in profiles.scan()["Items"] if item["user_id"] == FIRST), key=lambda item: item["submitted_at"]
    )
    for user in [SECOND, *NEW_LEARNERS]:
        profiles.put_item(Item={**first, "user_id": user})
    return step_functions


def drawn_items(cloud, execution):
    return {stored(cloud)[q["question_id"]]["item_id"] for q in execution.output["questions"] if q["from_bank"]}


def one_item_given_to_two_learners(bank, count):
    """After the first demo learner's round fills the bank, rounds of `count` for SECOND (sess_b)
    and NEW_LEARNERS[0] (sess_c), both drawn from it: ({session: {bank item: its copy there}}, a
    bank item both were given)."""
    cloud = bank.runtime.cloud
    run(bank, FIRST, "sess_a", count=count)
    copies = {}
    for learner, session in ((SECOND, "sess_b"), (NEW_LEARNERS[0], "sess_c")):
        execution = run(bank, learner, session, count=count)
        drawn = [q["question_id"] for q in execution.output["questions"] if q["from_bank"]]
        copies[session] = {stored(cloud)[copy]["item_id"]: copy for copy in drawn}
        table(cloud, "SessionsTable").put_item(Item={"session_id": session, "user_id": learner})
    return copies, sorted(set(copies["sess_b"]) & set(copies["sess_c"]))[0]


def seconds_round(bank, count):
    """The first demo learner's round of `count` fills the bank, then SECOND's round (sess_b) draws
    from it: its execution."""
    run(bank, FIRST, "sess_a", count=count)
    return run(bank, SECOND, "sess_b", count=count)


def retire_without_withdrawing(cloud, item_id):
    """The bank item retired as a retirement's first write does, its copies not withdrawn (as if
    the withdrawal missed them)."""
    table(cloud, "QuestionsTable").update_item(
        Key={"question_id": item_id},
        UpdateExpression="SET #status = :retired REMOVE bank_key",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":retired": "retired"},
    )


# ---------------------------------------------------------------- actions reach the bank item
def test_retiring_a_drawn_copy_retires_its_bank_item_and_twins_and_no_new_learner_is_served_them(bank, http):
    cloud = bank.runtime.cloud
    second = seconds_round(bank, count=5)
    copy = second.output["questions"][0]["question_id"]
    item_id = stored(cloud)[copy]["item_id"]
    assert item_id != copy
    # A twin: another bank item of the same bank key with the same stem (spacing and case aside).
    original = stored(cloud)[item_id]
    twin = {**original, "question_id": "twin-item", "item_id": "twin-item", "stem": f" {original['stem'].upper()}  "}
    table(cloud, "QuestionsTable").put_item(Item=twin)
    path = f"/review/questions/{copy}"
    status, _, body = http("POST", path, {"action": "retire", "note": "two choices are right"}, REVIEWER)
    assert (status, body["status"]) == (200, "retired"), body
    after = stored(cloud)
    for retired in (copy, item_id, "twin-item"):
        assert after[retired]["status"] == "retired", retired
        assert "bank_key" not in after[retired]
    (record,) = audit(http, copy)
    assert sorted(record["after"]["retired_with"]) == sorted([item_id, "twin-item"])
    assert record["note"] == "two choices are right"
    from slea.logic.review.transactions import STEM_SHOWN

    # As audit rows keep stems: whole, or shortened with an ellipsis (the drawn item's is random).
    whole = original["stem"]
    assert record["stem"] == (whole if len(whole) <= STEM_SHOWN else whole[: STEM_SHOWN - 1] + "…")
    for number, learner in enumerate(NEW_LEARNERS):
        execution = run(bank, learner, f"sess_new_{number}", count=5)
        served = drawn_items(cloud, execution)
        assert item_id not in served
        assert "twin-item" not in served
        assert not {stored(cloud)[q["question_id"]]["stem"] for q in execution.output["questions"]} & {original["stem"]}


def test_retiring_an_item_withdraws_the_copies_other_learners_were_given_and_not_answered(bank, http):
    from slea.logic.rounds.skips import count_skips

    cloud = bank.runtime.cloud
    copies, item_id = one_item_given_to_two_learners(bank, count=5)
    reported, theirs = copies["sess_b"][item_id], copies["sess_c"][item_id]
    carl = token(NEW_LEARNERS[0])
    # Carl answers another item of his round first: an answered copy keeps its answer.
    answered = next(copy for other, copy in copies["sess_c"].items() if other != item_id)
    status, _, body = http("POST", "/sessions/sess_c/answers", {"question_id": answered, "user_answer": "A"}, carl)
    assert status == 200, body

    status, _, body = http(
        "POST", f"/review/questions/{reported}", {"action": "retire", "note": "key is wrong"}, REVIEWER
    )
    assert status == 200, body
    after = stored(cloud)
    assert (after[theirs]["status"], after[theirs]["retired_with"]) == ("retired", reported)
    assert "retired_category" not in after[theirs]  # the bank item stands for its stem in the retired list
    assert after[answered].get("status", "active") == "active"

    # Carl is not served it, cannot answer it, and it is not counted as a skip against him.
    status, _, listed = http("GET", "/sessions/sess_c/questions", None, carl)
    assert status == 200, listed
    assert theirs not in {q["question_id"] for q in listed["questions"]}
    assert answered in {q["question_id"] for q in listed["questions"]}
    status, _, body = http("POST", "/sessions/sess_c/answers", {"question_id": theirs, "user_answer": "A"}, carl)
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")
    with cloud.environment(cloud.environment_of("ApiFunction")):  # the learner moves on: round 1 is over
        counted, _ = count_skips("sess_c", NEW_LEARNERS[0], lambda _round: True)
    assert counted == len(copies["sess_c"]) - 2  # neither the answered copy nor the withdrawn one
    skipped = {
        attempt["question_id"]
        for attempt in table(cloud, "AttemptsTable").scan()["Items"]
        if attempt["session_id"] == "sess_c" and attempt.get("skipped")
    }
    assert theirs not in skipped
    assert answered not in skipped


def test_a_withdrawal_that_fails_leaves_the_retirement_standing_and_the_copy_refused(bank, http, faults):
    cloud = bank.runtime.cloud
    copies, item_id = one_item_given_to_two_learners(bank, count=4)
    reported, theirs = copies["sess_b"][item_id], copies["sess_c"][item_id]
    with faults.dynamodb("review", "UpdateItem", error="InternalServerError"):  # only the withdrawal updates alone
        status, _, body = http("POST", f"/review/questions/{reported}", {"action": "retire", "note": "wrong"}, REVIEWER)
    assert (status, body["status"]) == (200, "retired"), body
    assert stored(cloud)[item_id]["status"] == "retired"
    assert stored(cloud)[theirs].get("status", "active") == "active"  # not reached ...
    answer = {"question_id": theirs, "user_answer": "A"}
    status, _, body = http("POST", "/sessions/sess_c/answers", answer, token(NEW_LEARNERS[0]))
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")  # ... and still refused


def test_an_answer_to_a_copy_whose_bank_item_was_retired_is_refused_even_if_the_copy_was_missed(bank, http):
    """A copy the withdrawal did not reach (drawn while the retirement ran, or the withdrawal
    failed part way) is refused all the same: the answer reads its bank item with the rest."""
    cloud = bank.runtime.cloud
    execution = seconds_round(bank, count=4)
    table(cloud, "SessionsTable").put_item(Item={"session_id": "sess_b", "user_id": SECOND})
    copy = next(q["question_id"] for q in execution.output["questions"] if q["from_bank"])
    item_id = stored(cloud)[copy]["item_id"]
    retire_without_withdrawing(cloud, item_id)
    assert stored(cloud)[copy].get("status", "active") == "active"
    status, _, body = http("POST", "/sessions/sess_b/answers", {"question_id": copy, "user_answer": "A"}, token(SECOND))
    assert (status, body["error_code"]) == (409, "QUESTION_RETIRED")
    assert not [a for a in table(cloud, "AttemptsTable").scan()["Items"] if a["question_id"] == copy]


def test_a_copy_whose_bank_item_was_retired_is_never_counted_skipped_even_if_the_copy_was_missed(bank, http):
    """The skip count checks, in its own transaction, that the bank items of the copies it counts
    are not retired: a copy the withdrawal missed is left out, the others are counted."""
    from slea.logic.rounds.skips import count_skips

    cloud = bank.runtime.cloud
    execution = seconds_round(bank, count=4)
    table(cloud, "SessionsTable").put_item(Item={"session_id": "sess_b", "user_id": SECOND})
    drawn = [q["question_id"] for q in execution.output["questions"]]
    copy = next(q["question_id"] for q in execution.output["questions"] if q["from_bank"])
    item_id = stored(cloud)[copy]["item_id"]
    retire_without_withdrawing(cloud, item_id)
    assert stored(cloud)[copy].get("status", "active") == "active"
    with cloud.environment(cloud.environment_of("ApiFunction")):  # the learner moves on: round 1 is over
        counted, _ = count_skips("sess_b", SECOND, lambda _round: True)
    assert counted == len(drawn) - 1
    skipped = {
        attempt["question_id"]
        for attempt in table(cloud, "AttemptsTable").scan()["Items"]
        if attempt["session_id"] == "sess_b" and attempt.get("skipped")
    }
    assert skipped == set(drawn) - {copy}


def test_undoing_a_retirement_brings_the_item_back_to_the_bank_and_is_audited(bank, http):
    cloud = bank.runtime.cloud
    second = seconds_round(bank, count=4)
    copy = second.output["questions"][0]["question_id"]
    item_id = stored(cloud)[copy]["item_id"]
    http("POST", f"/review/questions/{copy}", {"action": "retire", "note": "looked wrong"}, REVIEWER)
    undo = f"/review/questions/{copy}/unretire"
    status, _, error = http("POST", undo, {"note": " "}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, body = http("POST", undo, {"note": "it was right after all"}, REVIEWER)
    assert (status, body["status"], body["action"]) == (200, "active", "unretire"), body
    after = stored(cloud)
    assert after[copy]["status"] == after[item_id]["status"] == "active"
    assert after[item_id]["bank_key"] == "technical#en"
    assert "bank_key" not in after[copy]  # a copy never joins the bank
    assert [r["action"] for r in audit(http, copy)] == ["retire", "unretire"]
    assert stats(http)["questions_retired"] == 0
    status, _, error = http("POST", undo, {"note": "again"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "QUESTION_NOT_RETIRED")
    served = drawn_items(cloud, run(bank, NEW_LEARNERS[0], "sess_new", count=4))
    assert item_id in served


def test_a_report_on_a_drawn_copy_queues_its_bank_item_and_holds_it_out_of_draws(bank, http):
    cloud = bank.runtime.cloud
    second = seconds_round(bank, count=4)
    table(cloud, "SessionsTable").put_item(Item={"session_id": "sess_b", "user_id": SECOND})
    copy = second.output["questions"][0]["question_id"]
    item_id = stored(cloud)[copy]["item_id"]
    status, _, body = http("POST", f"/sessions/sess_b/questions/{copy}/reports", {"reason": "typo"}, token(SECOND))
    assert status == 202, body
    entry = entry_for(queue(http), item_id)
    assert entry is not None
    assert [r["reason"] for r in entry["question"]["reports"]] == ["typo"]
    assert item_id not in drawn_items(cloud, run(bank, NEW_LEARNERS[0], "sess_new", count=4))


# ---------------------------------------------------------------- two reviewers for a final grade
def test_a_colluding_reviewer_cannot_raise_final_grades_alone(http, step_functions):
    cloud = step_functions.runtime.cloud
    start(http, count=5, question_types=["multiple_choice"])
    questions = wait_for_questions(http, count=5)
    graded = [answer(http, q["question_id"], wrong_answer(cloud, q)) for q in questions]
    assert not any(g["needs_review"] for g in graded)  # final grades
    before = http("GET", "/sessions/s1/summary", None, ALICE)[2]["ability"]["theta"]
    for attempt in graded:
        path = f"/review/attempts/{attempt['attempt_id']}"
        status, _, error = http("POST", path, {"action": "override", "score": 100}, COLLUDER)
        assert (status, error["error"].split(":")[0]) == (422, "note")
        status, _, body = http("POST", path, {"action": "override", "score": 100, "note": "fine"}, COLLUDER)
        assert (status, body["status"], body["score"]) == (200, "proposed", 0), body
        status, _, error = http("POST", path, {"action": "confirm"}, COLLUDER)  # their own proposal
        assert (status, error["error_code"]) == (403, "OWN_PROPOSAL")
        status, _, error = http("POST", path, {"action": "override", "score": 90, "note": "again"}, COLLUDER)
        assert (status, error["error_code"]) == (409, "OVERRIDE_PROPOSED")
    seen = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert [a["score"] for a in seen] == [0] * 5
    assert all(a["review_note"] is None for a in seen)
    assert http("GET", "/sessions/s1/summary", None, ALICE)[2]["ability"]["theta"] == before
    assert stats(http)["proposals"] == 5
    proposed = [entry_for(queue(http), a["attempt_id"]) for a in graded]
    assert all(e["reasons"] == ["override_proposed"] for e in proposed)
    assert proposed[0]["attempt"]["proposal"]["score"] == 100
    assert proposed[0]["attempt"]["proposal"]["by"] == MALLORY
    # A different reviewer decides: the first proposal confirmed, the others rejected.
    first, rest = graded[0]["attempt_id"], [a["attempt_id"] for a in graded[1:]]
    status, _, body = http("POST", f"/review/attempts/{first}", {"action": "confirm"}, REVIEWER)
    assert (status, body["status"], body["score"], body["reviewed_by"]) == (200, "applied", 100, CAROL), body
    for attempt_id in rest:
        status, _, body = http("POST", f"/review/attempts/{attempt_id}", {"action": "reject"}, REVIEWER)
        assert (status, body["status"]) == (200, "rejected"), body
    seen = {a["attempt_id"]: a for a in http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]}
    assert (seen[first]["score"], seen[first]["review_note"]) == (100, "fine")
    assert [seen[a]["score"] for a in rest] == [0] * 4
    assert [r["action"] for r in audit(http, first)] == ["propose_override", "confirm"]
    confirm = audit(http, first)[1]
    assert (confirm["who"], confirm["after"]["proposed_by"]) == (CAROL, MALLORY)
    assert [r["action"] for r in audit(http, rest[0])] == ["propose_override", "reject_override"]
    assert stats(http)["proposals"] == 0
    assert all(entry_for(queue(http), a["attempt_id"]) is None for a in graded)
    status, _, error = http("POST", f"/review/attempts/{rest[0]}", {"action": "confirm"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "NO_PROPOSAL")


def test_a_provisional_grade_is_overridden_by_one_reviewer_with_a_reason_the_learner_sees(
    http,
    step_functions,
    flagged_attempt,  # noqa: F811 - the fixture
):
    attempt_id = flagged_attempt["attempt_id"]
    path = f"/review/attempts/{attempt_id}"
    for note in (None, "", "   "):
        request = {"action": "override", "score": 90} | ({"note": note} if note is not None else {})
        status, _, error = http("POST", path, request, REVIEWER)
        assert (status, error["error"].split(":")[0]) == (422, "note"), error
    status, _, body = http("POST", path, {"action": "override", "score": 90, "note": "names every concept"}, REVIEWER)
    assert (status, body["status"], body["score"]) == (200, "applied", 90), body
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["review_note"]) == (90, "names every concept")


def test_an_accept_that_changes_nothing_says_so_and_the_record_names_the_item(http, step_functions, flagged_attempt):  # noqa: F811 - the fixture
    attempt_id = flagged_attempt["attempt_id"]
    http("POST", f"/review/attempts/{attempt_id}", {"action": "accept"}, REVIEWER)
    (record,) = audit(http, attempt_id)
    assert record["changed"] is False
    assert record["stem"]
    assert (record["learner_id"], record["session_id"]) == (ALICE, "s1")
    assert record["question_id"] == flagged_attempt["question_id"]


# ---------------------------------------------------------------- a bulk accept, undone
def test_a_bulk_accept_needs_a_reason_and_can_be_reverted(http, step_functions, flagged_attempt):  # noqa: F811 - the fixture
    attempt_id = flagged_attempt["attempt_id"]
    status, _, error = http("POST", "/review/attempts/accept", {"attempt_ids": [attempt_id]}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, done = http(
        "POST", "/review/attempts/accept", {"attempt_ids": [attempt_id], "note": "all plausible"}, REVIEWER
    )
    assert (status, done["accepted"]) == (200, 1), done
    assert entry_for(queue(http), attempt_id) is None
    bulk = done["bulk_id"]
    revert = f"/review/bulk/{bulk}/revert"
    status, _, error = http("POST", revert, {}, REVIEWER)
    assert (status, error["error"].split(":")[0]) == (422, "note")
    status, _, body = http("POST", revert, {"note": "accepted too fast"}, REVIEWER)
    assert (status, body["reverted"], body["kept"]) == (200, [attempt_id], []), body
    assert entry_for(queue(http), attempt_id) is not None
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["reviewed"], seen["needs_review"]) == (False, True)
    assert [r["action"] for r in audit(http, attempt_id)] == ["accept", "revert_accept"]
    assert [r["action"] for r in audit(http, bulk)] == ["bulk_accept", "revert_bulk"]
    assert stats(http)["accepted"] == 0
    status, _, error = http("POST", revert, {"note": "twice"}, REVIEWER)
    assert (status, error["error_code"]) == (409, "BULK_REVERTED")
    status, _, error = http("POST", "/review/bulk/nope/revert", {"note": "x"}, REVIEWER)
    assert (status, error["error_code"]) == (404, "BULK_NOT_FOUND")


def test_retire_and_edit_need_a_reason(http, step_functions):
    start(http, question_types=["multiple_choice"])
    question = wait_for_questions(http)[0]
    path = f"/review/questions/{question['question_id']}"
    for request in ({"action": "retire"}, {"action": "retire", "note": " "}, {"action": "edit", "stem": "New?"}):
        status, _, error = http("POST", path, request, REVIEWER)
        assert (status, error["error"].split(":")[0]) == (422, "note"), request
    assert http("POST", path, {"action": "accept"}, REVIEWER)[0] == 200  # an accept needs none


def test_the_record_names_the_learner_as_their_token_did_when_they_started_the_session(http, step_functions):
    from tests.integration.test_review_api import low_confidence_grades

    sessions = table(step_functions.runtime.cloud, "SessionsTable")
    status, _, created = http("POST", "/sessions", None, token(ALICE, name="Alice\u202e Kim"))
    assert status == 201, created
    stored_session = sessions.get_item(Key={"session_id": created["session_id"]})["Item"]
    assert stored_session["user_name"] == "Alice Kim"  # a bidirectional override is dropped, not stored
    session = created["session_id"]
    start(http, session=session, question_types=["short_answer"])
    question = wait_for_questions(http, session=session)[0]
    with pytest.MonkeyPatch.context() as patch:
        low_confidence_grades(patch)
        graded = answer(http, question["question_id"], "It looks things up first.", session=session)
    http("POST", f"/review/attempts/{graded['attempt_id']}", {"action": "accept"}, REVIEWER)
    (record,) = audit(http, graded["attempt_id"])
    assert (record["learner_id"], record["learner_name"]) == (ALICE, "Alice Kim")
