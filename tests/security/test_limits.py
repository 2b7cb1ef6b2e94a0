"""Bounded everything: stored texts have limits that name the field, the review queue is
paged and bounded in bytes and lists only entries a reviewer can act on, one learner's burst of
answers or round starts is throttled per user (429, Retry-After), the daily quota cannot be
dodged by the subject's case, and a round that never started gives its quota unit back once.
Each test is an attack that succeeded before these bounds."""

import base64
import datetime
import json
import uuid
from decimal import Decimal

import boto3
import pytest

from slea.contracts.common import parse_input
from slea.contracts.questions import SaveQuestionInput
from slea.contracts.review import QuestionReviewRequest
from slea.contracts.scoring import ScoreAnswerInput
from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    BOB,
    own,
    sessions_table,
    start,
)
from tests.integration.test_review_api import REVIEWER, token
from tests.integration.test_save_generated_question import question

KB300 = 300_000


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, so a budget is the verified subject's and the reviewer's role comes from its groups."""
    return signed_http


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


# ---------------------------------------------------------------- stored texts have limits
def test_a_300_kb_explanation_is_refused_by_the_save_function_naming_the_field(cloud, runtime):
    with pytest.raises(ValueError, match=r"^explanation: "):
        runtime.invoke("save_generated_question", question(explanation="x" * KB300))
    with pytest.raises(ValueError, match=r"questions\[0\]\.explanation"):
        runtime.invoke("save_generated_question", {"questions": [question(explanation="x" * KB300)]})
    assert table(cloud, "QuestionsTable").scan()["Items"] == []


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"choices": ["A) " + "x" * KB300, "B) b", "C) c", "D) d"]}, r"choices\[0\]"),
        ({"item_type": "short_answer", "correct_keywords": ["k" * 101]}, r"correct_keywords\[0\]"),
        ({"item_type": "short_answer", "correct_keywords": [f"k{n}" for n in range(21)]}, "correct_keywords"),
        ({"categories": ["c" * KB300]}, r"categories\[0\]"),
        ({"categories": [f"c{n}" for n in range(11)]}, "categories"),
        ({"round_id": "r" * KB300}, "round_id"),
    ],
)
def test_every_stored_field_of_a_question_is_bounded_naming_the_field(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}"):
        parse_input(SaveQuestionInput, question(**changes))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"user_answer": "a" * 4001}, "user_answer"),
        ({"question_id": "q" * 129}, "question_id"),
        ({"correct_answer": "B" * 501}, "correct_answer"),
        ({"choices": ["x" * 501]}, r"choices\[0\]"),
        ({"category": "c" * 101}, "category"),
    ],
)
def test_answers_and_their_keys_are_bounded_naming_the_field(changes, field):
    base = {
        "session_id": "s",
        "user_id": ALICE,
        "question_id": "q",
        "question_type": "multiple_choice",
        "user_answer": "B",
        "correct_answer": "B",
    }
    with pytest.raises(ValueError, match=rf"^{field}"):
        parse_input(ScoreAnswerInput, {**base, **changes})


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"stem": "s" * 2001}, "stem"),
        ({"choices": ["c" * 501]}, r"choices\[0\]"),
        ({"correct_answer": "a" * 501}, "correct_answer"),
        ({"correct_keywords": ["k" * 101]}, r"correct_keywords\[0\]"),
        ({"correct_keywords": ["k"] * 21}, "correct_keywords"),
    ],
)
def test_reviewers_edits_and_notes_are_bounded_naming_the_field(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}"):
        parse_input(QuestionReviewRequest, {"action": "edit", **changes})


def _saved_questions(runtime, session, count):
    """`count` multiple-choice questions of round 1 of `session`, saved as Tool 5 saves them."""
    round_id = f"{session}_1_2026-11-23T10:00:00Z"
    return [
        runtime.invoke("save_generated_question", question(round_id=round_id, stem=f"What is step {n} of RAG?"))[
            "question_id"
        ]
        for n in range(count)
    ]


def test_through_the_api_an_over_long_field_is_422_naming_it_and_300_kb_never_reaches_a_route(http, step_functions):
    runtime = step_functions.runtime
    own("s1", ALICE)
    (question_id,) = _saved_questions(runtime, "s1", 1)
    cases = [
        ("/sessions/s1/answers", {"question_id": question_id, "user_answer": "a" * 4001}, "user_answer"),
        ("/sessions/s1/answers", {"question_id": "q" * 129, "user_answer": "C"}, "question_id"),
        (f"/sessions/s1/questions/{question_id}/reports", {"reason": "r" * 501}, "reason"),
    ]
    for path, body, field in cases:
        status, _, error = http("POST", path, body, ALICE)
        assert (status, error["error_code"], error["error"].split(":")[0]) == (422, "VALIDATION_ERROR", field)
    status, _, error = start(http, category="c" * 5000)
    assert (status, error["error"].split(":")[0]) == (422, "category")
    reviewed = [
        ({"action": "edit", "stem": "s" * 2001}, "stem"),
        ({"action": "edit", "choices": ["c" * 501] * 4}, "choices"),
        ({"action": "accept", "note": "n" * 1001}, "note"),
    ]
    for body, field in reviewed:
        status, _, error = http("POST", f"/review/questions/{question_id}", body, REVIEWER)
        assert (status, error["error"].split(":")[0]) == (422, field)
    status, _, error = http(
        "POST", "/sessions/s1/answers", {"question_id": question_id, "user_answer": "a" * KB300}, ALICE
    )
    assert (status, error["error_code"]) == (413, "BODY_TOO_LARGE")
    assert table(runtime.cloud, "AttemptsTable").scan()["Items"] == []


# ---------------------------------------------------------------- the review queue
PAGE_BYTES = 1_000_000


def _legacy_question(number, question_id=None):
    """An open question as items stored before the limits could be: texts a little past the
    limits, non-ASCII (3 bytes a character stored, 6 in the JSON response: ~135 KB listed), and
    more long reports than are listed."""
    return {
        "question_id": question_id or str(uuid.uuid4()),
        "session_id": "legacy",
        "round": 1,
        "item_type": "multiple_choice",
        "stem": "질" * 2000,
        "choices": ["가" * 600] * 5,
        "answer_schema": {"correct_key": "A", "explanation": "설" * 4100, "reference_answer": "참" * 4000},
        "difficulty": 5,
        "category": "technical",
        "review_state": "open",
        "queued_at": f"2026-11-23T10:{number:02d}:00Z",
        "review_reasons": {"reported"},
        "reports": [{"reason": "이" * 500, "at": "2026-11-23T10:00:00Z"}] * 25,
    }


def _legacy_attempt(number):
    return {
        "session_id": "legacy",
        "attempt_key": f"q{number}#digest",
        "attempt_id": str(uuid.uuid4()),
        "question_id": f"q{number}",
        "question_type": "short_answer",
        "user_answer": "답" * 30_000,
        "score": 60,
        "is_correct": False,
        "confidence": Decimal("0.4"),
        "needs_review": True,
        "graded_at": f"2026-11-23T10:{number:02d}:30Z",
        "review_state": "open",
        "queued_at": f"2026-11-23T10:{number:02d}:30Z",
    }


def _pages(http, limit=100):
    cursor, pages = None, []
    for _ in range(100):
        path = f"/review/queue?limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        status, _, body = http("GET", path, None, REVIEWER)
        assert status == 200, body
        pages.append(body)
        cursor = body["next_cursor"]
        if cursor is None:
            return pages
    raise AssertionError("the queue's paging never ended")


def test_the_queue_is_paged_bounded_in_bytes_and_paging_reaches_every_entry(http, step_functions):
    cloud = step_functions.runtime.cloud
    questions = [_legacy_question(n) for n in range(20)]
    attempts = [_legacy_attempt(n) for n in range(0, 20, 4)]
    with table(cloud, "QuestionsTable").batch_writer() as batch:
        for item in questions:
            batch.put_item(Item=item)
    with table(cloud, "AttemptsTable").batch_writer() as batch:
        for item in attempts:
            batch.put_item(Item=item)

    pages = _pages(http)
    assert len(pages) > 2
    # Measured as the API serialises a response (Powertools: json.dumps, non-ASCII escaped).
    sizes = [len(json.dumps(page, separators=(",", ":"))) for page in pages]
    assert max(sizes) <= PAGE_BYTES
    assert max(sizes) > 0.8 * PAGE_BYTES  # it is the byte bound that ended a page
    assert all(page["entries"] for page in pages)
    listed = [entry for page in pages for entry in page["entries"]]
    expected = {item["question_id"] for item in questions} | {item["attempt_id"] for item in attempts}
    assert sorted(entry["entry_id"] for entry in listed) == sorted(expected)  # each once
    assert [entry["queued_at"] for entry in listed] == sorted(entry["queued_at"] for entry in listed)
    first = next(entry for entry in listed if entry["kind"] == "question")
    assert first["truncated"] is True
    assert first["question"]["explanation"].endswith("… [truncated]")
    assert len(first["question"]["reports"]) == 20
    assert first["question"]["stem"] == "질" * 2000  # within its contract's limit: whole
    # A small page size pages the same entries, in the same order.
    assert [e["entry_id"] for page in _pages(http, limit=3) for e in page["entries"]] == [
        entry["entry_id"] for entry in listed
    ]


def test_any_one_entry_fits_a_page_however_long_its_stored_texts():
    from slea.contracts.review import Report, ReviewedAttempt, ReviewedQuestion, ReviewEntry
    from slea.logic.review.queue import QUEUE_ENVELOPE_BYTES, QUEUE_PAGE_MAX_BYTES, _listed, _size

    text, texts = "가" * 50_000, ["나" * 5_000] * 100  # non-ASCII: 6 bytes a character as sent
    stored = ReviewedQuestion(
        question_id="q",
        session_id=text,
        type=text,
        stem=text,
        choices=texts,
        correct_answer=text,
        correct_keywords=texts,
        reference_answer=text,
        explanation=text,
        category=text,
        reports=[Report(reason=text, at=text)] * 100,
    )
    attempt = ReviewedAttempt(
        attempt_id="a",
        session_id=text,
        user_answer=text,
        score=1,
        is_correct=False,
        reasoning=text,
        keyword_matches=texts,
        feedback=text,
        graded_at=text,
    )
    entry = ReviewEntry(
        entry_id="a",
        kind="attempt",
        source="grade",
        reasons=["needs_review"],
        queued_at=text,
        learner_id=text,
        session_id=text,
        question=stored.model_copy(update={"language": text}),
        attempt=attempt,
    )
    listed = _listed(entry)
    assert listed.truncated
    assert _size(listed) <= QUEUE_PAGE_MAX_BYTES - QUEUE_ENVELOPE_BYTES


def test_the_web_apps_first_page_request_still_answers_with_entries_and_open(http, step_functions):
    cloud = step_functions.runtime.cloud
    table(cloud, "QuestionsTable").put_item(Item=_legacy_question(1))
    status, _, body = http("GET", "/review/queue?limit=50", None, REVIEWER)
    assert status == 200
    assert (len(body["entries"]), body["open"], body["next_cursor"]) == (1, 1, None)


@pytest.mark.parametrize(
    "cursor",
    [
        "not*base64",
        "x" * 5000,
        base64.urlsafe_b64encode(b"not json").decode().rstrip("="),
        base64.urlsafe_b64encode(json.dumps({"questions": {"queued_at": 1}}).encode()).decode().rstrip("="),
        base64.urlsafe_b64encode(json.dumps({"questions": {"queued_at": "t", "x": "y"}}).encode()).decode().rstrip("="),
    ],
)
def test_a_cursor_the_queue_did_not_issue_is_422_naming_cursor(http, step_functions, cursor):
    status, _, body = http("GET", f"/review/queue?cursor={cursor}", None, REVIEWER)
    assert (status, body["error_code"], body["error"].split(":")[0]) == (422, "VALIDATION_ERROR", "cursor")


def test_the_queue_never_lists_an_entry_a_reviewer_cannot_act_on(http, step_functions):
    cloud = step_functions.runtime.cloud
    for bad_id in ("has space", "slash/in/it", "x" * 129):
        table(cloud, "QuestionsTable").put_item(Item=_legacy_question(2, question_id=bad_id))
    good = _legacy_question(3)
    table(cloud, "QuestionsTable").put_item(Item=good)
    listed = [entry["entry_id"] for page in _pages(http, limit=2) for entry in page["entries"]]
    assert listed == [good["question_id"]]
    status, _, body = http("POST", f"/review/questions/{listed[0]}", {"action": "accept"}, REVIEWER)
    assert status == 200, body


def test_a_report_on_an_id_that_is_not_a_uuid_queues_nothing(http, step_functions):
    cloud = step_functions.runtime.cloud
    own("s1", ALICE)
    legacy = {**_legacy_question(1, question_id="q_legacy_1"), "session_id": "s1"}
    for name in ("review_state", "queued_at", "review_reasons", "reports"):
        legacy.pop(name)
    table(cloud, "QuestionsTable").put_item(Item=legacy)
    status, _, body = http("POST", "/sessions/s1/questions/q_legacy_1/reports", {"reason": "unclear"}, ALICE)
    assert (status, body["error_code"]) == (404, "QUESTION_NOT_FOUND")
    status, _, _ = http("POST", "/sessions/s1/questions/bad%20id/reports", {"reason": "unclear"}, ALICE)
    assert status == 422
    assert "review_state" not in table(cloud, "QuestionsTable").get_item(Key={"question_id": "q_legacy_1"})["Item"]
    assert http("GET", "/review/queue", None, REVIEWER)[2]["open"] == 0


# ---------------------------------------------------------------- per-user rate limits
def _answer(http, session, question_id, user, user_answer="C"):
    return http("POST", f"/sessions/{session}/answers", {"question_id": question_id, "user_answer": user_answer}, user)


def test_a_burst_of_answers_from_one_learner_is_throttled_and_another_learner_is_not(
    http, step_functions, standing_clock
):
    """The functions' clock stands still (the answers take no time, however long the machine
    takes): no answer comes back into the bucket until the test moves the clock on."""
    runtime = step_functions.runtime
    own("s1", ALICE)
    own("s2", BOB)
    ids = _saved_questions(runtime, "s1", 20)
    (bobs,) = _saved_questions(runtime, "s2", 1)
    answered = [_answer(http, "s1", question_id, ALICE) for question_id in ids]
    statuses = [status for status, _, _ in answered]
    assert statuses == [200] * 10 + [429] * 10  # the burst, then nothing until a token comes back
    status, headers, body = answered[10]
    assert body["error_code"] == "RATE_LIMITED"
    assert int(headers["Retry-After"]) == 3
    # Then one per 3 s.
    standing_clock.move(datetime.timedelta(seconds=3))
    assert [_answer(http, "s1", question_id, ALICE)[0] for question_id in ids[10:12]] == [200, 429]
    assert _answer(http, "s2", bobs, BOB)[0] == 200  # per user: Bob's bucket is his own
    # A retry of an answer already recorded is not a new answer: never refused, graded once.
    status, _, again = _answer(http, "s1", ids[0], ALICE)
    assert (status, again["attempt_id"]) == (200, answered[0][2]["attempt_id"])
    # The refused answers were not graded and stay answerable.
    refused = ids[11:]  # refused in the burst and after the clock moved on
    items = table(runtime.cloud, "QuestionsTable")
    assert all("answered_at" not in items.get_item(Key={"question_id": q})["Item"] for q in refused)


def test_a_flood_of_mixed_requests_from_one_learner_is_refused_after_its_burst(http, step_functions, standing_clock):
    """Repeats, unknown ids, listings, history, the ability and review routes: every request of
    a user spends from one budget, so a flood is answered 429 once the burst is spent, whatever it
    asks; another learner is not affected. (The functions' clock stands still: nothing comes back
    into the bucket during the flood, however long the machine takes.)"""
    from slea.security.rate_limits import limit

    runtime = step_functions.runtime
    own("f1", ALICE)
    own("f2", BOB)
    (question_id,) = _saved_questions(runtime, "f1", 1)
    assert _answer(http, "f1", question_id, ALICE)[0] == 200
    mixed = [
        ("POST", "/sessions/f1/answers", {"question_id": question_id, "user_answer": "C"}),  # a repeat
        ("POST", "/sessions/f1/answers", {"question_id": str(uuid.uuid4()), "user_answer": "C"}),  # unknown
        ("GET", "/sessions", None),
        ("GET", "/sessions/f1/attempts", None),
        ("GET", "/learners/me/ability", None),
        ("GET", "/review/queue", None),  # not a reviewer: 403, but it still counts
        ("GET", "/sessions/f1/summary", None),
        ("GET", "/sessions/nope/questions", None),
    ]
    bound = limit("request")
    replies = [http(method, path, body, ALICE) for method, path, body in (mixed * 38)[:300]]
    statuses = [status for status, _, _ in replies]
    refused = [reply for reply in replies if reply[0] == 429]
    assert refused, statuses
    first_refusal = statuses.index(429)
    assert first_refusal == bound.burst - 1  # the answer before the flood spent one
    assert len(statuses) - len(refused) == bound.burst - 1  # refused from there on
    assert all(body["error_code"] == "RATE_LIMITED" for _, _, body in refused)
    assert all(1 <= int(headers["Retry-After"]) <= 60 for _, headers, _ in refused)
    assert http("GET", "/sessions", None, BOB)[0] == 200  # Bob's budget is his own


def test_mcp_requests_spend_the_same_budget_as_the_http_api(http, signed_mcp, monkeypatch):
    from slea.security import rate_limits

    small = rate_limits.Limit(burst=3, interval_seconds=3600)
    generous = rate_limits.Limit(burst=1_000, interval_seconds=0.001)
    monkeypatch.setattr(rate_limits, "limit", lambda action: small if action == "request" else generous)
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert [http("GET", "/sessions", None, ALICE)[0] for _ in range(2)] == [200, 200]
    assert signed_mcp(listing, ALICE)[0] == 200  # the third
    status, headers, refused = signed_mcp(listing, ALICE)
    assert status == 429, refused
    assert int(headers["Retry-After"]) >= 1
    assert http("GET", "/sessions", None, ALICE)[0] == 429


def test_a_burst_of_round_starts_is_throttled(http, step_functions):
    for session in ("r1", "r2", "r3", "r4"):
        own(session, ALICE)
    request = {"count": 1, "question_types": ["true_false"]}
    statuses = [start(http, session=session, **request) for session in ("r1", "r2", "r3", "r4")]
    assert [status for status, _, _ in statuses[:3]] == [202, 202, 202]
    status, headers, body = statuses[3]
    assert (status, body["error_code"]) == (429, "RATE_LIMITED")
    assert 1 <= int(headers["Retry-After"]) <= 20
    record = table(step_functions.runtime.cloud, "SessionsTable").get_item(Key={"session_id": "r4#round#1"})
    assert "Item" not in record  # refused before the round was claimed or the quota taken
    assert start(http, session="b1", user=BOB, **request)[0] == 202
    step_functions.wait_for_running()


def test_the_limiter_fails_open_when_its_table_is_unavailable(http, step_functions, faults):
    runtime = step_functions.runtime
    own("s1", ALICE)
    (question_id,) = _saved_questions(runtime, "s1", 1)
    with faults.dynamodb("rate_limits", "UpdateItem", error="InternalServerError"):
        status, _, body = _answer(http, "s1", question_id, ALICE)
    assert status == 200, body
    # Both budgets the answer spends from failed open: the per-user request budget and its own.
    assert runtime.metric_total("RateLimiterUnavailable") == 2


def test_the_bucket_refills_one_request_per_interval(cloud):
    from slea.dal.rate_limits import take_token

    with cloud.environment(cloud.environment_of("ApiFunction")):
        now = 1_000_000.0
        assert [take_token(ALICE, "round_start", now, 20, 3) for _ in range(3)] == [None] * 3
        assert take_token(ALICE, "round_start", now, 20, 3) == pytest.approx(20)
        assert take_token(ALICE, "round_start", now + 5, 20, 3) == pytest.approx(15)
        assert take_token(ALICE, "round_start", now + 20, 20, 3) is None  # one more after one interval
        assert take_token(ALICE, "round_start", now + 20, 20, 3) == pytest.approx(20)
        assert take_token(ALICE, "round_start", now + 1000, 20, 3) is None  # idle: a full burst again
        assert take_token(ALICE, "answer", now, 20, 3) is None  # each action has its own bucket


def test_a_decision_is_one_write_when_the_bucket_is_in_the_case_it_was_last_seen_in(cloud, monkeypatch):
    """GCRA's two writes (idle bucket, bucket in use) are tried in the order the bucket's last
    known case suggests: a run of requests, or requests far apart, cost one write each; a stale
    hint costs a second write and still decides right."""
    from slea.dal import rate_limits as buckets

    writes = []
    real = buckets.dynamodb

    class Counting:
        def __init__(self, client):
            self.client = client

        def update_item(self, **request):
            writes.append(request["ConditionExpression"])
            return self.client.update_item(**request)

    monkeypatch.setattr(buckets, "dynamodb", lambda tool: Counting(real(tool)))
    monkeypatch.setattr(buckets, "_last_tat", type(buckets._last_tat)())  # no hint left by another test
    with cloud.environment(cloud.environment_of("ApiFunction")):
        now = 2_000_000.0
        assert [buckets.take_token(BOB, "request", now + n * 0.01, 1, 5) for n in range(5)] == [None] * 5
        assert len(writes) == 5  # one each: the first finds it idle, the rest in use as the hint says
        writes.clear()
        assert [buckets.take_token(BOB, "request", now + 100 + 10 * n, 1, 5) for n in range(3)] == [None] * 3
        assert len(writes) == 3  # far apart: each finds the bucket idle, as the hint says
        writes.clear()
        buckets._last_tat[(BOB, "request")] = now + 1_000  # as if another container had seen it busy
        assert buckets.take_token(BOB, "request", now + 200, 1, 5) is None  # a stale hint: two writes, allowed
        assert len(writes) == 2


# ---------------------------------------------------------------- the daily quota
def _usage(step_functions):
    return table(step_functions.runtime.cloud, "UsageTable")


def test_case_variants_of_a_subject_are_one_user_for_the_quota_and_sessions(http, step_functions, midday):
    from slea.dal import usage

    today = usage.today()  # the day the functions count the round on (their clock: midday, never midnight)
    upper = token(ALICE.upper())
    status, _, created = http("POST", "/sessions", None, upper)
    assert status == 201
    session = created["session_id"]
    owner = table(step_functions.runtime.cloud, "SessionsTable").get_item(Key={"session_id": session})["Item"]
    assert owner["user_id"] == ALICE  # stored under the normalised subject
    assert http("GET", f"/sessions/{session}/questions", None, ALICE)[0] == 200  # the same user
    _usage(step_functions).put_item(Item={"user_id": ALICE, "day": today, "rounds": 30})
    status, headers, body = http("POST", f"/sessions/{session}/rounds", {"category": "technical"}, upper)
    assert (status, body["error_code"]) == (429, "QUOTA_EXCEEDED")
    assert 1 <= int(headers["Retry-After"]) <= 86_400
    assert [item["user_id"] for item in _usage(step_functions).scan()["Items"]] == [ALICE]


def test_a_crash_between_the_quota_and_starting_the_execution_gives_the_unit_back_once(
    http, step_functions, monkeypatch, midday
):
    import slea.logic.sessions.progress as session_logic
    from slea.dal import usage
    from slea.dal.rounds import stored_round
    from slea.logic.rounds import lifecycle as round_logic
    from slea.platform import clock

    cloud = step_functions.runtime.cloud

    class Crashing:
        def start_execution(self, **_):
            raise RuntimeError("the function was stopped")  # not an AWS error: nothing cleans up

    with monkeypatch.context() as crashing:
        crashing.setattr(session_logic, "stepfunctions", lambda tool: Crashing())
        assert start(http)[0] == 500
    rounds_table = table(cloud, "SessionsTable")
    claim = rounds_table.get_item(Key={"session_id": "s1#round#1"})["Item"]
    # The day the functions counted it on (their clock: midday, never midnight).
    assert (claim["round_status"], claim["quota_day"]) == ("RUNNING", usage.today())
    assert _usage(step_functions).scan()["Items"][0]["rounds"] == 1
    # Three minutes later the claim is abandoned: two requests find it at once, each with the
    # record as it was, then the round's status is read again.
    stale = (clock.now() - datetime.timedelta(minutes=3)).isoformat()
    rounds_table.update_item(
        Key={"session_id": "s1#round#1"},
        UpdateExpression="SET started_at = :t",
        ExpressionAttributeValues={":t": stale},
    )
    record = {**claim, "started_at": stale, "session_id": "s1"}
    with cloud.environment(cloud.environment_of("ApiFunction")):
        assert round_logic.refreshed(stored_round(record)).round_status == "FAILED"
        assert round_logic.refreshed(stored_round(record)).round_status == "FAILED"
    status, _, body = http("GET", "/sessions/s1/rounds/1", None, ALICE)
    assert (status, body["status"], body["error"]) == (200, "FAILED", "the round's execution was never started")
    assert _usage(step_functions).scan()["Items"][0]["rounds"] == 0  # given back exactly once
    assert step_functions.runtime.metric_total("RoundsNeverStarted") == 1
    assert start(http)[0] == 202  # and the round may start again, taking one unit
    assert _usage(step_functions).scan()["Items"][0]["rounds"] == 1
    step_functions.wait_for_running()


def test_a_failed_start_gives_back_the_day_it_took_even_after_midnight(http, step_functions, monkeypatch):
    from botocore.exceptions import ClientError

    import slea.dal.usage as usage
    import slea.logic.sessions.progress as session_logic

    days = iter(["2026-11-23", "2026-11-24"])  # the quota is taken on one day, the start fails on the next
    monkeypatch.setattr(usage, "today", lambda: next(days))

    class Unavailable:
        def start_execution(self, **_):
            raise ClientError({"Error": {"Code": "ServiceUnavailable", "Message": "down"}}, "StartExecution")

    monkeypatch.setattr(session_logic, "stepfunctions", lambda tool: Unavailable())
    assert start(http)[0] == 503
    (counter,) = _usage(step_functions).scan()["Items"]
    assert (counter["day"], counter["rounds"]) == ("2026-11-23", 0)
    assert "Item" not in table(step_functions.runtime.cloud, "SessionsTable").get_item(Key={"session_id": "s1#round#1"})
