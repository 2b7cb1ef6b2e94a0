"""Nothing shown earlier answers it: how many of a session's later multiple-choice items list an
option (a distractor or the key) whose concept the session has already shown?

Learners of distinct profiles play sessions of `--rounds` rounds of `--count` multiple-choice and
true/false items through the local HTTP API (template.yaml's routes over moto, the offline provider,
the demo seed), answering at random, one after the other (later rounds draw from the bank earlier
ones filled). What the session has shown, as a learner reads it: every earlier item's stem and
options, and everything each answer returned (key, explanation, feedback). An option of a later
multiple-choice item (its concept and definition from the stored item's choice notes, which the
learner never sees) is cued when the session has shown its definition (the normalised definition
of 4 words or more appears in the shown text), or named it as an earlier item's key or concept (the
option's concept is the concept an earlier stored item keyed). A later item is cued when any
option is. Independent of the rule under test (security/exposure.py's matcher): plain containment.
Target: at most 5% of later multiple-choice items cued.

    python bench/session_cues.py [--learners 12] [--rounds 2] [--count 10] [--seed 11]
"""

import os
import random
import re
import sys
import time
import unicodedata
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import prepare_process_environment  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
prepare_process_environment()

from bench.api_ability import Client, _answer_text, _wait_for_round  # noqa: E402
from bench.collusion import CATEGORY, QUESTION_TYPES, survey  # noqa: E402
from bench.command import print_measure  # noqa: E402
from bench.local_api import local_api  # noqa: E402

WORD = re.compile(r"\w+")
DEFINITION_WORDS = 4


def plain(text: str) -> str:
    return " ".join(WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for part in value.values() for text in strings(part)]
    if isinstance(value, list):
        return [text for part in value for text in strings(part)]
    return []


def own_concept(stored: dict[str, Any]) -> str:
    """The concept an item keys: its keyed option's note, else its explanation's head."""
    answer = stored.get("answer_schema") or {}
    key = str(answer.get("correct_key") or "")
    for choice in stored.get("choices") or []:
        if str(choice).startswith(f"{key})"):
            text = plain(str(choice).split(")", 1)[1])
            for note in answer.get("choice_notes") or []:
                if plain(str(note.get("option", ""))) == text and note.get("concept"):
                    return plain(str(note["concept"]))
    head, colon, _ = str(answer.get("explanation") or "").partition(":")
    return plain(head) if colon and len(head) <= 80 else ""


def cued_options(stored: dict[str, Any], shown_text: str, keyed_concepts: set[str]) -> list[str]:
    found = []
    for note in (stored.get("answer_schema") or {}).get("choice_notes") or []:
        concept, definition = plain(str(note.get("concept") or "")), plain(str(note.get("definition") or ""))
        if concept and concept in keyed_concepts:
            found.append(f"keyed earlier: {concept}")
        elif len(definition.split()) >= DEFINITION_WORDS and definition in shown_text:
            found.append(f"definition shown: {concept}")
    return found


def play_session(client: Client, questions: Any, rounds: int, count: int, rng: random.Random) -> dict[str, Any]:
    status, created = client("POST", "/sessions")
    assert status == 201, created
    session = created["session_id"]
    shown: list[str] = []
    keyed: set[str] = set()
    later = cued = 0
    examples: list[str] = []
    for round_number in range(1, rounds + 1):
        body = {"round": round_number, "category": CATEGORY, "count": count, "question_types": QUESTION_TYPES}
        status, started = client("POST", f"/sessions/{session}/rounds", body)
        assert status == 202, started
        if not _wait_for_round(client, session, round_number):
            break
        status, listed = client("GET", f"/sessions/{session}/questions")
        assert status == 200, listed
        fresh = [q for q in listed["questions"] if q["round"] == round_number and not q["answered"]]
        stored_items = {
            q["question_id"]: questions.get_item(Key={"question_id": q["question_id"]})["Item"] for q in fresh
        }
        if round_number > 1:
            text = " | ".join(plain(part) for part in shown)
            for question in fresh:
                if question["type"] != "multiple_choice":
                    continue
                later += 1
                found = cued_options(stored_items[question["question_id"]], text, keyed)
                if found:
                    cued += 1
                    examples.append(f"{question['stem'][:80]} :: {found[0]}")
        for question in fresh:  # the listing shows every stem and option of the round
            shown.extend([question["stem"], *question["choices"]])
        for question in fresh:
            stored = stored_items[question["question_id"]]
            key = str((stored.get("answer_schema") or {}).get("correct_key") or "")
            answer = _answer_text(key, question["choices"], rng.random() < 0.5, rng)
            status, graded = client(
                "POST", f"/sessions/{session}/answers", {"question_id": question["question_id"], "user_answer": answer}
            )
            assert status == 200, graded
            shown.extend(strings(graded))
            if concept := own_concept(stored):
                keyed.add(concept)
    return {"later": later, "cued": cued, "examples": examples}


def measure(learners: int, rounds: int, count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    started = time.perf_counter()
    later = cued = 0
    examples: list[str] = []
    with local_api() as api:
        questions, profiles = api.table("QuestionsTable"), api.table("ProfilesTable")
        for number in range(learners):
            user = str(uuid.uuid5(uuid.NAMESPACE_URL, f"slea-bench-session-cues:{seed}:{number}"))
            survey(profiles, user, f"Engineer {number}", f"Team {number}")
            result = play_session(Client(api.base, user), questions, rounds, count, rng)
            later, cued = later + result["later"], cued + result["cued"]
            examples.extend(result["examples"])
            print(f"session_cues: learner {number + 1}: {result['cued']} of {result['later']}", file=sys.stderr)
        api.step_functions.wait_for_running()
    return {
        "learners": learners,
        "rounds": rounds,
        "count": count,
        "later_multiple_choice": later,
        "cued": cued,
        "cued_share": round(cued / later, 3) if later else 0.0,
        "examples": examples[:5],
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    print_measure(measure, __doc__, ("--learners", 12), ("--rounds", 2), ("--count", 10), ("--seed", 11))


if __name__ == "__main__":
    main()
