"""Review groups for the local review desk: a few simulated learners answer the same short-answer
bank items, half right, so the grader leaves their grades to a reviewer and the answers of each
item gather into a review group (slea.grading.answer_groups), as real learners' answers do.

Everything goes through the HTTP API, as a learner's browser would: each simulated learner
starts a session, asks for a round of short answers (the first learner's round is written by the
offline generator and saved to the bank; the others draw those items from it), and answers.
Nothing is written to a queue or a group by hand: what the reviewer sees is what the answer
submission path made of these answers. The models are the offline ones whatever the environment
holds (a key for Gemini is not spent, and the answers are graded the same way every time).

`python -m slea_local serve` runs it at start-up (`--no-review-demo` leaves it out);
`seeded_local_aws(review_demo=True)` for a test or a script. The learners' surveys are loaded as
the demo seed is (ops.seed), but they are not in data/demo_seed.json: the local sign-in does not
offer them, and the tests and benchmarks that count the seed's records never meet them."""

import base64
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from slea_local.runtime import LocalRuntime

CATEGORY = "technical"
INTEREST = "RAG"
DIFFICULTY = 4
ITEMS = 3  # short-answer items every learner is given: one review group each
SUBMITTED_AT = "2026-03-01T00:00:00Z"

# (user id, display name): the first writes the round the others draw from the bank. The ids
# differ in their first characters: the review page names a learner by them.
LEARNERS = (
    ("75f99bcf-9a07-4d10-8945-6b92bd457626", "Mina (simulated learner)"),
    ("d87d3b5d-3a02-42c5-8afe-0d3ce0475815", "Joon (simulated learner)"),
    ("f6c44e47-9866-418d-8910-d15afd224b90", "Sara (simulated learner)"),
    ("0b0614ff-9ae5-4cae-ba09-dca931931f42", "Tom (simulated learner)"),
)
# How many of the round's items each learner answers (the rest are left open, as a learner who
# stops early leaves them): the groups then differ in size, 4, 4 and 3 answers.
ANSWERED = (3, 3, 3, 2)

_DEFINITION_END = re.compile(r"\.\s+Its key aspects are:", re.IGNORECASE)
_CLAUSE = re.compile(r",|;| which | so that | to cut | giving ")


def definition(reference: str) -> str:
    """The reference answer's first sentence: what the idea is, without the list of its aspects."""
    return _DEFINITION_END.split(reference, maxsplit=1)[0].split(". ")[0].rstrip(".").strip()


# Words a half-remembered sentence does not stop on.
_DANGLING = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "from",
        "to",
        "in",
        "on",
        "into",
        "for",
        "with",
        "by",
        "and",
        "or",
        "that",
        "which",
        "as",
        "at",
        "its",
        "their",
        "small",
        "smaller",
        "large",
        "long",
        "external",
        "initial",
        "many",
        "each",
        "most",
        "more",
    }
)


def _head(sentence: str, words: int = 14) -> str:
    """The sentence up to its first clause break, at most `words` words and never ending on a
    word that leaves it hanging: what a learner who half-remembers it writes."""
    kept = _CLAUSE.split(sentence, maxsplit=1)[0].split()[:words]
    while len(kept) > 1 and kept[-1].casefold() in _DANGLING:
        kept.pop()
    return " ".join(kept)


def _lower_first(name: str) -> str:
    """ "Chunking" as "chunking" inside a sentence; a name with capitals of its own ("Okapi BM25") as it is."""
    return name[:1].lower() + name[1:] if name[:1].isupper() and name[1:] == name[1:].lower() else name


def _parts(sentence: str) -> tuple[str, str]:
    """The idea's name and what the sentence says it is ("a pattern that fetches ...")."""
    subject, found, rest = sentence.partition(" is ")
    return (subject, rest) if found and subject else ("", sentence)


def _said(sentence: str, words: int, lower: bool = False) -> str:
    """The idea's name, if the sentence has one, and at most `words` words of what it is: a long
    name (four words, say) leaves the answer as much to say about it as a short one."""
    subject, rest = _parts(sentence)
    if not subject:
        return _head(rest, words)
    return f"{_lower_first(subject) if lower else subject} is {_head(rest, words)}"


# Half-remembered answers, one way of writing per learner: each says part of what the reference
# says, in its order, and none all of it, so the grader is unsure and leaves the grade to a
# reviewer.
ANSWER_STYLES: tuple[Callable[[str], str], ...] = (
    lambda sentence: f"{_said(sentence, 11)}.",
    lambda sentence: f"I'm not sure, but I think {_said(sentence, 10, lower=True)}.",
    lambda sentence: f"It is {_head(_parts(sentence)[1], 9)}, if I remember it right.",
    lambda sentence: f"Roughly: {_said(sentence, 10, lower=True)}.",
)


def simulated_answer(reference: str, learner: int) -> str:
    return ANSWER_STYLES[learner % len(ANSWER_STYLES)](definition(reference))


@dataclass
class ReviewDemo:
    """What the simulated learners did and the review groups it left (GET /review/groups)."""

    learners: int = 0
    answers: int = 0
    queued: int = 0  # answers the grader left to a reviewer
    group_sizes: list[int] = field(default_factory=list)  # largest first

    def summary(self) -> str:
        sizes = ", ".join(map(str, self.group_sizes)) or "none"
        return (
            f"{self.learners} simulated learners answered {self.answers} short answers, {self.queued} left to a"
            f" reviewer: {len(self.group_sizes)} review groups of {sizes} answers"
        )


def token(subject: str, **claims: Any) -> str:
    """The local stand-in for a signed-in user's token (slea_local.http reads its claims unverified)."""
    payload = base64.urlsafe_b64encode(json.dumps({"sub": subject, **claims}).encode()).decode().rstrip("=")
    return f"local.{payload}.unsigned"


# Who reads the groups for the summary: not one of the learners (a reviewer never sees their own).
DEMO_REVIEWER = token("28b7f48e-7175-4333-b52c-fcef55738054", name="review demo", **{"cognito:groups": ["reviewers"]})


def surveys() -> list[dict[str, Any]]:
    """The simulated learners' surveys: alike, so each is drawn the same items from the bank."""
    return [
        {
            "user_id": user_id,
            "self_level": "intermediate",
            "years_experience": 3,
            "job_role": "ML Engineer",
            "duty": "Builds retrieval pipelines for an internal assistant",
            "interests": [INTEREST],
            "previous_score": 60,
            "language": "en",
            "submitted_at": SUBMITTED_AT,
        }
        for user_id, _name in LEARNERS
    ]


@contextmanager
def _offline_models() -> Iterator[None]:
    """The offline provider while the learners' rounds are written and their answers graded."""
    from slea.llm.provider_choice import get_provider

    saved = os.environ.get("LLM_PROVIDER")
    os.environ["LLM_PROVIDER"] = "offline"
    get_provider.cache_clear()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("LLM_PROVIDER", None)
        else:
            os.environ["LLM_PROVIDER"] = saved
        get_provider.cache_clear()


class _Client:
    """The HTTP API in process (slea_local.http.call): the same routes and functions a browser reaches."""

    def __init__(self, runtime: LocalRuntime) -> None:
        from slea_local.http import HttpApiAdapter

        self.app = HttpApiAdapter(runtime)

    def __call__(self, method: str, path: str, who: str, body: Any = None) -> Any:
        from slea_local.http import call

        status, _headers, answer = call(self.app, method, path, body, who)
        if status >= 300:
            raise RuntimeError(f"review demo: {method} {path} -> {status}: {answer}")
        return answer


def _start_round(client: _Client, who: str) -> str:
    session_id = str(client("POST", "/sessions", who)["session_id"])
    request = {"category": CATEGORY, "count": ITEMS, "difficulty": DIFFICULTY, "question_types": ["short_answer"]}
    client("POST", f"/sessions/{session_id}/rounds", who, request)
    return session_id


def _references(runtime: LocalRuntime, tables: dict[str, str], question_ids: list[str]) -> dict[str, str]:
    """The reference answers the simulated learners half-remember (read from the stored
    questions, as the demo reads its keys: the API never gives a key before the answer)."""
    from slea.dal import questions

    with runtime.cloud.environment(tables):
        stored = {question_id: questions.get_question(question_id) for question_id in question_ids}
    return {
        question_id: (item.answer_schema.reference_answer if item else None) or ""
        for question_id, item in stored.items()
    }


def seed_review_groups(runtime: LocalRuntime) -> ReviewDemo:
    """The simulated learners' rounds and answers on the local stack (seeded with the demo seed);
    returns what they did and the groups it left."""
    from ops.seed import load_seed
    from slea_local.executions import LocalStepFunctions

    tables = runtime.cloud.seed_environment()  # the tables' names, as ops.seed reads them
    with runtime.cloud.environment(tables):
        load_seed({"profiles": surveys()})
    client = _Client(runtime)
    who = [token(user_id, name=name) for user_id, name in LEARNERS]
    demo = ReviewDemo(learners=len(LEARNERS))
    with _offline_models(), LocalStepFunctions(runtime) as step_functions:
        # The first round writes the items; the others, started together, draw them from the bank.
        sessions = [_start_round(client, who[0])]
        step_functions.wait_for_running()
        sessions += [_start_round(client, learner) for learner in who[1:]]
        step_functions.wait_for_running()
        for number, (learner, session_id) in enumerate(zip(who, sessions, strict=True)):
            listed = client("GET", f"/sessions/{session_id}/questions", learner)["questions"]
            # In the order of the items they copy, so every learner leaves the same items open.
            shown = sorted(listed, key=lambda question: str(question.get("stem")))
            references = _references(runtime, tables, [question["question_id"] for question in shown])
            for question in shown[: ANSWERED[number]]:
                answer = simulated_answer(references[question["question_id"]], number)
                graded = client(
                    "POST",
                    f"/sessions/{session_id}/answers",
                    learner,
                    {"question_id": question["question_id"], "user_answer": answer},
                )
                demo.answers += 1
                demo.queued += bool(graded.get("needs_review"))
    groups = client("GET", "/review/groups", DEMO_REVIEWER)["groups"]
    demo.group_sizes = [int(group["size"]) for group in groups]
    return demo
