"""The reviewer's side through the HTTP API: the queue filtered, searched, sorted and
paged (correctly under filtering), entries with their learner, session, round and source, one
BatchGetItem for a page's questions, bulk accept, and reviewers' names in the record."""

import base64
import json
from decimal import Decimal
from typing import Any

import boto3
import pytest

from tests.integration.test_review_api import CAROL, REVIEWER, token

LEARNER = "5d7c1e2a-3b4f-4a6d-8e9f-0a1b2c3d4e5f"
RLO = "\u202e"


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def _table(cloud: Any, logical_id: str) -> Any:
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def seed_queue(cloud: Any, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Open queue entries as the grader and the reports leave them. A spec: kind ("attempt" or
    "question"), and optionally type, category, language, stem, answer, confidence, reason."""
    attempts, questions = _table(cloud, "AttemptsTable"), _table(cloud, "QuestionsTable")
    made = []
    for number, spec in enumerate(specs):
        queued_at = f"2026-11-24T09:{number // 60:02d}:{number % 60:02d}.000Z"
        question_id = f"rq-{number:03d}"
        item_type = spec.get("type", "short_answer")
        question = {
            "question_id": question_id,
            "session_id": f"rs-{number % 3}",
            "round": 1 + number % 2,
            "item_type": item_type,
            "stem": spec.get("stem", f"Explain item {number} of the queue."),
            "answer_schema": {"correct_keywords": ["retrieval"]}
            if item_type == "short_answer"
            else {"correct_key": "A"},
            "choices": ["A) one", "B) two"] if item_type == "multiple_choice" else None,
            "difficulty": 5,
            "category": spec.get("category", "technical"),
            "language": spec.get("language", "en"),
        }
        question = {name: value for name, value in question.items() if value is not None}
        if spec["kind"] == "question":
            question |= {
                "review_state": "open",
                "queued_at": queued_at,
                "review_reasons": {spec.get("reason", "reported")},
                "reports": [{"reason": "unclear", "at": queued_at}]
                if spec.get("reason", "reported") == "reported"
                else [],
            }
            questions.put_item(Item=question)
            made.append({"id": question_id, "kind": "question", **spec})
            continue
        questions.put_item(Item=question)
        attempt_id = f"ra-{number:03d}"
        attempts.put_item(
            Item={
                "session_id": question["session_id"],
                "attempt_key": f"{question_id}#digest",
                "attempt_id": attempt_id,
                "question_id": question_id,
                "user_id": spec.get("user", LEARNER),
                "round": question["round"],
                "question_type": item_type,
                "user_answer": spec.get("answer", f"Answer number {number}."),
                "score": 40,
                "is_correct": False,
                "confidence": Decimal(str(spec.get("confidence", 0.5))),
                "needs_review": True,
                "graded_at": queued_at,
                "review_state": "open",
                "queued_at": queued_at,
            }
        )
        made.append({"id": attempt_id, "kind": "attempt", **spec})
    return made


def _all_pages(http: Any, query: str, token_: str = REVIEWER) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Every page of the queue for `query`: the ids of each page, and every entry."""
    pages, entries, cursor = [], [], None
    for _ in range(50):
        path = f"/review/queue?{query}" + (f"&cursor={cursor}" if cursor else "")
        status, _, body = http("GET", path, None, token_)
        assert status == 200, body
        pages.append([entry["entry_id"] for entry in body["entries"]])
        entries.extend(body["entries"])
        cursor = body["next_cursor"]
        if cursor is None:
            return pages, entries
    raise AssertionError("the cursor never ended")


def test_each_entry_carries_its_learner_session_round_queued_at_and_source(http, step_functions):
    seed_queue(
        step_functions.runtime.cloud,
        [{"kind": "attempt"}, {"kind": "question"}, {"kind": "question", "reason": "misfit"}],
    )
    _, entries = _all_pages(http, "limit=10")
    attempt, reported, flagged = entries
    assert (attempt["source"], attempt["learner_id"], attempt["session_id"], attempt["round"]) == (
        "grade",
        LEARNER,
        "rs-0",
        1,
    )
    assert attempt["queued_at"] == "2026-11-24T09:00:00.000Z"
    assert attempt["question"]["stem"] == "Explain item 0 of the queue."  # joined from the stored question
    assert (reported["source"], reported["session_id"], reported["round"]) == ("report", "rs-1", 2)
    assert flagged["source"] == "item"


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("source=grade", lambda s: s["kind"] == "attempt"),
        ("source=report", lambda s: s["kind"] == "question" and s.get("reason", "reported") == "reported"),
        ("source=item", lambda s: s["kind"] == "question" and s.get("reason") == "misfit"),
        ("item_type=multiple_choice", lambda s: s.get("type") == "multiple_choice"),
        ("category=business", lambda s: s.get("category") == "business"),
        ("language=ko", lambda s: s.get("language") == "ko"),
        ("language=en&item_type=short_answer", lambda s: s.get("language", "en") == "en" and "type" not in s),
        ("q=RETRIEVAL", lambda s: "retrieval" in s.get("answer", "").casefold()),
        ("q=%EA%B2%80%EC%83%89", lambda s: "검색" in s.get("stem", "") + s.get("answer", "")),  # 검색, in Korean
    ],
)
def test_filters_and_search_page_through_the_whole_queue_each_match_once(http, step_functions, query, wanted):
    """Small pages (limit=2) of a queue where matches are sparse: the cursor continues where the
    filtered read stopped, so every match comes exactly once, in order, across short pages."""
    specs = []
    for number in range(24):
        spec: dict[str, Any] = {"kind": "attempt" if number % 3 else "question"}
        if number % 4 == 1:
            spec["type"] = "multiple_choice"
        if number % 5 == 2:
            spec["category"] = "business"
        if number % 6 == 3:
            spec |= {"language": "ko", "stem": "검색 증강 생성이란 무엇인가?"}
        if number % 7 == 4 and spec["kind"] == "attempt":
            spec["answer"] = "It does Retrieval before it writes."
        if spec["kind"] == "question" and number % 2:
            spec["reason"] = "misfit"
        specs.append(spec)
    made = seed_queue(step_functions.runtime.cloud, specs)
    expected = [item["id"] for item in made if wanted(item)]
    assert expected, "the test's queue has no match"
    pages, _ = _all_pages(http, f"limit=2&{query}")
    assert [entry for page in pages for entry in page] == expected
    assert all(len(page) <= 2 for page in pages)


def test_newest_first_and_least_sure_first(http, step_functions):
    made = seed_queue(
        step_functions.runtime.cloud,
        [{"kind": "attempt", "confidence": c} for c in (0.6, 0.2, 0.9, 0.4)] + [{"kind": "question"}],
    )
    ids = [item["id"] for item in made]
    pages, _ = _all_pages(http, "limit=2&sort=queued_desc")
    assert [entry for page in pages for entry in page] == ids[::-1]
    pages, entries = _all_pages(http, "limit=3&sort=confidence")
    # Least sure grades first, then the question entries (they have no confidence): none dropped.
    assert [entry for page in pages for entry in page] == ["ra-001", "ra-003", "ra-000", "ra-002", "rq-004"]
    assert [entry["attempt"]["confidence"] for entry in entries[:4]] == [0.2, 0.4, 0.6, 0.9]


@pytest.mark.parametrize("sort", ["queued_asc", "queued_desc", "confidence"])
@pytest.mark.parametrize("limit", [1, 50])
@pytest.mark.parametrize("query", ["", "&source=grade", "&source=report", "&item_type=short_answer", "&q=item"])
def test_every_sort_and_filter_keeps_every_matching_entry_once(http, step_functions, sort, limit, query):
    made = seed_queue(
        step_functions.runtime.cloud,
        [{"kind": "attempt", "confidence": c} for c in (0.6, 0.2, 0.9)]
        + [{"kind": "question"}, {"kind": "question", "reason": "misfit"}, {"kind": "question", "type": "true_false"}],
    )
    everything = {item["id"] for item in made}
    wanted = {
        "": everything,
        "&source=grade": {item["id"] for item in made if item["kind"] == "attempt"},
        "&source=report": {"rq-003", "rq-005"},
        "&item_type=short_answer": everything - {"rq-005"},
        "&q=item": everything,  # every stem says "item"
    }[query]
    _, entries = _all_pages(http, f"limit={limit}&sort={sort}{query}")
    listed = [entry["entry_id"] for entry in entries]
    assert sorted(listed) == sorted(wanted)  # each matching entry, once


def test_a_cursor_is_only_good_for_its_own_filters_and_sort(http, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"} for _ in range(5)])
    _, _, first = http("GET", "/review/queue?limit=2&source=grade", None, REVIEWER)
    cursor = first["next_cursor"]
    status, _, refused = http("GET", f"/review/queue?limit=2&cursor={cursor}", None, REVIEWER)
    assert (status, refused["error_code"]) == (422, "VALIDATION_ERROR")
    assert refused["error"].startswith("cursor:")
    status, _, refused = http("GET", f"/review/queue?limit=2&sort=confidence&cursor={cursor}", None, REVIEWER)
    assert status == 422
    # A forged cursor that claims the confidence index under the default view is refused too.
    forged = {"attempts": {"queued_at": "x", "confidence": 0.5, "session_id": "s", "attempt_key": "k"}}
    text = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode().rstrip("=")
    status, _, refused = http("GET", f"/review/queue?limit=2&cursor={text}", None, REVIEWER)
    assert (status, refused["error"]) == (422, "cursor: not a cursor of this sort")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("q=" + "x" * 101, "q"),
        ("q=%20%20", "q"),
        ("source=everything", "source"),
        ("sort=score", "sort"),
        ("language=fr", "language"),
    ],
)
def test_bad_filters_name_the_field(http, step_functions, query, field):
    status, _, body = http("GET", f"/review/queue?{query}", None, REVIEWER)
    assert status == 422
    assert body["error"].startswith(f"{field}:")


def test_a_page_reads_its_questions_in_one_batch(http, step_functions, monkeypatch):
    from slea.dal import review

    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"} for _ in range(12)])
    batches: list[int] = []
    real = review.questions_by_id
    monkeypatch.setattr(review, "questions_by_id", lambda ids: batches.append(len(ids)) or real(ids))
    gets: list[str] = []
    real_get = review.get_question
    monkeypatch.setattr(review, "get_question", lambda question_id: gets.append(question_id) or real_get(question_id))
    status, _, body = http("GET", "/review/queue?limit=50", None, REVIEWER)
    assert status == 200
    assert len(body["entries"]) == 12
    assert batches == [12]
    assert gets == []  # no read per entry


def _reviewer_token(**claims: Any) -> str:
    return token(CAROL, **{"cognito:groups": ["reviewers"], **claims})


def _pool_token(user_pool: Any, **claims: Any) -> str:
    """The token the local user pool gives the reviewer CAROL with `claims`: an ID token when they
    give a name or an email (a pool ID token always carries the user's email), else an access
    token (no name, no email; its username is the subject, as in a pool whose usernames are
    emails, like this stack's)."""
    reviewer = {"sub": CAROL, "cognito:groups": ["reviewers"]}
    if "name" in claims or "email" in claims:
        return str(user_pool.token_for({**reviewer, **claims}))
    return str(user_pool.token_for({**reviewer, "username": CAROL, **claims}, use="access"))


@pytest.mark.parametrize(
    ("claims", "shown"),
    [
        ({"name": "Rita Reviewer", "email": "rita@example.com"}, "Rita Reviewer"),
        ({"name": "김리뷰"}, "김리뷰"),
        ({"email": "rita@example.com"}, "rita@example.com"),
        ({"username": "rita.k"}, "rita.k"),  # a Cognito access token: no name, no email
        ({}, CAROL),
        ({"name": f"{RLO}evil\u200f  \n name"}, "evil name"),  # controls dropped, spaces folded
        ({"name": "   ", "email": "e@x.org"}, "e@x.org"),
        ({"name": "n" * 500}, "n" * 128),
    ],
)
def test_the_reviewers_name_is_recorded_with_the_action_and_in_the_audit(
    http, user_pool, step_functions, claims, shown
):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}, {"kind": "question"}])
    reviewer = _pool_token(user_pool, **claims)
    status, _, done = http("POST", "/review/attempts/ra-000", {"action": "accept"}, reviewer)
    assert status == 200, done
    assert (done["reviewed_by"], done["reviewed_by_name"]) == (CAROL, shown)
    status, _, done = http("POST", "/review/questions/rq-001", {"action": "accept"}, reviewer)
    assert done["reviewed_by_name"] == shown
    _, _, history = http("GET", "/review/audit?target_id=ra-000", None, REVIEWER)
    assert [(r["who"], r["who_name"]) for r in history["records"]] == [(CAROL, shown)]
    stored = _table(step_functions.runtime.cloud, "AttemptsTable").get_item(
        Key={"session_id": "rs-0", "attempt_key": "rq-000#digest"}
    )["Item"]
    assert stored["reviewed_by_name"] == shown


def test_recent_reviews_list_every_reviewers_latest_actions_newest_first(http, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"} for _ in range(4)])
    for number, name in enumerate(["Rita", "Sam", "Rita"]):
        body = {"action": "override", "score": 90, "note": f"note {number}"}
        assert http("POST", f"/review/attempts/ra-00{number}", body, _reviewer_token(name=name))[0] == 200
    status, _, recent = http("GET", "/review/audit/recent?limit=2", None, REVIEWER)
    assert status == 200
    assert [(r["target_id"], r["who_name"], r["note"]) for r in recent["records"]] == [
        ("ra-002", "Rita", "note 2"),
        ("ra-001", "Sam", "note 1"),
    ]
    assert recent["records"][0]["before"]["score"] == 40
    assert recent["records"][0]["after"]["score"] == 90
    assert http("GET", "/review/audit/recent?limit=0", None, REVIEWER)[0] == 422
    assert http("GET", "/review/audit/recent", None, token(LEARNER))[0] == 403


def test_bulk_accept_accepts_each_reports_each_and_a_repeat_changes_nothing(http, step_functions):
    cloud = step_functions.runtime.cloud
    seed_queue(cloud, [{"kind": "attempt"}, {"kind": "attempt"}, {"kind": "attempt", "user": CAROL}])
    ids = ["ra-000", "ra-001", "ra-002", "ra-404"]
    status, _, done = http("POST", "/review/attempts/accept", {"attempt_ids": ids, "note": "fine"}, REVIEWER)
    assert status == 200, done
    assert [(r["attempt_id"], r["status"]) for r in done["results"]] == [
        ("ra-000", "accepted"),
        ("ra-001", "accepted"),
        ("ra-002", "own_attempt"),
        ("ra-404", "not_found"),
    ]
    assert done["accepted"] == 2
    assert done["results"][0]["score"] == 40
    _, _, queue = http("GET", "/review/queue", None, REVIEWER)
    assert [entry["entry_id"] for entry in queue["entries"]] == []  # ra-002 is the reviewer's own: not listed
    _, _, stats = http("GET", "/review/stats", None, REVIEWER)
    assert (stats["accepted"], stats["reviewed"]) == (2, 2)

    status, _, again = http("POST", "/review/attempts/accept", {"attempt_ids": ids[:2], "note": "x"}, REVIEWER)
    assert [r["status"] for r in again["results"]] == ["already_reviewed", "already_reviewed"]
    assert again["accepted"] == 0
    _, _, stats = http("GET", "/review/stats", None, REVIEWER)
    assert stats["accepted"] == 2  # counted once
    _, _, history = http("GET", "/review/audit?target_id=ra-000", None, REVIEWER)
    assert [(r["action"], r["note"]) for r in history["records"]] == [("accept", "fine")]  # one record


def test_a_bulk_accept_racing_another_reviewer_counts_the_grade_once(http, step_functions, monkeypatch):
    """The bulk request read the attempt before another reviewer's accept landed: its transaction
    is conditioned on no review yet, fails, and the attempt is reported already reviewed."""
    from slea.dal import review
    from slea.dal.attempts import stored_attempt
    from slea.dal.wire_format import from_item

    cloud = step_functions.runtime.cloud
    seed_queue(cloud, [{"kind": "attempt"}])
    stale = stored_attempt(
        from_item(
            boto3.client("dynamodb").get_item(
                TableName=cloud.table_name("AttemptsTable"),
                Key={"session_id": {"S": "rs-0"}, "attempt_key": {"S": "rq-000#digest"}},
            )["Item"]
        )
    )
    assert http("POST", "/review/attempts/ra-000", {"action": "accept"}, _reviewer_token(name="Sam"))[0] == 200
    real = review.attempt_by_id
    reads = iter([stale])
    monkeypatch.setattr(review, "attempt_by_id", lambda attempt_id: next(reads, None) or real(attempt_id))
    status, _, done = http("POST", "/review/attempts/accept", {"attempt_ids": ["ra-000"], "note": "x"}, REVIEWER)
    assert status == 200, done
    assert [r["status"] for r in done["results"]] == ["already_reviewed"]
    _, _, stats = http("GET", "/review/stats", None, REVIEWER)
    assert stats["accepted"] == 1
    _, _, history = http("GET", "/review/audit?target_id=ra-000", None, REVIEWER)
    assert [r["who_name"] for r in history["records"]] == ["Sam"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"attempt_ids": []}, "attempt_ids"),
        ({"attempt_ids": [f"a{n}" for n in range(51)]}, "attempt_ids"),
        ({"attempt_ids": ["a1", "a1"]}, "attempt_ids"),
        ({"attempt_ids": ["../etc"]}, "attempt_ids"),  # the detail names the index
        ({"attempt_ids": ["a1"], "note": "n" * 1001}, "note"),
    ],
)
def test_a_bad_bulk_accept_names_the_field(http, step_functions, body, field):
    status, _, refused = http("POST", "/review/attempts/accept", body, REVIEWER)
    assert status == 422
    assert refused["error"].startswith(f"{field}:"), refused


def test_bulk_accept_is_for_reviewers_only(http, step_functions):
    seed_queue(step_functions.runtime.cloud, [{"kind": "attempt"}])
    status, _, refused = http("POST", "/review/attempts/accept", {"attempt_ids": ["ra-000"]}, token(LEARNER))
    assert (status, refused["error_code"]) == (403, "FORBIDDEN")
