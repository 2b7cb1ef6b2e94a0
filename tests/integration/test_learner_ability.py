"""The learner model as answers are recorded: the posterior through the stored items
against a hand computation, all-or-nothing with the grade under retries, injected faults and
concurrent answers, a reviewer's override, and what the learner sees (HTTP API and MCP)."""

import math
from decimal import Decimal

import boto3
import pytest

from slea.contracts.llm import ShortAnswerGrade
from slea.dal import answer_reads
from slea.dal.abilities import StoredAbility
from slea.llm.offline import OfflineProvider
from slea.measurement import items

TOOL = "score_and_explain"
LEARNER = "5b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
REVIEWER = "0b7e3c52-4f5e-4c1c-9d4e-2a6f8b1c3d5e"
BASE = {"session_id": "sess_ability", "user_id": LEARNER}
# The quadrature grid of slea.measurement.learner, written out: -5..5 in 81 points.
GRID = [-5.0 + index * 10.0 / 80 for index in range(81)]
# The documented label mapping: b = (label - 5.5) / 2.
LABEL_B = {3: -1.25, 5: -0.25, 7: 0.75}
LABEL_B_SD = 0.7  # a label's difficulty is known to about this (measurement/scale.py)
PRIOR_SD = math.sqrt(0.5)  # a profile prior's SD: the population's 1 less the spread between self-levels
# A learner without a survey: the population's prior (the fallback profile's "beginner" is nobody's word).
NO_SURVEY_PRIOR = (0.0, 1.0)


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def hand_eap(mean, sd, responses):
    """EAP and posterior SD on the grid: normal prior times P^r (1-P)^(1-r) per response (b, floor,
    r[, b_se]), P averaged over the item's b ~ N(b, b_se^2) by the probit approximation (b_se: the
    label's 0.7 for an item never answered, else 1/sqrt(its precision))."""
    logs = []
    for point in GRID:
        value = -0.5 * ((point - mean) / sd) ** 2
        for b, floor, score, *rest in responses:
            b_se = rest[0] if rest else LABEL_B_SD
            slope = 1 / math.sqrt(1 + math.pi * b_se**2 / 8)
            p = floor + (1 - floor) / (1 + math.exp(-(point - b) * slope))
            value += score * math.log(p) + (1 - score) * math.log(1 - p)
        logs.append(value)
    top = max(logs)
    weights = [math.exp(value - top) for value in logs]
    total = sum(weights)
    theta = sum(w * q for w, q in zip(weights, GRID, strict=True)) / total
    se = math.sqrt(sum(w * (q - theta) ** 2 for w, q in zip(weights, GRID, strict=True)) / total)
    return theta, se


def table(cloud, logical_id):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id))


def put_question(cloud, question_id, item_type="true_false", difficulty=5, **extra):
    item = {
        "question_id": question_id,
        "session_id": "s_ability",
        "item_type": item_type,
        "stem": f"Stem of {question_id}?",
        "difficulty": difficulty,
        "category": "technical",
        **extra,
    }
    table(cloud, "QuestionsTable").put_item(Item=item)


def put_profile(cloud, user=LEARNER, self_level="advanced", years=6, previous=90):
    table(cloud, "ProfilesTable").put_item(
        Item={
            "user_id": user,
            "submitted_at": "2026-11-01T00:00:00Z",
            "self_level": self_level,
            "years_experience": years,
            "job_role": "Engineer",
            "duty": "Builds things",
            "interests": ["AI"],
            "previous_score": previous,
        }
    )


def true_false(runtime, question_id, answer="True", **extra):
    event = {**BASE, "question_id": question_id, "question_type": "true_false", "user_answer": answer}
    return runtime.invoke(TOOL, {**event, "correct_answer": "True", **extra})


def multiple_choice(runtime, question_id, answer, **extra):
    event = {**BASE, "question_id": question_id, "question_type": "multiple_choice", "user_answer": answer}
    choices = ["A) One", "B) Two", "C) Three", "D) Four"]
    return runtime.invoke(TOOL, {**event, "correct_answer": "B", "choices": choices, **extra})


def short_answer(runtime, monkeypatch, question_id, score):
    grade = ShortAnswerGrade(score=score, confidence=0.9, final=True)
    monkeypatch.setattr(OfflineProvider, "grade_short_answer", lambda self, item: grade)
    event = {**BASE, "question_id": question_id, "question_type": "short_answer", "user_answer": "RAG retrieves"}
    return runtime.invoke(TOOL, {**event, "correct_keywords": ["RAG", "retrieval"]})


def ability(cloud, user=LEARNER, category="technical"):
    return table(cloud, "AbilitiesTable").get_item(Key={"user_id": user, "entry": f"ability#{category}"}).get("Item")


def history(cloud, user=LEARNER):
    entries = table(cloud, "AbilitiesTable").query(
        KeyConditionExpression="user_id = :user AND begins_with(entry, :history)",
        ExpressionAttributeValues={":user": user, ":history": "history#"},
    )["Items"]
    return entries


def attempts(cloud):
    return table(cloud, "AttemptsTable").scan()["Items"]


def question(cloud, question_id):
    return table(cloud, "QuestionsTable").get_item(Key={"question_id": question_id})["Item"]


# ---------------------------------------------------------------- recording
def test_the_posterior_after_known_answers_equals_a_hand_computation(cloud, runtime, monkeypatch):
    """Given an advanced learner (prior N(1.5, PRIOR_SD): advanced +1, 5+ years +0.25, previous 90
    +0.25) and three stored items of known labels, when they answer a true/false item right, a
    four-choice item wrong and a short answer at 70, then theta and se are the hand EAP."""
    put_profile(cloud)
    put_question(cloud, "q_tf", "true_false", 7)
    put_question(cloud, "q_mc", "multiple_choice", 3, choices=["A) One", "B) Two", "C) Three", "D) Four"])
    put_question(cloud, "q_sa", "short_answer", 5)
    true_false(runtime, "q_tf")
    multiple_choice(runtime, "q_mc", "A")
    short_answer(runtime, monkeypatch, "q_sa", 70)

    expected = hand_eap(1.5, PRIOR_SD, [(LABEL_B[7], 0.5, 1.0), (LABEL_B[3], 0.25, 0.0), (LABEL_B[5], 0.0, 0.7)])
    stored = ability(cloud)
    assert float(stored["theta"]) == pytest.approx(expected[0], abs=1e-3)
    assert float(stored["se"]) == pytest.approx(expected[1], abs=1e-3)
    assert (int(stored["answers"]), int(stored["version"])) == (3, 3)
    assert stored["seen_items"] == {"q_tf", "q_mc", "q_sa"}
    assert len(history(cloud)) == 3
    by_question = {attempt["question_id"]: attempt for attempt in attempts(cloud)}
    assert float(by_question["q_mc"]["guess_floor"]) == 0.25
    assert float(by_question["q_tf"]["item_b"]) == LABEL_B[7]
    assert float(by_question["q_tf"]["item_b_se"]) == pytest.approx(LABEL_B_SD)
    assert {a["ability_category"] for a in by_question.values()} == {"technical"}
    # Each question is its own bank item: its difficulty moved once, in its own record.
    for question_id, label in (("q_tf", 7), ("q_mc", 3), ("q_sa", 5)):
        stored_item = question(cloud, question_id)
        assert int(stored_item["item_answers"]) == 1
        assert float(stored_item["difficulty_b"]) != LABEL_B[label]
        assert int(stored_item["usage_count"]) == 1


def test_a_question_drawn_from_the_bank_updates_with_the_bank_items_learnt_difficulty(cloud, runtime):
    """Given a copy of a bank item whose difficulty was learnt (b 1.3, precision 4, 10 answers), the
    learner's update uses b = 1.3 and the difficulty step lands on the bank item, not the copy."""
    put_question(cloud, "q_bank", "true_false", 5, difficulty_b=Decimal("1.3"), difficulty_precision=4, item_answers=10)
    put_question(cloud, "q_copy", "true_false", 5, item_id="q_bank")
    true_false(runtime, "q_copy")

    prior = NO_SURVEY_PRIOR  # no survey: nothing said, the population's prior
    theta, se = hand_eap(*prior, [(1.3, 0.5, 1.0, 0.5)])  # precision 4: b known to 0.5
    assert float(ability(cloud)["theta"]) == pytest.approx(theta, abs=1e-3)
    assert float(ability(cloud)["se"]) == pytest.approx(se, abs=1e-3)
    prior_theta, prior_se = hand_eap(*prior, [])
    delta_b, delta_precision = items.online_step(items.ItemDifficulty(1.3, 4.0, 10), prior_theta, 0.5, 1.0, prior_se)
    bank = question(cloud, "q_bank")
    assert float(bank["difficulty_b"]) == pytest.approx(1.3 + delta_b, abs=1e-9)
    assert float(bank["difficulty_precision"]) == pytest.approx(4 + delta_precision, abs=1e-9)
    assert int(bank["item_answers"]) == 11
    copy = question(cloud, "q_copy")
    assert "difficulty_b" not in copy
    assert int(copy["usage_count"]) == 1
    assert attempts(cloud)[0]["item_id"] == "q_bank"
    assert ability(cloud)["seen_items"] == {"q_bank"}


def test_a_retried_answer_counts_once(cloud, runtime):
    put_question(cloud, "q_retry")
    first = true_false(runtime, "q_retry")
    assert true_false(runtime, "q_retry") == first
    assert (int(ability(cloud)["answers"]), int(ability(cloud)["version"])) == (1, 1)
    assert len(history(cloud)) == 1
    assert int(question(cloud, "q_retry")["item_answers"]) == 1


def _fail_ability_writes_inside_the_transaction(monkeypatch, cloud):
    """moto applies a transaction's items in order and rolls all back if one fails: the ability's
    Update fails after the attempt's Put was applied, the truest "mid-transaction" fault."""
    from moto.dynamodb.models import DynamoDBBackend

    real_update = DynamoDBBackend.update_item
    abilities_table = cloud.table_name("AbilitiesTable")
    failures = []

    def failing_update(self, table_name, *args, **kwargs):
        if table_name == abilities_table and not failures:
            failures.append(table_name)
            raise RuntimeError("injected fault inside the transaction")
        return real_update(self, table_name, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "update_item", failing_update)
    return failures


@pytest.mark.parametrize("fault", ["inside the transaction", "at the transport"])
def test_a_fault_mid_transaction_leaves_neither_attempt_nor_ability_and_a_retry_records_both_once(
    cloud, runtime, faults, monkeypatch, fault
):
    from slea.logic.answering.answer import GradeNotRecordedError

    put_question(cloud, "q_fault")
    if fault == "inside the transaction":
        injected = _fail_ability_writes_inside_the_transaction(monkeypatch, cloud)
        with pytest.raises(GradeNotRecordedError):
            true_false(runtime, "q_fault")
        assert injected
    else:
        with (
            faults.dynamodb(TOOL, "TransactWriteItems", error="InternalServerError"),
            pytest.raises(GradeNotRecordedError),
        ):
            true_false(runtime, "q_fault")
    assert attempts(cloud) == []
    assert ability(cloud) is None
    assert history(cloud) == []
    assert "usage_count" not in question(cloud, "q_fault")
    assert "difficulty_b" not in question(cloud, "q_fault")

    assert true_false(runtime, "q_fault")["is_correct"] is True
    assert true_false(runtime, "q_fault")["is_correct"] is True  # and a retry after success
    assert len(attempts(cloud)) == 1
    assert int(ability(cloud)["answers"]) == 1
    assert len(history(cloud)) == 1
    assert int(question(cloud, "q_fault")["item_answers"]) == 1


def test_an_unreadable_learner_model_never_loses_the_grade(cloud, runtime, faults):
    put_question(cloud, "q_unreadable")
    # The answer's combined read fails once: it is read again without the learner model.
    with faults.dynamodb(answer_reads.TOOL, "BatchGetItem", error="InternalServerError", times=1):
        graded = true_false(runtime, "q_unreadable")
    assert graded["is_correct"] is True
    (attempt,) = attempts(cloud)
    assert attempt["ability_skipped"] == "unreadable"
    assert "ability_category" not in attempt
    assert ability(cloud) is None
    assert runtime.metric_total("AbilityUpdatesSkipped") == 1


def test_concurrent_answers_of_one_learner_are_both_counted_the_loser_retrying(cloud, runtime, monkeypatch):
    """Answer B reads the ability, answer A is recorded meanwhile, B's version-conditioned write
    fails, B re-reads and updates on top of A: both count, as the hand EAP of both says."""
    put_question(cloud, "q_a", "true_false", 7)
    put_question(cloud, "q_b", "true_false", 3)
    real_read = answer_reads.read
    interleave = [True]

    def racing_read(reads):
        read = real_read(reads)
        if interleave and reads.ability:
            interleave.clear()
            true_false(runtime, "q_a")  # another answer of the learner wins the race
        return read

    monkeypatch.setattr(answer_reads, "read", racing_read)
    true_false(runtime, "q_b", answer="False")

    theta, se = hand_eap(*NO_SURVEY_PRIOR, [(LABEL_B[7], 0.5, 1.0), (LABEL_B[3], 0.5, 0.0)])
    stored = ability(cloud)
    assert (int(stored["answers"]), int(stored["version"])) == (2, 2)
    assert float(stored["theta"]) == pytest.approx(theta, abs=1e-3)
    assert float(stored["se"]) == pytest.approx(se, abs=1e-3)
    assert len(history(cloud)) == 2
    assert runtime.metric_total("AbilityUpdateConflicts") == 1


def test_an_ability_that_keeps_changing_still_records_the_grade(cloud, runtime, monkeypatch):
    put_question(cloud, "q_race")
    real_read = answer_reads.read

    def stale_read(reads):  # every read finds a version that another answer has moved on from
        read = real_read(reads)
        if reads.ability:
            read.ability = StoredAbility("technical", version=41)
        return read

    monkeypatch.setattr(answer_reads, "read", stale_read)
    assert true_false(runtime, "q_race")["is_correct"] is True
    (attempt,) = attempts(cloud)
    assert attempt["ability_skipped"] == "conflict"
    assert ability(cloud) is None
    assert int(question(cloud, "q_race")["usage_count"]) == 1
    assert runtime.metric_total("AbilityUpdateConflicts") == 4


def test_an_answer_without_a_category_updates_no_ability(cloud, runtime):
    table(cloud, "QuestionsTable").put_item(
        Item={"question_id": "q_none", "session_id": "s", "item_type": "true_false", "stem": "S?", "difficulty": 5}
    )
    true_false(runtime, "q_none")
    assert "ability_category" not in attempts(cloud)[0]
    assert table(cloud, "AbilitiesTable").scan()["Count"] == 0


# ---------------------------------------------------------------- a reviewer's override
def _override(cloud, attempt_id, score):
    from slea.contracts.review import AttemptReviewRequest
    from slea.logic.review.grades import review_attempt

    with cloud.environment(cloud.environment_of("ApiFunction")):
        override = AttemptReviewRequest(action="override", score=score, note="regraded")
        done = review_attempt(attempt_id, REVIEWER, override)
        if done.status == "proposed":  # a final grade: a second reviewer's confirmation applies it
            done = review_attempt(attempt_id, "second-reviewer", AttemptReviewRequest(action="confirm"))
        return done


def test_an_override_rescores_the_ability_as_remove_then_add(cloud, runtime, monkeypatch):
    put_question(cloud, "q_first", "true_false", 5)
    put_question(cloud, "q_sa", "short_answer", 7)
    true_false(runtime, "q_first")
    graded = short_answer(runtime, monkeypatch, "q_sa", 40)
    before = ability(cloud)
    _override(cloud, graded["attempt_id"], 90)

    after = ability(cloud)
    # Removing the 40 and adding the 90 is the posterior as if 90 had been the grade.
    theta, se = hand_eap(*NO_SURVEY_PRIOR, [(LABEL_B[5], 0.5, 1.0), (LABEL_B[7], 0.0, 0.9)])
    assert float(after["theta"]) == pytest.approx(theta, abs=2e-3)
    assert float(after["se"]) == pytest.approx(se, abs=2e-3)
    assert float(after["theta"]) > float(before["theta"])
    assert int(after["answers"]) == 2
    assert int(after["version"]) == int(before["version"]) + 1
    assert len(history(cloud)) == 3  # the correction is a point of its own
    # What the learner sees: one point per answer as it was stored then (answer 2's row still reads
    # what it read before the review), and the correction as a later point of its own that says why.
    from slea.logic.learners.ability import learner_ability

    with cloud.environment(cloud.environment_of("ApiFunction")):
        seen = learner_ability(LEARNER)
    assert [point.answers for point in seen.history] == [1, 2, 2] == [1, 2, seen.abilities[0].answers]
    assert [point.event for point in seen.history] == ["answer", "answer", "review"]
    assert seen.history[1].theta == pytest.approx(float(before["theta"]), abs=1e-3)
    assert seen.history[-1].theta == pytest.approx(float(after["theta"]), abs=1e-3)

    _override(cloud, graded["attempt_id"], 10)  # a second correction starts from the first
    theta, _ = hand_eap(*NO_SURVEY_PRIOR, [(LABEL_B[5], 0.5, 1.0), (LABEL_B[7], 0.0, 0.1)])
    assert float(ability(cloud)["theta"]) == pytest.approx(theta, abs=2e-3)


def test_an_override_retries_when_the_learner_answered_meanwhile(cloud, runtime, monkeypatch):
    from slea.logic.answering import ability_update as ability_recording

    put_question(cloud, "q_sa", "short_answer", 5)
    put_question(cloud, "q_later", "true_false", 5)
    graded = short_answer(runtime, monkeypatch, "q_sa", 40)
    real_rescore = ability_recording.rescore_items
    interleave = [True]

    def racing_rescore(attempt, score, at, **pending):
        computed = real_rescore(attempt, score, at, **pending)
        if interleave:
            interleave.clear()
            true_false(runtime, "q_later")
        return computed

    monkeypatch.setattr(ability_recording, "rescore_items", racing_rescore)
    _override(cloud, graded["attempt_id"], 90)
    theta, _ = hand_eap(*NO_SURVEY_PRIOR, [(LABEL_B[5], 0.0, 0.9), (LABEL_B[5], 0.5, 1.0)])
    assert float(ability(cloud)["theta"]) == pytest.approx(theta, abs=2e-3)
    assert int(ability(cloud)["answers"]) == 2


# ---------------------------------------------------------------- what the learner sees
def _ability_row(rows, category, answers):
    rows.put_item(
        Item={
            "user_id": LEARNER,
            "entry": f"ability#{category}",
            "category": category,
            "theta": 0,
            "se": 1,
            "answers": answers,
            "updated_at": "x",
        }
    )


def _history_point(rows, category, minute, suffix, theta):
    """A point of the learner's history in `category` at 10:0`minute` (its entry ends in `suffix`)."""
    at = f"2026-11-24T10:0{minute}:00.000Z"
    rows.put_item(
        Item={
            "user_id": LEARNER,
            "entry": f"history#{category}#{at}#{suffix}",
            "at": at,
            "category": category,
            "theta": Decimal(str(theta)),
            "se": 1,
        }
    )


def test_the_history_is_the_newest_points_oldest_first(cloud, monkeypatch):
    from slea.contracts import ability as contract
    from slea.logic.learners.ability import learner_ability

    monkeypatch.setattr(contract, "HISTORY_POINTS_MAX", 3)
    monkeypatch.setattr("slea.logic.learners.ability.HISTORY_POINTS_MAX", 3)
    rows = table(cloud, "AbilitiesTable")
    for category, minutes in (("technical", (1, 3, 5)), ("business", (2, 4))):
        _ability_row(rows, category, answers=3)
        for minute in minutes:
            _history_point(rows, category, minute, "k", theta=minute)
    with cloud.environment(cloud.environment_of("ApiFunction")):
        seen = learner_ability(LEARNER)
    assert [point.theta for point in seen.history] == [3, 4, 5]
    assert [point.answers for point in seen.history] == [2, 3, 3]  # counted back from each category's 3
    assert [view.category for view in seen.abilities] == ["business", "technical"]


def test_an_answers_row_never_changes_once_shown_whatever_is_counted_after_it(cloud):
    """Rows shown once keep their value and number: a reviewer's correction and a batch of items
    left unanswered (counted as wrong when the round ran out) come after the answer they follow,
    as rows of their own (test changed to the new behaviour: a correction once took the place of
    its answer's row, and a skip point took an answer's number, shifting every row before it)."""
    from slea.logic.learners.ability import learner_ability

    rows = table(cloud, "AbilitiesTable")
    _ability_row(rows, "technical", answers=2)

    def point(minute, suffix, theta):
        _history_point(rows, "technical", minute, suffix, theta)

    def shown():
        with cloud.environment(cloud.environment_of("ApiFunction")):
            return [(p.answers, p.event, p.theta) for p in learner_ability(LEARNER).history]

    point(1, "a1", -0.5)
    point(2, "a2", -0.7)
    before = shown()
    assert before == [(1, "answer", -0.5), (2, "answer", -0.7)]
    point(3, "a2#review", -0.9)  # a reviewer lowered answer 2's grade
    point(4, "sess#skipped#q9", -1.2)  # then the round ran out with an item left unanswered
    after = shown()
    assert after[: len(before)] == before  # the rows shown before are as they were
    assert after[len(before) :] == [(2, "review", -0.9), (2, "skipped", -1.2)]


# ---------------------------------------------------------------- the records read back
def test_the_records_read_back_are_what_the_writes_left(cloud):
    """get_ability, abilities_of and history_of read back what mark_seen and answer_items wrote:
    after each change, what abilities.applied says it leaves (what a count of items left
    unanswered shows the summary without a read)."""
    from slea.dal import abilities

    def change(read_version, at, suffix, **extra):
        return abilities.AbilityChange(
            user_id=LEARNER,
            category="technical",
            posterior=[0.0, -1.25, -3.5],
            theta=0.5 - read_version if read_version else 0.5,
            se=0.75,
            answers=1,
            read_version=read_version,
            at=at,
            point_suffix=suffix,
            **extra,
        )

    changes = [
        change(None, "2026-11-24T10:01:00.000Z", "q1#k", seen_item="q1", pending=1),  # a provisional first answer
        change(1, "2026-11-24T10:02:00.000Z", abilities.skipped_point("s1", "q2"), skipped=2),
        change(2, "2026-11-24T10:03:00.000Z", abilities.review_point("q1#k"), pending=-1),
    ]
    client = boto3.client("dynamodb")
    with cloud.environment(cloud.environment_of("ApiFunction")):
        abilities.mark_seen(LEARNER, "technical", ["q1", "q3"], recent=["f1"])
        abilities.mark_seen(LEARNER, "business", ["q4"])  # items seen, never answered
        before = abilities.get_ability(LEARNER, "technical")
        assert before == abilities.StoredAbility("technical", seen_items=frozenset({"q1", "q3"}), seen_recent=("f1",))
        for each in changes:
            client.transact_write_items(TransactItems=abilities.answer_items(each))
            after = abilities.get_ability(LEARNER, "technical")
            assert after == abilities.applied(each, before)
            before = after
        assert (before.estimate.skipped, before.estimate.pending_review, before.version) == (2, 0, 3)
        assert abilities.abilities_of(LEARNER) == [before.estimate]  # business holds no estimate
        points = abilities.history_of(LEARNER, ["technical"], 10)
    assert [(point.at, point.event, point.theta) for point in points] == [
        ("2026-11-24T10:01:00.000Z", "answer", 0.5),
        ("2026-11-24T10:02:00.000Z", "skipped", -0.5),
        ("2026-11-24T10:03:00.000Z", "review", -1.5),
    ]


# ---------------------------------------------------------------- through the HTTP API and MCP
@pytest.fixture
def api_sessions(step_functions):
    """test_api's own() needs the sessions table (its autouse fixture does this there)."""
    from tests.integration.test_api import SESSIONS

    SESSIONS["table"] = table(step_functions.runtime.cloud, "SessionsTable")


def _answer_round(http, cloud, session, user):
    """Start a round in `session` for `user` and answer every question with its key."""
    from tests.integration.test_api import start, wait_for_questions

    assert start(http, session, user)[0] == 202
    shown = wait_for_questions(http, session, user)
    for item in shown:
        key = table(cloud, "QuestionsTable").get_item(Key={"question_id": item["question_id"]})["Item"]["answer_schema"]
        right = key.get("correct_key") or " ".join(key.get("correct_keywords", []))
        body = {"question_id": item["question_id"], "user_answer": right}
        status, _, graded = http("POST", f"/sessions/{session}/answers", body, user)
        assert status == 200, graded
    return shown


def test_the_learner_sees_their_ability_and_the_summary_its_category_and_no_one_elses(
    http, step_functions, unlimited_rates, api_sessions
):
    from tests.integration.test_api import ALICE, BOB

    cloud = step_functions.runtime.cloud
    status, _, nothing = http("GET", "/learners/me/ability", None, ALICE)
    assert (status, nothing) == (200, {"abilities": [], "history": []})
    shown = _answer_round(http, cloud, "s_alice", ALICE)
    step_functions.wait_for_running()

    status, _, seen = http("GET", "/learners/me/ability", None, ALICE)
    assert status == 200, seen
    (technical,) = seen["abilities"]
    stored = ability(cloud, ALICE)
    assert technical["category"] == "technical"
    assert technical["answers"] == len(shown) == int(stored["answers"])
    assert technical["theta"] == pytest.approx(float(stored["theta"]), abs=1e-3)
    assert technical["level"] in {"novice", "beginner", "intermediate", "advanced", "expert"}
    assert technical["answers_to_precision"] >= 0
    assert len(seen["history"]) == len(shown)
    assert [point["answers"] for point in seen["history"]] == list(range(1, len(shown) + 1))
    assert [point["at"] for point in seen["history"]] == sorted(point["at"] for point in seen["history"])
    assert seen["history"][-1]["theta"] == technical["theta"]

    status, _, summary = http("GET", "/sessions/s_alice/summary", None, ALICE)
    assert status == 200, summary
    assert summary["ability"] == {
        key: technical[key] for key in ("category", "theta", "se", "level", "answers", "skipped", "pending_review")
    }

    # Bob has answered nothing: he sees no ability, not Alice's, and Alice's summary is not his.
    assert http("GET", "/learners/me/ability", None, BOB)[2] == {"abilities": [], "history": []}
    assert http("GET", "/sessions/s_alice/summary", None, BOB)[0] == 403


def test_a_session_without_answers_has_no_ability_in_its_summary(http, step_functions, api_sessions):
    from tests.integration.test_api import ALICE, own

    own("s_empty", ALICE)
    status, _, summary = http("GET", "/sessions/s_empty/summary", None, ALICE)
    assert status == 200, summary
    assert summary["ability"] is None


def test_get_ability_over_mcp_is_the_callers_own(http, step_functions, unlimited_rates, api_sessions):
    from tests.integration.test_api import ALICE, BOB
    from tests.integration.test_mcp import tool_call

    runtime = step_functions.runtime
    _answer_round(http, runtime.cloud, "s_mcp", ALICE)
    step_functions.wait_for_running()

    mine = tool_call(runtime, "get_ability", {}, user=ALICE)
    assert not mine.get("isError"), mine
    assert mine["structuredContent"]["abilities"][0]["category"] == "technical"
    technical = tool_call(runtime, "get_ability", {"category": "technical"})
    assert technical["structuredContent"] == mine["structuredContent"]
    assert tool_call(runtime, "get_ability", {"category": "business"})["structuredContent"]["abilities"] == []
    # A user id in the arguments is no way into another learner's ability: it is not an argument.
    bobs = tool_call(runtime, "get_ability", {"user_id": ALICE}, user=BOB)
    assert bobs["structuredContent"] == {"abilities": [], "history": []}
