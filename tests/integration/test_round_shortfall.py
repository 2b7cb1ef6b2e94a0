"""A round whose concept record is too small, on the real state machine: what the record cannot
write comes from the neighbouring difficulties' records (each item keeping its own label), and a
round that still comes short says so: its output, the round's status and the API say how many
were asked, how many came and why."""

import itertools

import boto3

from slea.logic.rounds.target import from_prior, slot_types
from slea.measurement import learner

MACHINE = "GenerateRoundStateMachine"
USER = "550e8400-e29b-41d4-a716-446655440000"  # demo user: intermediate, 5 years, previous score 72
CONCEPTS = 6
_names = itertools.count()


def planned_label(count):
    """The label the planner aims a first round of `count` at for the demo user (no answer yet)."""
    mean, sd = learner.prior_from_profile("intermediate", 5, 72)
    return from_prior(mean, sd, 0.7, slot_types(None, count, 0.7, sd)).label


def shrink(load, demo_seed, category, difficulties, concepts=CONCEPTS):
    """Keep `concepts` concepts and a single keyword in the (difficulty, category) records: the
    offline writer then runs out after about that many items per record."""
    records = [r for r in demo_seed["keywords"] if r["category"] == category and r["difficulty"] in difficulties]
    load({"keywords": [{**r, "concepts": r["concepts"][:concepts], "keywords": r["keywords"][:1]} for r in records]})


def run(step_functions, session, **changes):
    execution_input = {"user_id": USER, "session_id": session, "round": 1, "category": "general", **changes}
    execution = step_functions.run(MACHINE, execution_input, name=f"short-{next(_names)}")
    assert execution.status == "SUCCEEDED", execution.cause
    return execution.output


def test_a_round_its_own_record_cannot_fill_is_filled_from_neighbouring_difficulties(step_functions, demo_seed, load):
    label = planned_label(10)
    shrink(load, demo_seed, "general", {label})
    output = run(step_functions, "sess_fill", count=10)
    labels = [question["difficulty"] for question in output["questions"]]
    assert (output["requested"], output["delivered"], output["shortfall_reason"]) == (10, 10, None)
    assert len(labels) == 10
    # The round's own record first, then its neighbours (each item keeps its record's label).
    assert 0 < labels.count(label) <= CONCEPTS + 1
    assert output["from_neighbours"] == sum(other != label for other in labels) > 0
    assert set(labels) <= {label - 1, label, label + 1, label - 2, label + 2}
    assert len({q["concept"] for q in output["questions"] if q["concept"]}) == sum(
        bool(q["concept"]) for q in output["questions"]
    )
    stored = boto3.resource("dynamodb").Table(step_functions.runtime.cloud.table_name("QuestionsTable")).scan()["Items"]
    stored = [item for item in stored if "#" not in item["question_id"]]  # questions, not reference prints
    assert sorted(int(item["difficulty"]) for item in stored) == sorted(labels)


def test_a_set_difficulty_is_not_filled_from_others_and_the_shortfall_is_said(step_functions, demo_seed, load):
    shrink(load, demo_seed, "general", {5})
    output = run(step_functions, "sess_short", count=10, difficulty=5)
    delivered = len(output["questions"])
    assert {q["difficulty"] for q in output["questions"]} == {5}
    assert delivered < 10
    assert (output["requested"], output["delivered"], output["shortfall_reason"]) == (10, delivered, "too_few_concepts")
    assert output["from_neighbours"] == 0


def test_the_neighbours_running_out_too_is_said_in_the_status_and_the_api(http, step_functions, demo_seed, load):
    label = planned_label(10)
    shrink(load, demo_seed, "general", set(range(label - 2, label + 3)), concepts=1)
    status, _, created = http("POST", "/sessions", None, USER)
    session = created["session_id"]
    status, _, started = http("POST", f"/sessions/{session}/rounds", {"category": "general", "count": 10}, USER)
    assert status == 202, started
    step_functions.wait_for_running()
    status, _, round_status = http("GET", f"/sessions/{session}/rounds/1", None, USER)
    assert status == 200, round_status
    assert round_status["status"] == "SUCCEEDED"
    assert round_status["requested"] == 10
    assert round_status["delivered"] == round_status["saved"] < 10
    assert round_status["shortfall_reason"] == "too_few_concepts"
    assert round_status["from_neighbours"] > 0
    listed = http("GET", f"/sessions/{session}/questions", None, USER)[2]["questions"]
    assert len(listed) == round_status["delivered"]
