"""Least privilege, both ways: every function is driven through its main paths in-process, each
AWS operation it performs is recorded (tests/aws_operations.py), and the recording is compared
with the function's Policies in template.yaml: nothing used that is not granted, nothing granted
that is never used (exceptions: tests/aws_operations.py UNUSED_GRANT_EXCEPTIONS, with reasons)."""

import glob
import json
import uuid
from pathlib import Path

import boto3
import pytest

from bench import skip_routes
from slea.dal import usage
from slea.logic.rounds.collection import REPEATS_WITHDRAWN_FEEDBACK
from slea_local import REPO_ROOT
from slea_local.cloud import LocalCloud
from slea_local.runtime import LocalRuntime, QueuePoller, StreamPoller
from tests.aws_operations import (
    SAM_POLICY_TEMPLATES,
    UNUSED_GRANT_EXCEPTIONS,
    Grant,
    Use,
    check,
    expand_policies,
    iam_uses,
    principals,
    recording,
)
from tests.integration.test_api import wait_for_questions
from tests.integration.test_bank_rounds import SECOND as SECOND_LEARNER
from tests.integration.test_bank_rounds import plan_event
from tests.integration.test_save_generated_question import question

ALICE = "550e8400-e29b-41d4-a716-446655440000"
REGION = "us-east-1"
TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/questions"


# ---------------------------------------------------------------- the template, driven end to end
PLACED = "6a1c8e2f-3b4d-4c5e-8f9a-0b1c2d3e4f5a"  # a learner who takes a placement test


def test_every_function_uses_exactly_what_template_yaml_grants(http, step_functions, faults, midday):
    runtime: LocalRuntime = step_functions.runtime
    cloud = runtime.cloud
    with recording() as recorded:
        # Mode 2 API: create a session, start a round in it (the daily quota, StartExecution ->
        # the whole state machine: Tools 1-5, plan, collect, finish), list its questions, answer
        # them, list the attempts.
        # The web app's pages (no token, no AWS operation).
        assert http("GET", "/")[0] == 200
        status, _, created = http("POST", "/sessions", None, ALICE)
        assert status == 201, created
        session = created["session_id"]
        status, _, started = http("POST", f"/sessions/{session}/rounds", {"category": "technical", "count": 3}, ALICE)
        assert status == 202, started
        questions = wait_for_questions(http, session, count=3)
        step_functions.wait_for_running()
        for item in questions:
            status, _, graded = http(
                "POST", f"/sessions/{session}/answers", {"question_id": item["question_id"], "user_answer": "C"}, ALICE
            )
            assert status == 200, graded
        assert http("GET", f"/sessions/{session}/attempts", None, ALICE)[0] == 200
        # Round 2 is next: the summary plans its difficulty from the learner's ability.
        assert http("GET", f"/sessions/{session}/summary", None, ALICE)[2]["next_round"] == 2
        # Round 2 plans from round 1's attempts.
        status, _, started = http(
            "POST", f"/sessions/{session}/rounds", {"category": "technical", "count": 3, "round": 2}, ALICE
        )
        assert status == 202, started
        second_round = [q for q in wait_for_questions(http, session, count=6) if q["round"] == 2]
        step_functions.wait_for_running()
        # A question skipped on purpose (counted as wrong, one transaction), then the round left
        # open past its time limit: the level read counts the rest (the open-sessions index).
        status, _, skipped = http(
            "POST", f"/sessions/{session}/questions/{second_round[0]['question_id']}/skip", None, ALICE
        )
        assert status == 200, skipped
        skip_routes.age_rounds(cloud, ALICE)
        assert http("GET", "/learners/me/ability", None, ALICE)[2]["abilities"][0]["skipped"] == 3
        _mcp_tools(step_functions, cloud, faults)
        _issue_12_routes(http, cloud, session, questions)
        _calibration(http, step_functions)
        _placement(http, step_functions)

        # A learner with Alice's interests is served round 1's items from the bank: copies saved
        # and counted in one transaction; the retried plan finds them (tests/integration/test_bank_rounds.py).
        planned = runtime.invoke("plan_round", plan_event(SECOND_LEARNER, "iam-bank", "iam-bank-plan"))
        assert planned["drawn"]
        assert runtime.invoke("plan_round", plan_event(SECOND_LEARNER, "iam-bank", "iam-bank-plan")) == planned
        # A learner with no estimate yet plans round 2 by the earlier rule, from round 1's attempts.
        round_two = plan_event(SECOND_LEARNER, session, "iam-round-two")
        round_two["request"] |= {"round": 2, "category": "business"}
        assert "round 1:" in runtime.invoke("plan_round", round_two)["difficulty_reason"]
        # A round its own concept record cannot write in full: the generation step reads a
        # neighbouring difficulty's record (tests/integration/test_round_shortfall.py).
        short_record = json.loads((REPO_ROOT / "events/generate_questions/valid.json").read_text())
        for field in ("concepts", "keywords"):
            short_record["keywords"][field] = short_record["keywords"][field][:1]
        short_record |= {"count": 4, "session_id": "iam-fill", "fill_difficulties": [6]}
        filled = runtime.invoke("generate_questions", short_record)["questions"]
        assert {draft["difficulty"] for draft in filled} >= {6}

        # Tool 5: a new question, the same save again (already saved: the item comes back with the
        # failed conditional write), and a failed write that goes to the retry queue.
        first = runtime.invoke("save_generated_question", question())
        assert runtime.invoke("save_generated_question", question(question_id=first["question_id"]))["success"]
        short = runtime.invoke(
            "save_generated_question",
            question(item_type="short_answer", choices=None, correct_key=None, correct_keywords=["RAG", "retrieval"]),
        )
        with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
            queued = runtime.invoke("save_generated_question", question(stem="What is a vector index?"))
        assert queued["success"] is False
        # An account farm's round given the stem and key of a bank item: the item is read (in the
        # bank), the question saved as its copy, and the item rests; the same, queued, by the retry
        # worker (of another item: the first rests now).
        farm = {"question_id": str(uuid.uuid4()), "rest_reason": "farm"}
        assert runtime.invoke("save_generated_question", question(**farm))["success"]
        short_answer = {"item_type": "short_answer", "choices": None, "correct_key": None}
        with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
            farm_queued = question(
                question_id=str(uuid.uuid4()), rest_reason="farm", correct_keywords=["RAG", "retrieval"], **short_answer
            )
            assert runtime.invoke("save_generated_question", farm_queued)["success"] is False
        # The rested item's stem and key again: refused (read, nothing written); the same, queued,
        # dropped by the retry worker.
        refused = runtime.invoke("save_generated_question", question(question_id=str(uuid.uuid4())))
        assert (refused["success"], refused["queued_for_retry"]) == (False, False)
        with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
            withdrawn_queued = runtime.invoke("save_generated_question", question(question_id=str(uuid.uuid4())))
        assert withdrawn_queued["queued_for_retry"] is True
        # A round's draft with that stem and key: collecting reads its claim and the holder, and
        # asks for another question in its place.
        collected = runtime.invoke("collect_round", _repeating_draft(planned, question()))
        assert REPEATS_WITHDRAWN_FEEDBACK in collected["feedback"]

        # Tool 6 by direct invocation: a stored multiple-choice question (explanation cache), a
        # stored short answer (the session's questions for the copy check), each retried once.
        base = {"session_id": "iam-direct", "user_id": ALICE, "difficulty": 7}
        for event in (
            {
                **base,
                "question_id": first["question_id"],
                "question_type": "multiple_choice",
                "user_answer": "C",
                "correct_answer": "C",
            },
            {
                **base,
                "question_id": short["question_id"],
                "question_type": "short_answer",
                "user_answer": "RAG is retrieval plus generation",
                "correct_keywords": ["RAG", "retrieval"],
            },
        ):
            assert runtime.invoke("score_and_explain", event) == runtime.invoke("score_and_explain", event)

        # The retry worker saves the queued question; redelivered, it finds it already saved.
        report = QueuePoller(runtime, "RetryQueue").drain(redeliver=lambda message: True)
        assert report.deleted == 3  # Tool 5's queued saves (one dropped: it repeats a withdrawn item)
        assert report.reported_failures == 0

    assert recorded.invoked == set(principals(cloud))
    findings = recorded.findings(check_unused=True)
    assert not findings.missing, "\n" + findings.report()
    assert not findings.unused, "\n" + findings.report()


def _repeating_draft(plan, saved):
    """A collection step's input: the round `plan` with one valid draft, the Tool 5 question
    `saved` as the writer would have drafted it."""
    draft = {
        "question_id": str(uuid.uuid4()),
        "type": saved["item_type"],
        "stem": saved["stem"],
        "choices": saved["choices"],
        "correct_answer": saved["correct_key"],
        "explanation": saved["explanation"],
        "difficulty": saved["difficulty"],
    }
    verdict = {
        "is_valid": True,
        "score": 0.9,
        "rule_score": 0.9,
        "final_score": 0.9,
        "feedback": "",
        "issues": [],
        "recommendation": "pass",
    }
    return {"plan": plan, "questions": [draft], "verdicts": [verdict]}


def _mcp_tools(step_functions, cloud, faults):
    """The MCP server (McpFunction): every tool over /mcp as an agent calls it (the authoring tools
    as an author), a round started and followed, an author's failed save (an error, no retry
    queue), and a round that the daily quota refuses."""
    from tests.integration.test_mcp import AUTHOR_CLAIMS, tool_call

    runtime = step_functions.runtime

    def call(tool, arguments, claims=None):
        return tool_call(runtime, tool, arguments, claims=claims)

    def author(tool, arguments):
        return call(tool, arguments, AUTHOR_CLAIMS)

    assert not call("get_user_profile", {"user_id": ALICE}).get("isError")
    assert not author("search_question_templates", {"interests": ["AI"], "difficulty": 5, "category": "technical"})[
        "isError"
    ]
    assert not author("get_difficulty_keywords", {"difficulty": 9, "category": "business"})["isError"]
    started = call("start_round", {"category": "technical", "count": 2, "question_types": ["multiple_choice"]})
    session = started["structuredContent"]["session_id"]
    assert call("get_round", {"session_id": session})["structuredContent"]["status"] == "RUNNING"
    step_functions.wait_for_running()
    round_items = call("get_round", {"session_id": session})["structuredContent"]["questions"]
    item = round_items[0]
    graded = call("score_and_explain", {"session_id": session, "question_id": item["question_id"], "user_answer": "A"})
    assert not graded["isError"], graded
    skipped = call("skip_question", {"session_id": session, "question_id": round_items[1]["question_id"]})
    assert skipped["structuredContent"]["skipped"] is True, skipped
    # The learner model: the answer above updated it (in its transaction); the learner reads it.
    assert call("get_ability", {})["structuredContent"]["abilities"]
    # A placement test over MCP: its session (the survey's prior), its next question (the
    # session's questions and attempts, the ability, the bank's window and counter, the copy saved
    # and counted in one transaction; a thin bank starts a fill), an answer and the next step.
    placed = call("start_placement", {"category": "business"})["structuredContent"]["session_id"]
    step = call("next_placement_question", {"session_id": placed})
    if step["isError"]:
        assert "NO_QUESTION_YET" in step["content"][0]["text"], step
        step_functions.wait_for_running()
        step = call("next_placement_question", {"session_id": placed})
    assert not step["isError"], step
    asked = step["structuredContent"]["question"]["question_id"]
    answered = call("score_and_explain", {"session_id": placed, "question_id": asked, "user_answer": "A"})
    assert not answered["isError"], answered
    left = call("next_placement_question", {"session_id": placed})["structuredContent"]
    assert left["question"]["question_id"] != asked
    # A new test with that question open: it is skipped (its bank item checked not retired).
    assert not call("start_placement", {"category": "business"})["isError"]
    validated = author(
        "validate_question_quality",
        {"stem": "Is RAG retrieval?", "question_type": "true_false", "correct_answer": "True"},
    )
    assert not validated["isError"], validated
    authored = question(round_id="bank_1_2026-11-23T10:00:00Z", stem="What does an MCP server expose?")
    assert author("save_generated_question", authored)["structuredContent"]["success"] is True
    with faults.dynamodb("save_generated_question", "TransactWriteItems", error="InternalServerError"):
        failed = author("save_generated_question", {**authored, "stem": "What is a tool schema?"})
    assert failed["isError"]
    assert "SERVICE_UNAVAILABLE" in failed["content"][0]["text"]
    boto3.resource("dynamodb").Table(cloud.table_name("UsageTable")).put_item(
        Item={"user_id": ALICE, "day": usage.today(), "rounds": 1000}  # the functions' day (midday: no midnight)
    )
    _refill_round_starts(cloud)
    # (In a new session: moving on to the placement tests above closed the learner's earlier ones.)
    refused = call("start_round", {"category": "technical"})
    assert "QUOTA_EXCEEDED" in refused["content"][0]["text"]


def _issue_12_routes(http, cloud, session, questions):
    """Round status and summary (with the learner's ability), the learner's ability, a report, a
    reviewer's work (the queue, an override that re-scores the ability, retiring a
    question whose stem a template shares, the statistics and the audit record), and a round
    that the daily quota refuses (its claim is released)."""
    from slea.dal.templates import with_search_key
    from tests.integration.test_review_api import REVIEWER, token

    assert http("GET", f"/sessions/{session}/rounds/1", None, ALICE)[0] == 200
    assert http("GET", f"/sessions/{session}/summary", None, ALICE)[2]["ability"] is not None
    assert http("GET", "/learners/me/ability", None, ALICE)[2]["abilities"]
    assert http("GET", "/learners/me/attempts?limit=2", None, ALICE)[2]["attempts"]  # the user-attempts index
    assert http("GET", "/sessions", None, ALICE)[2]["sessions"]  # resume on any device
    report = {"reason": "unclear"}
    path = f"/sessions/{session}/questions/{questions[0]['question_id']}/reports"
    assert http("POST", path, report, ALICE)[0] == 202
    assert http("GET", "/review/queue", None, REVIEWER)[0] == 200
    assert http("GET", "/review/queue?sort=confidence&q=a", None, REVIEWER)[0] == 200
    assert http("GET", "/review/groups", None, REVIEWER)[0] == 200
    assert (
        http("POST", "/review/groups/gnone", {"score": 50, "note": "n"}, REVIEWER)[0] == 404
    )  # the group index's Query
    attempt = http("GET", f"/sessions/{session}/attempts", None, ALICE)[2]["attempts"][0]
    bulk = {"attempt_ids": [attempt["attempt_id"]], "note": "fine"}  # accepted in bulk, reverted, again, corrected
    bulk_id = http("POST", "/review/attempts/accept", bulk, REVIEWER)[2]["bulk_id"]
    assert http("POST", f"/review/bulk/{bulk_id}/revert", {"note": "too fast"}, REVIEWER)[2]["reverted"]
    assert http("POST", "/review/attempts/accept", bulk, REVIEWER)[2]["accepted"] == 1
    # is_correct flips: the count changes. The grade is final: proposed, then a second reviewer confirms.
    override = {"action": "override", "score": 100 - attempt["score"], "note": "regraded"}
    assert http("POST", f"/review/attempts/{attempt['attempt_id']}", override, REVIEWER)[2]["status"] == "proposed"
    second = token("5d2f0a9e-7b1c-4e3d-8f6a-0c9b8a7d6e5f", **{"cognito:groups": ["reviewers"]})
    confirm = {"action": "confirm"}
    assert http("POST", f"/review/attempts/{attempt['attempt_id']}", confirm, second)[2]["status"] == "applied"
    boto3.resource("dynamodb").Table(cloud.table_name("TemplatesTable")).put_item(
        Item=with_search_key({"id": "iam-template", "stem": questions[1]["stem"], "is_active": True})
    )
    retire = {"action": "retire", "note": "ambiguous"}
    assert http("POST", f"/review/questions/{questions[1]['question_id']}", retire, REVIEWER)[0] == 200
    unretire = {"note": "it was fine"}
    assert http("POST", f"/review/questions/{questions[1]['question_id']}/unretire", unretire, REVIEWER)[0] == 200
    assert http("POST", f"/review/questions/{questions[1]['question_id']}", retire, REVIEWER)[0] == 200
    # An edit of a bank item's stem moves its claim on its stem and key (read, put, the old one
    # deleted, in the edit's transaction); undoing the edit moves it back.
    edit = {"action": "edit", "stem": "Which part of a RAG system ranks the retrieved passages?", "note": "clearer"}
    assert http("POST", f"/review/questions/{questions[2]['question_id']}", edit, REVIEWER)[0] == 200
    undo = {"note": "it was clear"}
    assert http("POST", f"/review/questions/{questions[2]['question_id']}/revert-edit", undo, REVIEWER)[0] == 200
    assert http("GET", "/review/stats", None, REVIEWER)[0] == 200
    assert http("GET", f"/review/audit?target_id={attempt['attempt_id']}", None, REVIEWER)[0] == 200
    assert http("GET", "/review/audit/recent", None, REVIEWER)[2]["records"]
    boto3.resource("dynamodb").Table(cloud.table_name("UsageTable")).put_item(
        Item={"user_id": ALICE, "day": usage.today(), "rounds": 1000}  # the functions' day (midday: no midnight)
    )
    created = http("POST", "/sessions", None, ALICE)[2]
    _refill_round_starts(cloud)
    status, _, body = http("POST", f"/sessions/{created['session_id']}/rounds", {"category": "technical"}, ALICE)
    assert (status, body["error_code"]) == (429, "QUOTA_EXCEEDED")
    # Round 1 is next there: the summary plans its difficulty from the learner's profile.
    assert http("GET", f"/sessions/{created['session_id']}/summary", None, ALICE)[2]["next_round"] == 1


def _calibration(http, step_functions):
    """The calibration refit (its state machine: the attempts table's export started and described,
    the distributed map's ItemReader listing the export, each file reduced, the fit reading the
    reduced answers and the bank items, writing the items) and the reviewers' item analysis (the
    bank-items index)."""
    from tests.integration.test_review_api import REVIEWER

    runtime = step_functions.runtime
    aberrant = _misfitting_learner(runtime.cloud)
    execution = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 0}, name="iam-refit")
    assert execution.status == "SUCCEEDED", (execution.error, execution.cause)
    assert execution.output["complete"], execution.output
    assert execution.output["items_calibrated"] > 0, execution.output
    # The learner person fit flags is marked for review (the list, and their ability record) ...
    abilities = boto3.resource("dynamodb").Table(runtime.cloud.table_name("AbilitiesTable"))
    assert "review" in abilities.get_item(Key={"user_id": aberrant, "entry": "ability#general"})["Item"]
    assert http("GET", "/review/items?flagged=false", None, REVIEWER)[0] == 200
    # ... and unmarked once a run no longer flags them.
    attempts = boto3.resource("dynamodb").Table(runtime.cloud.table_name("AttemptsTable"))
    for number in range(12):
        attempts.delete_item(Key={"session_id": "iam-aberrant", "attempt_key": f"iam-item-{number}#aberrant"})
    again = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 0}, name="iam-refit-again")
    assert again.status == "SUCCEEDED", (again.error, again.cause)
    assert "review" not in abilities.get_item(Key={"user_id": aberrant, "entry": "ability#general"})["Item"]
    _stream_fold(runtime)


def _stream_fold(runtime):
    """The stream-fed calibration (FoldAttemptsFunction) reads every answer record the requests
    above wrote: first answers (the response record put, the sums and the category count
    updated, the touched items read and written), the reviewer's override (a correction), the
    same records again (already folded); then a deleted attempt is taken out (the record deleted)."""
    poller = StreamPoller(runtime, "AttemptsTable")
    report = poller.drain(redeliver=True)
    assert report.reported_failures == 0, report
    assert runtime.metric_total("AnswersFolded") > 0
    assert runtime.metric_total("AnswersAlreadyFolded") > 0
    attempts = boto3.resource("dynamodb").Table(runtime.cloud.table_name("AttemptsTable"))
    folded = next(item for item in attempts.scan()["Items"] if "learner_theta" in item and not item.get("skipped"))
    attempts.delete_item(Key={"session_id": folded["session_id"], "attempt_key": folded["attempt_key"]})
    assert poller.drain().reported_failures == 0


def _misfitting_learner(cloud):
    """Twelve items of known difficulty answered by 40 learners as the model says, and by one
    (with an ability record) right on the six hardest and wrong on the six easiest."""
    import random

    from slea.measurement.irt import p_correct
    from slea.measurement.scale import label_to_b

    rng = random.Random(3)
    questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    attempts = boto3.resource("dynamodb").Table(cloud.table_name("AttemptsTable"))
    labels = [1, 2, 2, 3, 3, 4, 7, 8, 8, 9, 9, 10]
    for number, label in enumerate(labels):
        questions.put_item(
            Item={
                "question_id": f"iam-item-{number}",
                "item_id": f"iam-item-{number}",
                "item_type": "short_answer",
                "stem": f"Explain iam concept {number}",
                "difficulty": label,
                "category": "general",
            }
        )
    aberrant = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"
    learners = [(f"iam-learner-{n}", rng.gauss(0.0, 1.0)) for n in range(40)]
    with attempts.batch_writer() as batch:
        for user, theta in [*learners, (aberrant, None)]:
            for number, label in enumerate(labels):
                correct = label >= 7 if theta is None else rng.random() < p_correct(theta, label_to_b(label))
                session = "iam-aberrant" if theta is None else f"iam-{user}"
                suffix = "aberrant" if theta is None else user
                batch.put_item(
                    Item={
                        "session_id": session,
                        "attempt_key": f"iam-item-{number}#{suffix}",
                        "question_id": f"iam-item-{number}",
                        "user_id": user,
                        "score": 100 if correct else 0,
                        "is_correct": correct,
                        "question_type": "short_answer",
                        "graded_at": f"2026-01-01T00:00:{number:02d}Z",
                    }
                )
    boto3.resource("dynamodb").Table(cloud.table_name("AbilitiesTable")).put_item(
        Item={"user_id": aberrant, "entry": "ability#general", "category": "general", "answers": 12}
    )
    return aberrant


def _refill_round_starts(cloud):
    """Alice's round-start bucket full again (as after a pause), so the next start reaches the
    daily quota rather than the per-user rate limit."""
    boto3.resource("dynamodb").Table(cloud.table_name("RateLimitTable")).delete_item(
        Key={"user_id": ALICE, "action": "round_start"}
    )


@pytest.fixture
def cold_parameters():
    """Powertools caches parameters per execution environment (5 minutes): start and end cold."""
    from aws_lambda_powertools.utilities.parameters.constants import DEFAULT_PROVIDERS

    DEFAULT_PROVIDERS.clear()
    yield DEFAULT_PROVIDERS
    DEFAULT_PROVIDERS.clear()


def _placement(http, step_functions):
    """A placement test: its session (the survey's prior read), its next question (the session's
    questions and attempts, the learner's ability, the bank's window and counter, the copy saved
    and counted in one transaction, the item marked seen; a thin bank starts a fill), an answer,
    the next step, and a new session that skips the question left open."""
    status, _, created = http("POST", "/sessions", {"purpose": "placement", "category": "technical"}, PLACED)
    assert status == 201, created
    session = created["session_id"]
    status, _, step = http("POST", f"/sessions/{session}/next", None, PLACED)
    assert status in {200, 503}, step
    step_functions.wait_for_running()
    status, _, step = http("POST", f"/sessions/{session}/next", None, PLACED)
    assert status == 200, step
    assert step["question"], step
    answer = {"question_id": step["question"]["question_id"], "user_answer": "A"}
    assert http("POST", f"/sessions/{session}/answers", answer, PLACED)[0] == 200
    status, _, step = http("POST", f"/sessions/{session}/next", None, PLACED)
    assert status == 200, step
    # The learner leaves the test for practice with a question open: it is skipped, its bank item
    # checked not retired (the web app's "back to start", then a round).
    assert step["question"], step
    assert http("POST", "/sessions", None, PLACED)[0] == 201


def test_the_gemini_key_parameter_is_read_with_the_granted_ssm_permission(monkeypatch, cold_parameters):
    """With GeminiApiKeyParameterName set, the LLM functions read the key from SSM (what each
    function's Gemini provider does first, run as that function with its environment): the
    conditional ssm:GetParameter grants are checked too. The model itself is not called."""
    from slea.llm.gemini import _api_key
    from slea.llm.model_settings import LLMSettings

    name = "/slea-ssem/gemini-api-key"
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    llm_functions = [
        "GenerateQuestionsFunction",
        "ValidateQuestionQualityFunction",
        "ScoreAndExplainFunction",
        "ApiFunction",
    ]
    with LocalCloud(parameters={"GeminiApiKeyParameterName": name}) as cloud:
        boto3.client("ssm").put_parameter(Name=name, Value="test-key", Type="SecureString")
        runtime = LocalRuntime(cloud)
        with recording() as recorded:
            for function in llm_functions:
                cold_parameters.clear()  # each function has an execution environment of its own
                with cloud.environment(cloud.environment_of(function)):
                    runtime_key = _in_function(runtime, function, lambda: _api_key(LLMSettings.from_environment()))
                assert runtime_key == "test-key"
        ssm_uses = {(use.principal, use.action, use.resource) for _, use in recorded.uses}
        arn = f"arn:aws:ssm:us-east-1:123456789012:parameter{name}"
        assert ssm_uses == {(function, "ssm:GetParameter", arn) for function in llm_functions}
        findings = recorded.findings()
        assert not findings.missing, findings.report()
        for function in llm_functions:
            granted = {g.action for g in _grants(cloud, function)}
            assert "ssm:GetParameter" in granted


def test_the_id_secret_is_read_only_by_the_functions_that_make_ids_with_their_grant(cold_parameters):
    """Each function that makes keyed ids (its environment names ID_SECRET_ARN) reads the secret
    itself on a cold start, with its own secretsmanager:GetSecretValue grant on that one secret;
    no other function is granted it."""
    from slea.security import ids

    with LocalCloud() as cloud:
        runtime = LocalRuntime(cloud)
        arn = cloud.physical_names["IdSecret"]
        makers = [name for name in principals(cloud) if ids.SECRET_VARIABLE in _environment(cloud, name)]
        assert set(makers) == {
            "SaveGeneratedQuestionFunction",
            "GenerateQuestionsFunction",
            "ScoreAndExplainFunction",
            "ApiFunction",
            "McpFunction",
            "PlanRoundFunction",  # copies drawn from the bank (slea/logic/rounds/bank_draw.py)
        }
        with recording() as recorded:
            for function in makers:
                cold_parameters.clear()
                with cloud.environment(cloud.environment_of(function)):
                    _in_function(runtime, function, lambda: ids.keyed_uuid("question", "x"))
        uses = {(use.principal, use.action, use.resource) for _, use in recorded.uses}
        assert uses == {(function, "secretsmanager:GetSecretValue", arn) for function in makers}
        assert not recorded.findings().missing, recorded.findings().report()
        for function in principals(cloud):
            granted = {(g.action, g.resources) for g in _grants(cloud, function) if "secretsmanager" in g.action}
            expected = {("secretsmanager:GetSecretValue", (arn,))} if function in makers else set()
            assert granted == expected, function


def _environment(cloud, principal):
    if principal not in cloud.template.of_type("AWS::Serverless::Function"):
        return {}
    return cloud.environment_of(principal)


def _in_function(runtime, function, action):
    from tests.aws_operations import _CLOUD, PRINCIPAL

    principal, cloud = PRINCIPAL.set(function), _CLOUD.set(runtime.cloud)
    try:
        return action()
    finally:
        PRINCIPAL.reset(principal)
        _CLOUD.reset(cloud)


def _grants(cloud, principal):
    from tests.aws_operations import principal_grants

    return principal_grants(cloud, principal)


def test_every_policy_of_the_template_can_be_checked(cloud):
    """An unsupported policy (a managed policy, a template not in the table) fails here first."""
    for principal in principals(cloud):
        _grants(cloud, principal)


def test_unused_grant_exceptions_name_grants_that_exist(cloud):
    granted = {(g.principal, g.action) for p in principals(cloud) for g in _grants(cloud, p)}
    assert set(UNUSED_GRANT_EXCEPTIONS) <= granted


# ---------------------------------------------------------------- the checker itself
def _use(action, resource=TABLE, principal="Fn"):
    return Use(principal, action, resource, "test")


def test_a_call_the_policy_does_not_grant_is_reported():
    grants = expand_policies(
        "Fn", [{"Statement": [{"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": TABLE}]}], REGION
    )
    findings = check([_use("dynamodb:PutItem"), _use("dynamodb:GetItem")], grants)
    assert findings.missing == [_use("dynamodb:GetItem")]
    assert not findings.unused


def test_a_grant_never_used_is_reported():
    statement = {"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:GetItem"], "Resource": TABLE}
    findings = check([_use("dynamodb:PutItem")], expand_policies("Fn", [{"Statement": [statement]}], REGION))
    assert not findings.missing
    assert [g.action for g in findings.unused] == ["dynamodb:GetItem"]
    assert "UNUSED GRANT: Fn dynamodb:GetItem" in findings.report()


def test_a_grant_on_another_resource_or_principal_does_not_count():
    grants = expand_policies(
        "Fn", [{"Statement": [{"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": TABLE + "-other"}]}], REGION
    )
    assert check([_use("dynamodb:PutItem")], grants).missing == [_use("dynamodb:PutItem")]
    assert check([_use("dynamodb:PutItem", principal="Other")], grants, check_unused=False).missing


def test_an_index_query_needs_the_index_arn():
    (query,) = iam_uses("dynamodb", "Query", {"TableName": "questions", "IndexName": "by-session"}, REGION)
    assert query == ("dynamodb:Query", TABLE + "/index/by-session")
    crud = expand_policies("Fn", [{"DynamoDBReadPolicy": {"TableName": "questions"}}], REGION)
    assert not check([_use(*query)], crud, check_unused=False).missing
    table_only = expand_policies(
        "Fn", [{"Statement": [{"Effect": "Allow", "Action": "dynamodb:Query", "Resource": TABLE}]}], REGION
    )
    assert check([_use(*query)], table_only).missing


def test_a_crud_policy_where_only_put_is_used_reports_the_rest():
    grants = expand_policies("Fn", [{"DynamoDBCrudPolicy": {"TableName": "questions"}}], REGION)
    findings = check([_use("dynamodb:PutItem")], grants)
    assert "dynamodb:GetItem" in {g.action for g in findings.unused}
    assert "dynamodb:PutItem" not in {g.action for g in findings.unused}


def test_a_transaction_is_authorised_item_by_item():
    uses = iam_uses(
        "dynamodb",
        "TransactWriteItems",
        {"TransactItems": [{"Put": {"TableName": "attempts"}}, {"Update": {"TableName": "questions"}}]},
        REGION,
    )
    assert uses == [
        ("dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:123456789012:table/attempts"),
        ("dynamodb:UpdateItem", TABLE),
    ]


def test_other_services_map_to_their_iam_actions():
    url = "https://sqs.us-east-1.amazonaws.com/123456789012/retry"
    assert iam_uses("sqs", "SendMessage", {"QueueUrl": url}, REGION) == [
        ("sqs:SendMessage", "arn:aws:sqs:us-east-1:123456789012:retry")
    ]
    assert iam_uses("ssm", "GetParameter", {"Name": "/a/b"}, REGION) == [
        ("ssm:GetParameter", "arn:aws:ssm:us-east-1:123456789012:parameter/a/b")
    ]
    secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ids-AbCdEf"
    assert iam_uses("secretsmanager", "GetSecretValue", {"SecretId": secret}, REGION) == [
        ("secretsmanager:GetSecretValue", secret)
    ]
    assert iam_uses("lambda", "Invoke", {"FunctionName": "f"}, REGION) == [
        ("lambda:InvokeFunction", "arn:aws:lambda:us-east-1:123456789012:function:f")
    ]
    assert iam_uses("states", "StartExecution", {"stateMachineArn": "arn:sm"}, REGION) == [
        ("states:StartExecution", "arn:sm")
    ]
    sent = iam_uses("sqs", "SendMessageBatch", {"QueueUrl": url}, REGION)
    assert not check(
        [_use(*sent[0])], expand_policies("Fn", [{"SQSSendMessagePolicy": {"QueueName": "retry"}}], REGION)
    ).missing


def test_an_unused_grant_exception_silences_only_its_grant():
    grants = [Grant("Fn", "logs:CreateLogDelivery", ("*",), "test"), Grant("Fn", "logs:GetLogDelivery", ("*",), "test")]
    findings = check([], grants, unused_exceptions={("Fn", "logs:CreateLogDelivery"): "service-side"})
    assert [g.action for g in findings.unused] == ["logs:GetLogDelivery"]


SAM_TEMPLATES_JSON = sorted(
    glob.glob(
        str(REPO_ROOT / ".venv-sam/lib/python*/site-packages/samtranslator/policy_templates_data/policy_templates.json")
    )
)


@pytest.mark.skipif(not SAM_TEMPLATES_JSON, reason="samtranslator is installed in .venv-sam by `make sam-validate`")
def test_the_policy_template_table_matches_sam():
    templates = json.loads(Path(SAM_TEMPLATES_JSON[-1]).read_text(encoding="utf-8"))["Templates"]
    for name, statements in SAM_POLICY_TEMPLATES.items():
        expected = []
        for statement in templates[name]["Definition"]["Statement"]:
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            expected.append((statement["Action"], [_sam_resource(resource) for resource in resources]))
        assert statements == expected, name


def _sam_resource(resource):
    if resource == "*":
        return "*"
    text, variables = resource["Fn::Sub"]
    text = text.replace("${AWS::Partition}", "{partition}").replace("${AWS::Region}", "{region}")
    text = text.replace("${AWS::AccountId}", "{account}")
    for variable, value in variables.items():
        text = text.replace(f"${{{variable}}}", "{" + value["Ref"] + "}")
    return text
