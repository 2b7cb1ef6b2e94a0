"""Grades learned from reviews, end to end: a reviewed short answer becomes an exemplar of its
bank item, another learner's answer that says the same thing is finalised with the reviewer's
verdict, and what that learner is shown never holds the first learner's answer."""

import json

import boto3

from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    answer_key,
    sessions_table,
    start,
    wait_for_questions,
)
from tests.integration.test_review_api import REVIEWER, answer, low_confidence_grades, unsure_grades

OTHER = "Blockchains keep every transaction in a ledger that all nodes agree on."


def one_question(http):
    """A round of one short-answer item: with no other item's reference in the session, the check
    against other items' references (random generated items may resemble each other) stays out.
    At a set difficulty: these tests are about exemplars, and the offline writer's item at another
    label (a prompt-template reference whose key terms name retrieval and documents) is one where
    every restatement of the reference lacks key terms, so no near copy could be finalised."""
    start(http, question_types=["short_answer"], count=1, difficulty=6)
    return wait_for_questions(http, count=1)[0]["question_id"]


def exemplar_item(cloud, question_id):
    table = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    return table.get_item(Key={"question_id": f"exemplars#{question_id}"}).get("Item")


def alices_and_bobs(cloud, question_id):
    """Alice restates the item's reference answer; Bob says the same with a slip of the keyboard.
    (The questions are generated at random: an answer of fixed words could look like gaming to one
    of them, and a flagged answer is never finalised as correct.)"""
    reference = answer_key(cloud, question_id)["reference_answer"]
    words = reference.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    slipped = [word[:-2] + word[-1] if i == longest else word for i, word in enumerate(words)]
    # "I think": the reference itself is shown to every learner after answering, Alice's words are not.
    return f"I think {reference}", "I think " + " ".join(slipped) + "!"


DAVE = "2d4e9f10-6b3a-4c2d-8e1f-7a9b0c1d2e3f"
ERIN = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def override(http, attempt_id, score):
    status, _, body = http(
        "POST",
        f"/review/attempts/{attempt_id}",
        {"action": "override", "score": score, "note": "as the model answer"},
        REVIEWER,
    )
    assert status == 200, body


def tool6(runtime, question_id, user_answer, user="5c1d6a0e-9a8b-4a43-8f65-0d6b1f5c2e11"):
    return runtime.invoke(
        "score_and_explain",
        {
            "session_id": "bob_session",
            "user_id": user,
            "question_id": question_id,
            "question_type": "short_answer",
            "user_answer": user_answer,
            "correct_keywords": ["retrieval", "documents"],
        },
    )


def test_a_reviewed_answer_grades_the_same_idea_in_another_learners_words(http, step_functions, monkeypatch):
    runtime, cloud = step_functions.runtime, step_functions.runtime.cloud
    question_id = one_question(http)
    ALICES, BOBS = alices_and_bobs(cloud, question_id)
    low_confidence_grades(monkeypatch)  # the grader leaves every grade provisional
    alices = answer(http, question_id, ALICES)
    assert alices["needs_review"] is True
    # Nothing is learned before a review (the item holds only the face of the answer's review group).
    assert not [name for name in exemplar_item(cloud, question_id) if name.startswith("x")]

    override(http, alices["attempt_id"], 90)
    stored = exemplar_item(cloud, question_id)
    (exemplar,) = [value for name, value in stored.items() if name.startswith("x")]
    assert (exemplar["text"], exemplar["correct"], int(exemplar["score"])) == (ALICES, True, 90)
    assert exemplar["probability"] is not None  # the grader's evidence, kept beside the text

    # One reviewed answer is not enough: a second one saying the same is reviewed too.
    assert tool6(runtime, question_id, BOBS)["needs_review"] is True
    daves = tool6(runtime, question_id, ALICES + ".", user=DAVE)
    assert daves["needs_review"] is True
    override(http, daves["attempt_id"], 95)

    bobs = tool6(runtime, question_id, BOBS, user=ERIN)
    assert (bobs["is_correct"], bobs["needs_review"]) == (True, False)
    assert bobs["score"] >= 80
    assert "reviewer graded" in bobs["grader_reasoning"]
    # Another learner's answer never leaves the server, in any field.
    assert ALICES not in json.dumps(bobs)
    assert BOBS not in json.dumps(alices)

    # An answer about something else is not given the exemplar's verdict: a reviewer decides.
    unrelated = tool6(runtime, question_id, OTHER, user="8e0b8f3a-2f7c-4a1e-9a55-3c1f0e6d7b22")
    assert unrelated["needs_review"] is True
    assert "reviewer graded" not in (unrelated["grader_reasoning"] or "")


def test_exemplars_that_disagree_finalise_nothing(http, step_functions, monkeypatch):
    runtime = step_functions.runtime
    question_id = one_question(http)
    alices, bobs = alices_and_bobs(runtime.cloud, question_id)
    low_confidence_grades(monkeypatch)
    override(http, answer(http, question_id, alices)["attempt_id"], 90)
    daves = tool6(runtime, question_id, alices + ".", user=DAVE)
    erins = tool6(runtime, question_id, alices + "!", user=ERIN)
    assert daves["needs_review"]  # one exemplar is not enough
    assert erins["needs_review"]
    override(http, daves["attempt_id"], 90)
    learned = tool6(runtime, question_id, bobs)
    assert learned["needs_review"] is False, learned["grader_reasoning"]  # two agreeing exemplars
    # A reviewer grades the same idea the other way for Erin: the exemplars now disagree.
    override(http, erins["attempt_id"], 30)
    third = tool6(runtime, question_id, bobs + "!", user="8e0b8f3a-2f7c-4a1e-9a55-3c1f0e6d7b22")
    assert third["needs_review"] is True


# ---------------------------------------------------------------- review groups
def groups_page(http, query=""):
    status, _, body = http("GET", f"/review/groups{query}", None, REVIEWER)
    assert status == 200, body
    return body


def answered_alike(http, runtime, grades, monkeypatch):
    """One short-answer question, the grader patched by `grades`, answered alike three times:
    Alice's words (through the API), Bob's (as Dave's) and Alice's again with a full stop (as
    Erin's), by Tool 6. (The question's id, Bob's words, the three answers' results.)"""
    question_id = one_question(http)
    alices, bobs = alices_and_bobs(runtime.cloud, question_id)
    grades(monkeypatch)
    first = answer(http, question_id, alices)
    second = tool6(runtime, question_id, bobs, user=DAVE)
    third = tool6(runtime, question_id, alices + ".", user=ERIN)
    return question_id, bobs, (first, second, third)


def test_one_action_grades_a_group_and_excluded_members_stay_in_the_queue(http, step_functions, monkeypatch):
    runtime = step_functions.runtime
    question_id, bobs, (first, second, third) = answered_alike(http, runtime, low_confidence_grades, monkeypatch)
    page = groups_page(http)
    (group,) = [g for g in page["groups"] if first["attempt_id"] in {e["entry_id"] for e in g["entries"]}]
    members = {entry["entry_id"] for entry in group["entries"]}
    assert members == {first["attempt_id"], second["attempt_id"], third["attempt_id"]}
    assert group["size"] == 3
    assert page["groups"][0]["size"] >= group["size"]  # largest first
    assert all(entry["attempt"]["group_id"] == group["group_id"] for entry in group["entries"])

    status, _, body = http(
        "POST",
        f"/review/groups/{group['group_id']}",
        {"score": 90, "note": "the idea is right", "exclude": [third["attempt_id"]]},
        REVIEWER,
    )
    assert status == 200, body
    assert (body["score"], body["is_correct"], body["reviewed"]) == (90, True, 2)
    statuses = {result["attempt_id"]: result["status"] for result in body["results"]}
    assert statuses == {
        first["attempt_id"]: "reviewed",
        second["attempt_id"]: "reviewed",
        third["attempt_id"]: "excluded",
    }
    # Each member updated and audited, the audit naming the group; the excluded one still waits.
    (seen,) = http("GET", "/sessions/s1/attempts", None, ALICE)[2]["attempts"]
    assert (seen["score"], seen["reviewed"], seen["needs_review"]) == (90, True, False)
    for attempt_id in (first["attempt_id"], second["attempt_id"]):
        (record,) = http("GET", f"/review/audit?target_id={attempt_id}", None, REVIEWER)[2]["records"]
        assert (record["group_id"], record["after"]["score"], record["note"]) == (
            group["group_id"],
            90,
            "the idea is right",
        )
    left = groups_page(http)
    assert [e["entry_id"] for g in left["groups"] for e in g["entries"]] == [third["attempt_id"]]
    # The group's members are exemplars now: a fourth answer saying the same is graded by them.
    fourth = tool6(runtime, question_id, bobs + "!", user="8e0b8f3a-2f7c-4a1e-9a55-3c1f0e6d7b22")
    assert (fourth["is_correct"], fourth["needs_review"]) == (True, False)


def test_an_unknown_group_is_404(http, step_functions):
    status, _, body = http("POST", "/review/groups/gnothing", {"score": 50, "note": "n"}, REVIEWER)
    assert (status, body["error_code"]) == (404, "GROUP_NOT_FOUND")


def sure_but_unsure_grades(monkeypatch):
    """The grader gives a high score it is unsure of: the grade waits for a reviewer as correct."""
    unsure_grades(monkeypatch, 90, "probably right, but unsure")


def test_a_reverted_review_takes_its_exemplar_away(http, step_functions, monkeypatch):
    runtime, cloud = step_functions.runtime, step_functions.runtime.cloud
    question_id = one_question(http)
    alices, bobs = alices_and_bobs(cloud, question_id)
    sure_but_unsure_grades(monkeypatch)
    first = answer(http, question_id, alices)
    second = tool6(runtime, question_id, alices + ".", user=DAVE)
    assert first["needs_review"]
    assert second["needs_review"]
    status, _, accepted = http(
        "POST",
        "/review/attempts/accept",
        {"attempt_ids": [first["attempt_id"], second["attempt_id"]], "note": "both restate the model answer"},
        REVIEWER,
    )
    assert status == 200, accepted
    assert accepted["accepted"] == 2
    stored = exemplar_item(cloud, question_id)
    assert sorted(value["id"] for name, value in stored.items() if name.startswith("x")) == sorted(
        [first["attempt_id"], second["attempt_id"]]
    )
    # Two agreeing exemplars finalise a near copy ...
    learned = tool6(runtime, question_id, bobs, user=ERIN)
    assert learned["needs_review"] is False, learned["grader_reasoning"]

    # ... until the accept is reverted: its exemplars go with it, and the next near copy waits.
    status, _, reverted = http(
        "POST", f"/review/bulk/{accepted['bulk_id']}/revert", {"note": "accepted too fast"}, REVIEWER
    )
    assert status == 200, reverted
    assert sorted(reverted["reverted"]) == sorted([first["attempt_id"], second["attempt_id"]])
    assert not [name for name in exemplar_item(cloud, question_id) if name.startswith("x")]
    again = tool6(runtime, question_id, bobs + "!", user="8e0b8f3a-2f7c-4a1e-9a55-3c1f0e6d7b22")
    assert again["needs_review"] is True
    assert "reviewer graded" not in (again["grader_reasoning"] or "")
