"""The local review demo (slea_local.review_demo): `make serve` (`serve --review-demo`) opens the review desk
on groups of several answers that simulated learners left through the answer path, offline; the
local stack that tests and benchmarks build has none unless asked."""

import json
import os
import urllib.request
from pathlib import Path

import pytest

from slea_local.demo_aws import seeded_local_aws
from slea_local.http import serve_in_background
from slea_local.review_demo import DEMO_REVIEWER, LEARNERS, definition, simulated_answer

REFERENCE = (
    "Reranking is a second-stage step where a stronger cross-encoder model rescores an initial candidate list"
    " to place the most relevant passages first. Its key aspects are: second stage after initial retrieval;"
    " cross-encoder scoring of query and passage together; improves precision at the top; expensive per pair."
)


def get(url: str, path: str, token: str) -> dict:
    request = urllib.request.Request(f"{url}{path}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def test_the_served_demo_stack_holds_review_groups_of_several_answers_graded_offline(monkeypatch):
    # A key in the environment is not spent on the demo: its rounds and grades are the offline models'.
    monkeypatch.setenv("GEMINI_API_KEY", "not-a-key")
    monkeypatch.delenv("LLM_PROVIDER", raising=False)
    with seeded_local_aws(review_demo=True) as aws, serve_in_background(aws.runtime) as url:
        page = get(url, "/review/groups", DEMO_REVIEWER)
        assert os.environ.get("LLM_PROVIDER") is None  # the server's own choice is back as it was
    groups = page["groups"]
    several = [group for group in groups if group["size"] >= 3]
    assert len(several) >= 2, [group["size"] for group in groups]
    assert aws.review_demo is not None
    assert aws.review_demo.group_sizes == [group["size"] for group in groups]
    assert aws.review_demo.queued == sum(group["size"] for group in groups) == aws.review_demo.answers
    learners = {user_id for user_id, _name in LEARNERS}
    for group in several:
        # Each group: one question, answered by as many different simulated learners, all waiting.
        entries = group["entries"]
        assert {entry["attempt"]["group_id"] for entry in entries} == {group["group_id"]}
        assert {entry["source"] for entry in entries} == {"grade"}  # a provisional grade each
        assert len({entry["learner_id"] for entry in entries}) == group["size"]
        assert {entry["learner_id"] for entry in entries} <= learners
        assert len({entry["question"]["stem"] for entry in entries}) == 1
        assert len({entry["attempt"]["user_answer"] for entry in entries}) == group["size"]  # their own words


def test_the_local_stack_has_no_review_demo_unless_asked():
    with seeded_local_aws() as aws, serve_in_background(aws.runtime) as url:
        assert aws.review_demo is None
        assert get(url, "/review/groups", DEMO_REVIEWER)["groups"] == []


@pytest.mark.parametrize("learner", range(len(LEARNERS)))
def test_a_simulated_answer_says_part_of_the_reference_in_its_order(learner):
    answer = simulated_answer(REFERENCE, learner)
    sentence = definition(REFERENCE)
    assert sentence.startswith("Reranking is a second-stage step")
    assert "Its key aspects" not in sentence
    words = sentence.casefold().split()
    # A run of the reference's first sentence, word for word in its order (never a shuffle) ...
    runs = [
        " ".join(words[start:end])
        for start in range(len(words))
        for end in range(start + 6, len(words) + 1)
        if " ".join(words[start:end]) in answer.casefold()
    ]
    assert runs, answer
    # ... and never all of it (the grader is left unsure), nor stopping on a word left hanging.
    assert sentence.casefold() not in answer.casefold()
    assert answer.split(",")[0].rstrip(".").split()[-1].casefold() not in {"a", "an", "the", "of", "from", "to"}


def test_serve_has_the_review_demo_when_asked_and_make_serve_asks(monkeypatch):
    import slea_local.__main__ as cli

    calls = []
    monkeypatch.setattr(cli, "serve", lambda port, calibrate_every, review_demo, *_: calls.append(review_demo) or 0)
    assert cli.main(["serve"]) == 0
    assert cli.main(["serve", "--review-demo"]) == 0
    assert cli.main(["serve", "--no-review-demo"]) == 0
    assert calls == [False, True, False]
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    assert "-m slea_local serve --review-demo" in makefile
