"""GET /learners/me/attempts: the caller's answers across all their sessions, newest first, a
page at a time (a cursor bound to the caller), optionally one of their sessions only."""

import base64
import json

import pytest

from tests.security.test_key_leaks import DEMO_USER, KOREAN_USER, answer, saved_session

pytestmark = pytest.mark.usefixtures("unlimited_rates")


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def two_sessions(http, step_functions):
    """Two sessions of the demo learner, two answers each (the first session's answered first)."""
    runtime = step_functions.runtime
    answered = []
    for session in ("history-1", "history-2"):
        for question_id in saved_session(runtime, session, DEMO_USER, "en"):
            answered.append(answer(http, session, DEMO_USER, question_id, "B")["attempt_id"])
    return answered


def pages(http, query, user=DEMO_USER):
    found, cursor = [], None
    while True:
        status, _, page = http(
            "GET", f"/learners/me/attempts?{query}" + (f"&cursor={cursor}" if cursor else ""), None, user
        )
        assert status == 200, page
        found.append(page["attempts"])
        cursor = page["next_cursor"]
        if not cursor:
            return found


def test_every_sessions_answers_newest_first_a_page_at_a_time(http, step_functions):
    answered = two_sessions(http, step_functions)
    listed = pages(http, "limit=3")
    assert [len(page) for page in listed] == [3, 1]
    flat = [attempt for page in listed for attempt in page]
    assert [attempt["attempt_id"] for attempt in flat] == list(reversed(answered))
    assert [attempt["session_id"] for attempt in flat] == ["history-2", "history-2", "history-1", "history-1"]
    assert all(attempt["question_stem"] and attempt["graded_at"] for attempt in flat)
    assert "unguarded" not in json.dumps(flat)  # what was held back comes only as the attempt's own fields

    one = pages(http, "limit=1&session_id=history-1")
    assert [[attempt["attempt_id"] for attempt in page] for page in one] == [[answered[1]], [answered[0]]]
    # Another learner has none of them.
    assert pages(http, "limit=5", KOREAN_USER) == [[]]


def test_a_cursor_and_a_session_are_the_callers_own(http, step_functions):
    two_sessions(http, step_functions)
    page = http("GET", "/learners/me/attempts?limit=1", None, DEMO_USER)[2]
    cursor = page["next_cursor"]
    assert http("GET", f"/learners/me/attempts?cursor={cursor}", None, KOREAN_USER)[0] == 422
    forged = base64.urlsafe_b64encode(b'{"user_id": "x"}').decode().rstrip("=")
    assert http("GET", f"/learners/me/attempts?cursor={forged}", None, DEMO_USER)[0] == 422
    assert http("GET", "/learners/me/attempts?cursor=!!", None, DEMO_USER)[0] == 422
    # A cursor of the whole history is no cursor of one session's.
    assert http("GET", f"/learners/me/attempts?session_id=history-1&cursor={cursor}", None, DEMO_USER)[0] == 422
    assert http("GET", "/learners/me/attempts?session_id=history-1", None, KOREAN_USER)[0] == 403
    assert http("GET", "/learners/me/attempts?session_id=nobody", None, DEMO_USER)[0] == 404
    assert http("GET", "/learners/me/attempts?limit=21", None, DEMO_USER)[0] == 422
    assert http("GET", "/learners/me/attempts?limit=0", None, DEMO_USER)[0] == 422
    assert http("GET", "/learners/me/attempts", None, None)[0] == 401
