"""The advice after an answer and the next round agree (target.next_round, the planner's rule):
the summary announces the next round's difficulty only once the current round is over, the last
answer's advice names that difficulty on its scale, and round 2 is generated at it."""

import re

import pytest

from slea.measurement import scale
from tests.integration.test_api import (  # noqa: F401 - sessions_table: the autouse fixture own() needs
    ALICE,
    sessions_table,
    start,
    wait_for_questions,
)
from tests.integration.test_review_api import answer, right_answer, table, wait_for_status, wrong_answer

WORDS = {
    "en": re.compile(r"(harder|same level|easier), (?:at )?difficulty (\d+) of 10: (\w+)"),
}


def summary(http):
    status, _, body = http("GET", "/sessions/s1/summary", None, ALICE)
    assert status == 200, body
    return body


@pytest.mark.parametrize("outcomes", [[True, True, True], [False, False, False]])
def test_the_next_difficulty_is_announced_once_the_round_is_over_and_the_advice_names_it(
    http, step_functions, outcomes
):
    cloud = step_functions.runtime.cloud
    assert start(http, question_types=["multiple_choice"])[0] == 202
    questions = wait_for_questions(http)
    wait_for_status(http, "SUCCEEDED")
    # The outcome the status read is written back on the round's own record (read once, not again).
    record = table(cloud, "SessionsTable").get_item(Key={"session_id": "s1#round#1"})["Item"]
    assert (record["round_status"], record["delivered"], record["requested"]) == ("SUCCEEDED", 3, 3)
    for question in questions:  # the question view says each difficulty on its scale
        assert question["difficulty_level"] == scale.label_level(question["difficulty"])
    opened = summary(http)
    assert opened["next_round"] == 2
    assert (opened["next_difficulty"], opened["next_level"]) == (None, None)  # round 1 is open
    results = []
    for question, right in zip(questions, outcomes, strict=True):
        said = right_answer(cloud, question["question_id"]) if right else wrong_answer(cloud, question)
        results.append(answer(http, question["question_id"], said))
        if len(results) < len(questions):
            assert summary(http)["next_difficulty"] is None  # still open
    over = summary(http)
    assert over["next_round"] == 2
    label = over["next_difficulty"]
    assert isinstance(label, int)
    assert over["next_level"] == scale.label_level(label)
    # The last answer's advice names the same next round, on its scale, and compares it with the
    # difficulty of the question just answered.
    steps = " ".join(results[-1]["details"]["next_steps"])
    found = WORDS["en"].search(steps)
    assert found, steps
    direction, advised, level = found.groups()
    assert int(advised) == label
    assert level == scale.label_level(label)
    current = questions[-1]["difficulty"]
    assert direction == ("harder" if label > current else "easier" if label < current else "same level")
    # Round 2 is generated at the announced difficulty.
    assert start(http, round=2, question_types=None, count=3)[0] == 202
    wait_for_status(http, "SUCCEEDED", number=2)
    round_two = [q for q in wait_for_questions(http, count=6) if q["round"] == 2]
    assert {q["difficulty"] for q in round_two} == {label}
