"""Skipping pays by no route, through the HTTP API on the local AWS: decoy sessions, sessions left
open however many, a learner who never moves on (the time limit, at the level panel's read), and
the explicit skip of one question (POST .../questions/{question_id}/skip)."""

import boto3
import pytest

from bench import skip_routes
from tests.integration.test_skips import KNOWN, PER_ROUND, key_of, play_round
from tests.security.test_question_ids import rotate_id_secret

DECOY = "4b1c2d3e-5f60-4a7b-8c9d-0e1f2a3b4c5d"
WRONG = "5c2d3e4f-6071-4b8c-9dae-1f2a3b4c5d6e"
STAYER = "6d3e4f50-7182-4c9d-aebf-2a3b4c5d6e7f"
SKIPPER = "7e4f5061-8293-4dae-bfc0-3b4c5d6e7f80"
OTHER = "8f506172-93a4-4ebf-80d1-4c5d6e7f8091"


@pytest.fixture
def http(signed_http, repeatable):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on. Each
    run is the same run (tests/repeatable.py: the functions' ids and clock)."""
    return repeatable.requests(signed_http)


def sessions_table(cloud):
    return boto3.resource("dynamodb").Table(cloud.table_name("SessionsTable"))


def session_record(cloud, session_id):
    return sessions_table(cloud).get_item(Key={"session_id": session_id})["Item"]


def ability(http, user):
    status, _, seen = http("GET", "/learners/me/ability", None, user)
    assert status == 200, seen
    (technical,) = seen["abilities"]
    return technical


@pytest.mark.parametrize("route", ["decoy", "stay"])
def test_a_skipper_ends_within_0_3_of_the_learner_who_answers_wrong(http, step_functions, unlimited_rates, route):
    """Decoy sessions (an empty one opened after each real one) and never moving on (the level
    read past the round time limit) both count every item left open, once."""
    # One learner each way: which items each draws (keyed on the deployment's secret, random per
    # local stack, and on the session's and the round's ids) and which of them it knows (the
    # first of the round as listed: by `created_at`, then by id) moves the two estimates apart
    # by up to about 0.5 logits on its own, so the secret is fixed here and the ids and the clock
    # by the `http` fixture (tests/repeatable.py): the comparison is of the routes, the same at
    # every run, not of two draws or of the machine's speed (the bench, bench/skip_routes.py,
    # measures the routes over many draws).
    rotate_id_secret(step_functions.runtime.cloud, "a-fixed-secret-for-the-skip-routes")
    skipper = skip_routes.play(http, step_functions, DECOY, route, sessions=2)
    wrong = skip_routes.play(http, step_functions, WRONG, "wrong", sessions=2)
    rounds = 2 * 2
    assert (skipper["answers"], skipper["skipped"]) == (rounds * KNOWN, rounds * (PER_ROUND - KNOWN))
    assert abs(skipper["theta"] - wrong["theta"]) <= skip_routes.GOAL, (skipper, wrong)
    # Before the time limit the last round is still open: only its items are not counted yet.
    assert skipper["open_read"]["skipped"] == (rounds - 1) * (PER_ROUND - KNOWN)


def test_a_new_session_settles_every_session_left_open_and_they_refuse_answers_after(
    http, step_functions, unlimited_rates, monkeypatch
):
    """Three sessions left with open items (as if settling had failed each time they moved on):
    the next new session counts all of them in one request and closes them; each then refuses a
    round and an answer."""
    from slea.logic.rounds import skips

    cloud = step_functions.runtime.cloud
    real_settle = skips.settle_moving_on
    monkeypatch.setattr(skips, "settle_moving_on", lambda user_id, staying=None: 0)
    left = []
    for _ in range(3):
        session = http("POST", "/sessions", None, DECOY)[2]["session_id"]
        play_round(http, cloud, session, DECOY, 1, answer_unknown=False)
        left.append(session)
    step_functions.wait_for_running()
    assert all(session_record(cloud, s)["open_for"] == DECOY for s in left)
    assert ability(http, DECOY)["skipped"] == 0  # nothing counted yet (rounds open, within the limit)

    monkeypatch.setattr(skips, "settle_moving_on", real_settle)
    status, _, created = http("POST", "/sessions", None, DECOY)
    assert status == 201, created
    seen = ability(http, DECOY)
    assert (seen["answers"], seen["skipped"]) == (3 * KNOWN, 3 * (PER_ROUND - KNOWN))
    for session in left:
        record = session_record(cloud, session)
        assert record.get("closed_at"), record
        assert "open_for" not in record, record
        status, _, refused = http(
            "POST", f"/sessions/{session}/rounds", {"round": 2, "category": "technical", "count": 2}, DECOY
        )
        assert (status, refused["error_code"]) == (409, "SESSION_CLOSED"), refused
        questions = http("GET", f"/sessions/{session}/questions", None, DECOY)[2]["questions"]
        assert sum(q["skipped"] for q in questions) == PER_ROUND - KNOWN
        late = next(q for q in questions if q["skipped"])
        key = key_of(cloud, late["question_id"])["correct_key"]
        status, _, refused = http(
            "POST", f"/sessions/{session}/answers", {"question_id": late["question_id"], "user_answer": key}, DECOY
        )
        assert (status, refused["error_code"]) == (409, "QUESTION_SKIPPED"), refused
    # Settled sessions have left the index: the next move reads one empty page.
    assert (
        sessions_table(cloud).query(
            IndexName="open-sessions", KeyConditionExpression="open_for = :u", ExpressionAttributeValues={":u": DECOY}
        )["Items"]
        == []
    )


def test_a_round_in_an_older_session_settles_the_newer_one(http, step_functions, unlimited_rates):
    """Moving on is any round 1 in another session, older or newer: the session left is closed."""
    cloud = step_functions.runtime.cloud
    older = http("POST", "/sessions", None, STAYER)[2]["session_id"]
    newer = http("POST", "/sessions", None, STAYER)[2]["session_id"]
    play_round(http, cloud, newer, STAYER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    play_round(http, cloud, older, STAYER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    assert session_record(cloud, newer).get("closed_at")
    assert not session_record(cloud, older).get("closed_at")
    assert ability(http, STAYER)["skipped"] == PER_ROUND - KNOWN  # the newer session's; the older one is open


def test_the_level_read_counts_a_round_left_open_past_the_time_limit(http, step_functions, unlimited_rates):
    """A learner who never moves on: the level panel's read counts the round once it has been open
    longer than ROUND_TIME_LIMIT (not before), and the session stays open for round 2."""
    cloud = step_functions.runtime.cloud
    session = http("POST", "/sessions", None, STAYER)[2]["session_id"]
    play_round(http, cloud, session, STAYER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    assert ability(http, STAYER)["skipped"] == 0
    skip_routes.age_rounds(cloud, STAYER)
    seen = ability(http, STAYER)
    assert (seen["answers"], seen["skipped"]) == (KNOWN, PER_ROUND - KNOWN)
    assert ability(http, STAYER)["skipped"] == PER_ROUND - KNOWN  # counted once
    record = session_record(cloud, session)
    assert "open_for" not in record
    assert not record.get("closed_at")
    summary = http("GET", f"/sessions/{session}/summary", None, STAYER)[2]
    assert (summary["rounds"][0]["skipped"], summary["next_round"]) == (PER_ROUND - KNOWN, 2)
    # Round 2 puts the session back in the index; its items are counted as round 1's were.
    play_round(http, cloud, session, STAYER, 2, answer_unknown=False)
    step_functions.wait_for_running()
    assert session_record(cloud, session)["open_for"] == STAYER


def test_skipping_one_question_counts_it_wrong_once(http, step_functions, unlimited_rates):
    cloud = step_functions.runtime.cloud
    session = http("POST", "/sessions", None, SKIPPER)[2]["session_id"]
    shown = play_round(http, cloud, session, SKIPPER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    before = ability(http, SKIPPER)
    first_open = shown[KNOWN]["question_id"]
    path = f"/sessions/{session}/questions/{first_open}/skip"
    status, _, skipped = http("POST", path, None, SKIPPER)
    assert status == 200, skipped
    assert skipped == {"session_id": session, "question_id": first_open, "skipped": True, "score": 0}
    after = ability(http, SKIPPER)
    assert (after["answers"], after["skipped"]) == (before["answers"], 1)
    assert after["theta"] < before["theta"]
    # Again (a retry, another tab): the same answer, nothing counted again.
    assert http("POST", path, None, SKIPPER)[:3:2] == (200, skipped)
    assert ability(http, SKIPPER) == after
    # It is shown skipped, scored 0, and refuses an answer.
    attempts = http("GET", f"/sessions/{session}/attempts", None, SKIPPER)[2]["attempts"]
    (attempt,) = [a for a in attempts if a["question_id"] == first_open]
    assert (attempt["skipped"], attempt["score"]) == (True, 0)
    key = key_of(cloud, first_open)["correct_key"]
    status, _, refused = http(
        "POST", f"/sessions/{session}/answers", {"question_id": first_open, "user_answer": key}, SKIPPER
    )
    assert (status, refused["error_code"]) == (409, "QUESTION_SKIPPED")
    # An answered question cannot be skipped; another learner's session is not theirs to skip in.
    answered = shown[0]["question_id"]
    status, _, refused = http("POST", f"/sessions/{session}/questions/{answered}/skip", None, SKIPPER)
    assert (status, refused["error_code"]) == (409, "ALREADY_ANSWERED")
    second_open = shown[KNOWN + 1]["question_id"]
    status, _, refused = http("POST", f"/sessions/{session}/questions/{second_open}/skip", None, OTHER)
    assert (status, refused["error_code"]) == (403, "FORBIDDEN")
    status, _, refused = http("POST", f"/sessions/{session}/questions/{'0' * 8}-0000-4000-8000-{'0' * 12}/skip")
    assert status == 401
    status, _, refused = http(
        "POST", f"/sessions/{session}/questions/{'0' * 8}-0000-4000-8000-{'0' * 12}/skip", None, SKIPPER
    )
    assert (status, refused["error_code"]) == (404, "QUESTION_NOT_FOUND")
    # Moving on counts the rest; the one skipped on purpose is not counted twice.
    assert http("POST", "/sessions", None, SKIPPER)[0] == 201
    assert ability(http, SKIPPER)["skipped"] == PER_ROUND - KNOWN
    # ... and skipping it now (the session is closed) answers as for a retry: it is skipped.
    assert http("POST", f"/sessions/{session}/questions/{second_open}/skip", None, SKIPPER)[0] == 200


def test_skipping_refuses_a_closed_session(http, step_functions, unlimited_rates):
    """A session the learner left, with an item its settling missed (as if it had failed): the
    skip is refused with SESSION_CLOSED, as an answer is."""
    from slea.dal import sessions as sessions_dal

    cloud = step_functions.runtime.cloud
    session = http("POST", "/sessions", None, OTHER)[2]["session_id"]
    shown = play_round(http, cloud, session, OTHER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    with cloud.environment(cloud.environment_of("ApiFunction")):
        sessions_dal.close_session(session, "2026-01-01T00:00:00.000Z")
    status, _, refused = http("POST", f"/sessions/{session}/questions/{shown[-1]['question_id']}/skip", None, OTHER)
    assert (status, refused["error_code"]) == (409, "SESSION_CLOSED"), refused
