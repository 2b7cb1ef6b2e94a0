"""Skipping never pays, through the HTTP API on the local AWS: items left unanswered when the
learner moves on (a later round, a new session, the summary after the round's time limit) count
as wrong, once, a late answer to one is refused, and a provisional short-answer grade counts 0
until a reviewer confirms it."""

import datetime
import threading

import boto3
import pytest

from slea.contracts.llm import ShortAnswerGrade
from slea.llm.offline import OfflineProvider
from tests.integration.test_review_api import REVIEWER
from tests.security.test_question_ids import rotate_id_secret

SKIPPER = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
WRONG = "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d"
PER_ROUND, KNOWN = 6, 2  # each round: the learner knows the first KNOWN items' keys
SESSIONS = 3  # two rounds each: six rounds


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def key_of(cloud, question_id):
    return table(cloud, "QuestionsTable").get_item(Key={"question_id": question_id})["Item"]["answer_schema"]


def wrong_choice(choices, key):
    return next(choice.split(")")[0] for choice in choices if not choice.startswith(f"{key})"))


def play_round(http, cloud, session, user, number, *, answer_unknown):
    status, _, started = http(
        "POST",
        f"/sessions/{session}/rounds",
        {"round": number, "category": "technical", "count": PER_ROUND, "question_types": ["multiple_choice"]},
        user,
    )
    assert status == 202, started
    for _ in range(400):
        status, _, listed = http("GET", f"/sessions/{session}/questions", None, user)
        shown = [q for q in listed.get("questions", []) if q["round"] == number]
        if len(shown) >= PER_ROUND:
            break
        threading.Event().wait(0.05)
    else:
        raise AssertionError("the round did not produce its questions")
    for index, item in enumerate(shown):
        key = key_of(cloud, item["question_id"])["correct_key"]
        if index < KNOWN:
            answer = key
        elif answer_unknown:
            answer = wrong_choice(item["choices"], key)
        else:
            continue  # the skipper leaves it
        status, _, graded = http(
            "POST", f"/sessions/{session}/answers", {"question_id": item["question_id"], "user_answer": answer}, user
        )
        assert status == 200, graded
    return shown


def survey(cloud, user, interest):
    """One survey, the same for both learners but for the interest: the same prior, and rounds that
    never draw the other learner's items from the bank (an item's learnt difficulty would then
    differ from its label, which a skip counts at, and the comparison would measure the items)."""
    table(cloud, "ProfilesTable").put_item(
        Item={
            "user_id": user,
            "submitted_at": "2026-01-01T00:00:00Z",
            "self_level": "beginner",
            "years_experience": 1,
            "job_role": "Engineer",
            "duty": "Builds services",
            "interests": [interest],
            "previous_score": 0,
            "language": "en",
        }
    )


def play(http, step_functions, user, *, answer_unknown):
    cloud = step_functions.runtime.cloud
    survey(cloud, user, "Cloud" if answer_unknown else "Security")
    for _ in range(SESSIONS):
        status, _, created = http("POST", "/sessions", None, user)  # moving on: the previous session is over
        assert status == 201, created
        session = created["session_id"]
        for number in (1, 2):
            play_round(http, cloud, session, user, number, answer_unknown=answer_unknown)
        step_functions.wait_for_running()
    status, _, created = http("POST", "/sessions", None, user)  # the last session is over too
    assert status == 201
    status, _, seen = http("GET", "/learners/me/ability", None, user)
    assert status == 200, seen
    (technical,) = seen["abilities"]
    return technical, session


def test_a_learner_who_skips_what_they_do_not_know_ends_no_higher_than_one_who_answers_it_wrong(
    http, step_functions, unlimited_rates, repeatable
):
    # Which items each learner draws and which it knows (the first of a round as listed) are
    # keyed on the deployment's secret and on the functions' ids and clock: fixed here, so the
    # comparison is the same at every run (tests/repeatable.py), not one of two draws.
    rotate_id_secret(step_functions.runtime.cloud, "a-fixed-secret-for-the-skips")
    http = repeatable.requests(http)
    skipper, last_session = play(http, step_functions, SKIPPER, answer_unknown=False)
    wrong, _ = play(http, step_functions, WRONG, answer_unknown=True)
    rounds = SESSIONS * 2
    assert skipper["skipped"] == rounds * (PER_ROUND - KNOWN)
    assert skipper["answers"] == rounds * KNOWN
    assert wrong["skipped"] == 0
    assert wrong["answers"] == rounds * PER_ROUND
    assert skipper["theta"] <= wrong["theta"] + 0.3, (skipper, wrong)
    assert abs(skipper["theta"] - wrong["theta"]) <= 0.3
    assert skipper["level"] == wrong["level"]

    # The last session's summary: each round's skipped items, scored 0.
    status, _, summary = http("GET", f"/sessions/{last_session}/summary", None, SKIPPER)
    assert status == 200, summary
    assert [(r["answered"], r["skipped"], r["correct"]) for r in summary["rounds"]] == [
        (KNOWN, PER_ROUND - KNOWN, KNOWN)
    ] * 2
    assert summary["ability"]["skipped"] == skipper["skipped"]
    # The history marks them; a late answer to one is refused with its own code.
    status, _, listed = http("GET", f"/sessions/{last_session}/attempts", None, SKIPPER)
    skipped = [a for a in listed["attempts"] if a["skipped"]]
    assert len(skipped) == 2 * (PER_ROUND - KNOWN)
    assert all(a["score"] == 0 and not a["is_correct"] and a["user_answer"] == "" for a in skipped)
    status, _, questions = http("GET", f"/sessions/{last_session}/questions", None, SKIPPER)
    assert sum(q["skipped"] for q in questions["questions"]) == len(skipped)
    late = skipped[0]["question_id"]
    key = key_of(step_functions.runtime.cloud, late)["correct_key"]
    status, _, refused = http(
        "POST", f"/sessions/{last_session}/answers", {"question_id": late, "user_answer": key}, SKIPPER
    )
    assert (status, refused["error_code"]) == (409, "QUESTION_SKIPPED"), refused


def _ability_item(cloud, user):
    return table(cloud, "AbilitiesTable").get_item(Key={"user_id": user, "entry": "ability#technical"}).get("Item")


def test_skips_are_counted_once_however_often_the_round_is_settled(http, step_functions, unlimited_rates, monkeypatch):
    """Two requests settle the same round at once (the second wins the race between the first's
    reads and its transaction), then a retry: each item is counted once."""
    from slea.dal import attempts as attempts_table
    from slea.logic.rounds import skips

    cloud = step_functions.runtime.cloud
    session = http("POST", "/sessions", None, SKIPPER)[2]["session_id"]
    play_round(http, cloud, session, SKIPPER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    before = _ability_item(cloud, SKIPPER)
    real_record, raced = attempts_table.record_skips, []

    def racing_record(found, learner, *checked):
        if not raced:
            raced.append(None)
            raced[0] = skips.count_skips(session, SKIPPER, lambda _n: True)[0]  # the other request
        return real_record(found, learner, *checked)

    monkeypatch.setattr(attempts_table, "record_skips", racing_record)
    with cloud.environment(cloud.environment_of("ApiFunction")):
        first = skips.count_skips(session, SKIPPER, lambda _n: True)[0]
        retried = skips.count_skips(session, SKIPPER, lambda _n: True)[0]
    assert (raced, first, retried) == ([PER_ROUND - KNOWN], 0, 0)
    after = _ability_item(cloud, SKIPPER)
    assert int(after["skipped"]) == PER_ROUND - KNOWN
    assert int(after["answers"]) == int(before["answers"]) == KNOWN
    assert float(after["theta"]) < float(before["theta"])
    assert int(after["version"]) == int(before["version"]) + 1
    recorded = table(cloud, "AttemptsTable").query(
        KeyConditionExpression="session_id = :s", ExpressionAttributeValues={":s": session}
    )["Items"]
    assert sum(bool(a.get("skipped")) for a in recorded) == PER_ROUND - KNOWN


def test_a_summary_mid_round_leaves_the_round_open_and_after_the_time_limit_counts_it(
    http, step_functions, unlimited_rates
):
    cloud = step_functions.runtime.cloud
    created = http("POST", "/sessions", None, SKIPPER)[2]
    session = created["session_id"]
    play_round(http, cloud, session, SKIPPER, 1, answer_unknown=False)
    step_functions.wait_for_running()
    status, _, summary = http("GET", f"/sessions/{session}/summary", None, SKIPPER)
    assert status == 200, summary
    assert (summary["rounds"][0]["answered"], summary["rounds"][0]["skipped"]) == (KNOWN, 0)
    assert summary["ability"]["skipped"] == 0
    # The round was started longer ago than the time limit: the summary counts what is left.
    long_ago = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=3)).isoformat()
    table(cloud, "SessionsTable").update_item(
        Key={"session_id": f"{session}#round#1"},
        UpdateExpression="SET started_at = :at",
        ExpressionAttributeValues={":at": long_ago.replace("+00:00", "Z")},
    )
    status, _, summary = http("GET", f"/sessions/{session}/summary", None, SKIPPER)
    assert (summary["rounds"][0]["answered"], summary["rounds"][0]["skipped"]) == (KNOWN, PER_ROUND - KNOWN)
    assert summary["ability"]["skipped"] == PER_ROUND - KNOWN
    assert summary["rounds"][0]["score"] == pytest.approx(100 * KNOWN / PER_ROUND, abs=0.1)


def test_a_provisional_short_answer_counts_zero_until_a_reviewer_accepts_it(
    http, step_functions, unlimited_rates, monkeypatch
):
    """A short answer graded 60 and waiting for review moves the ability as a wrong answer would;
    the reviewer's accept re-scores it to 60 (the override path)."""
    cloud = step_functions.runtime.cloud
    created = http("POST", "/sessions", None, SKIPPER)[2]
    session = created["session_id"]
    status, _, started = http(
        "POST",
        f"/sessions/{session}/rounds",
        {"category": "technical", "count": 2, "question_types": ["short_answer"]},
        SKIPPER,
    )
    assert status == 202, started
    step_functions.wait_for_running()
    status, _, listed = http("GET", f"/sessions/{session}/questions", None, SKIPPER)
    first, second = listed["questions"][:2]
    provisional = ShortAnswerGrade(score=60, confidence=0.4, final=False)
    monkeypatch.setattr(OfflineProvider, "grade_short_answer", lambda self, item: provisional)
    status, _, graded = http(
        "POST", f"/sessions/{session}/answers", {"question_id": first["question_id"], "user_answer": "a guess"}, SKIPPER
    )
    assert status == 200, graded
    assert (graded["needs_review"], graded["score"]) == (True, 60), graded
    counted_as_wrong = float(_ability_item(cloud, SKIPPER)["theta"])
    # The same learner model, had the answer been final 0: the same theta.
    from slea.logic.answering import ability_update
    from slea.measurement import irt, items

    prior = ability_update.fallback_prior()
    label = items.ItemDifficulty.from_label(int(first["difficulty"]))
    b, b_se = label.b, label.se  # a new item: its label's b, known to the label's SD
    expected = ability_update.posterior_of(None, prior).updated(b, irt.guess_floor("short_answer", None), 0.0, b_se)
    assert counted_as_wrong == pytest.approx(expected.estimate().theta, abs=1e-3)

    attempt = next(
        a
        for a in http("GET", f"/sessions/{session}/attempts", None, SKIPPER)[2]["attempts"]
        if a["question_id"] == first["question_id"]
    )
    status, _, reviewed = http("POST", f"/review/attempts/{attempt['attempt_id']}", {"action": "accept"}, REVIEWER)
    assert status == 200, reviewed
    accepted = float(_ability_item(cloud, SKIPPER)["theta"])
    rescored = expected.removed(b, irt.guess_floor("short_answer", None), 0.0, b_se).updated(
        b, irt.guess_floor("short_answer", None), 0.6, b_se
    )
    assert accepted == pytest.approx(rescored.estimate().theta, abs=1e-3)
    assert accepted > counted_as_wrong
    # A second accept (a retry) changes nothing.
    assert http("POST", f"/review/attempts/{attempt['attempt_id']}", {"action": "accept"}, REVIEWER)[0] in (200, 409)
    assert float(_ability_item(cloud, SKIPPER)["theta"]) == pytest.approx(accepted, abs=1e-6)
    del second
