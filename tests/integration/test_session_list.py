"""GET /sessions (resume on any device), the history an attempt keeps, and answers of only
invisible characters, through the HTTP API's events."""

import boto3
import pytest

from tests.integration.test_api import wait_for_questions

KOREAN = "576f24fe-bc2d-4d30-aed1-51a1dd76449c"  # a seeded learner whose profile is in Korean
NEWCOMER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"  # no profile


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def new_session(http, user):
    status, _, body = http("POST", "/sessions", None, user)
    assert status == 201, body
    return body["session_id"]


def key_of(step_functions, question_id):
    table = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("QuestionsTable"))
    schema = table.get_item(Key={"question_id": question_id})["Item"]["answer_schema"]
    return schema.get("correct_key") or " ".join(schema.get("correct_keywords", []))


def test_sessions_list_newest_first_with_each_rounds_progress(http, step_functions, unlimited_rates):
    older = new_session(http, KOREAN)
    newer = new_session(http, KOREAN)
    status, _, started = http("POST", f"/sessions/{newer}/rounds", {"category": "technical", "count": 3}, KOREAN)
    assert status == 202, started
    questions = wait_for_questions(http, newer, KOREAN, 3, polls=300)
    first = questions[0]
    answer = {"question_id": first["question_id"], "user_answer": key_of(step_functions, first["question_id"])}
    assert http("POST", f"/sessions/{newer}/answers", answer, KOREAN)[0] == 200

    status, _, listed = http("GET", "/sessions", None, KOREAN)
    assert status == 200, listed
    assert listed["language"] == "ko"
    assert [s["session_id"] for s in listed["sessions"]] == [newer, older]
    progress = listed["sessions"][0]["rounds"]
    assert len(progress) == 1
    assert progress[0]["round"] == 1
    assert progress[0]["questions"] == 3
    assert progress[0]["answered"] == 1
    assert progress[0]["finished"] is False
    assert listed["sessions"][1]["rounds"] == []
    # The questions say which are answered: a page resumes at the first that is not.
    _, _, shown = http("GET", f"/sessions/{newer}/questions", None, KOREAN)
    assert [q["answered"] for q in shown["questions"]] == [True, False, False]


def test_sessions_are_paged_and_only_the_callers(http, step_functions):
    made = [new_session(http, NEWCOMER) for _ in range(3)]
    new_session(http, KOREAN)  # another learner's: never listed for NEWCOMER
    status, _, page = http("GET", "/sessions?limit=2", None, NEWCOMER)
    assert status == 200, page
    assert page["language"] is None  # no profile: the page keeps its own choice
    assert len(page["sessions"]) == 2
    assert page["next_cursor"]
    status, _, rest = http("GET", f"/sessions?limit=2&cursor={page['next_cursor']}", None, NEWCOMER)
    assert status == 200, rest
    listed = [s["session_id"] for s in page["sessions"] + rest["sessions"]]
    assert sorted(listed) == sorted(made)
    assert rest["next_cursor"] is None
    # Another learner's cursor, or a forged one, is refused naming the field.
    status, _, refused = http("GET", f"/sessions?cursor={page['next_cursor']}", None, KOREAN)
    assert status == 422
    assert refused["error"].startswith("cursor")
    status, _, refused = http("GET", "/sessions?cursor=bm90LWpzb24", None, NEWCOMER)
    assert status == 422
    assert refused["error"].startswith("cursor")
    assert http("GET", "/sessions?limit=21", None, NEWCOMER)[0] == 422


def test_the_list_says_which_session_is_a_placement_test(http, step_functions):
    """A page resumes a placement test with POST .../next, not as a round: the listing says which."""
    practice = new_session(http, NEWCOMER)
    status, _, created = http("POST", "/sessions", {"purpose": "placement", "category": "business"}, NEWCOMER)
    assert status == 201, created
    status, _, listed = http("GET", "/sessions", None, NEWCOMER)
    assert status == 200, listed
    purposes = [(s["session_id"], s["purpose"]) for s in listed["sessions"]]
    assert purposes == [(created["session_id"], "placement"), (practice, "practice")]


@pytest.mark.parametrize("blank", ["\u200b", "\u200d\ufeff\u2060", "\x01\x7f", "\u200e\u202e\u2066", " \u3164 "])
def test_an_answer_of_only_invisible_characters_is_422_naming_user_answer(http, step_functions, blank):
    session = new_session(http, NEWCOMER)
    body = {"question_id": "q1", "user_answer": blank}
    status, _, refused = http("POST", f"/sessions/{session}/answers", body, NEWCOMER)
    assert status == 422, refused
    assert refused["error"].startswith("user_answer")


def test_history_keeps_the_question_and_the_explanation(http, step_functions, unlimited_rates):
    session = new_session(http, KOREAN)
    http("POST", f"/sessions/{session}/rounds", {"category": "technical", "count": 2}, KOREAN)
    questions = wait_for_questions(http, session, KOREAN, 2, polls=300)
    first = questions[0]
    mine = {"question_id": first["question_id"], "user_answer": "모르겠어요"}
    status, _, graded = http("POST", f"/sessions/{session}/answers", mine, KOREAN)
    assert status == 200, graded
    _, _, listed = http("GET", f"/sessions/{session}/attempts", None, KOREAN)
    (attempt,) = listed["attempts"]
    assert attempt["question_stem"] == first["stem"]
    assert attempt["question_type"] == first["type"]
    assert attempt["question_choices"] == (first["choices"] or None)  # a choice is shown by its text
    assert attempt["explanation"] == graded["explanation"]
    assert attempt["reference_links"] == graded["reference_links"]
    assert attempt["details"] == graded["details"]
    assert attempt["user_answer"] == "모르겠어요"
    # The unanswered question appears nowhere: no key of it leaves the server.
    assert questions[1]["question_id"] not in str(listed)
