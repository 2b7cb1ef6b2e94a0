"""Colluding accounts harvest keys through the HTTP API and later accounts use them: how much of a
later account's round is answerable from harvested keys, with the bank's defences off and on, and
does person fit (the calibration job's) flag the accounts answering from keys?

Everything runs through the local HTTP API (template.yaml's routes over moto, the offline provider,
the demo seed), as a browser would use it:
- harvest: `--colluders` fresh accounts with ONE profile (a script's accounts: same level, role,
  duty, interests; `--distinct`: each its own role and duty, the same interests), created
  together, each plays `--rounds` rounds of `--count` multiple-choice and
  true/false items, answering at random; every key they are shown after answering is kept, by stem
  (the feedback states it; the bench reads it from the question store: an upper bound of the harvest);
- later: `--later` accounts of the same party with another profile (same interests, so they draw
  from the same bank; not look-alike) play `--later-rounds` rounds each, answering a harvested item
  from its key and the rest at random; `--honest` learners (distinct profiles, the same interests) play two
  rounds answering as the model says at a true ability ~ N(0, 1) and the items' labels;
- the attempts table's stream is folded after every round (slea_local.runtime.StreamPoller, as the
  local stack's timer and the event source mapping do), so the compromised-item CUSUM
  (slea.measurement.compromise) sees every answer before the next round is drawn;
- reported: how many of each later account's first `--count` items it held the key of; the share
  of each later account's items whose key was harvested, per round (the
  harvested share per later round: falling if harvested items rest as they are used); items
  rested by the farm rule (a look-alike group drawn for with FARM_GROUP_SIZE accounts a day: its
  items rest as they are shown); new bank items (generated questions kept as their own items) per
  round in each phase, what resting costs in generation; then the
  calibration job runs once and its person-fit list (the reviewers' "learners whose answers need a
  look") gives hits among the later accounts and false alarms among the honest learners and the
  harvesters.

`--honest-first N`: N honest learners (distinct profiles) play two rounds each before the harvest,
so the party harvests from a bank that already serves a population, not one it fills alone.

Modes (`--mode`): `off` - no rest (REST_AFTER_DRAWS unreachable, the compromise CUSUM's threshold
unreachable) and no look-alike groups (every account its own group): the bank before these defences,
so no farm rule either; `on` - as shipped (groups, the farm rule; rest after REST_AFTER_DRAWS
accounts, or `--rest-after N`: the production threshold is for a population of thousands; a bench of
tens of accounts reaches it only scaled down, which the figures say; the compromise CUSUM at its
production K, H and CAP, or `--cusum-k`/`--cusum-h` scaled down, reported beside the production
run).

Per-user rate limits are lifted (machine-speed play, as in the tests); everything else is the product's.

    python bench/collusion.py [--mode off|on|both] [--rest-after 3] [--colluders 10] [--rounds 3]
                              [--count 20] [--later 5] [--later-rounds 2] [--honest 5] [--seed 5]
                              [--cusum-k 0.75 --cusum-h 4] [--distinct] [--honest-first N]
"""

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any, cast
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea_local.cloud import prepare_process_environment  # noqa: E402

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
prepare_process_environment()

from bench.api_ability import Client, _answer_text, _wait_for_round  # noqa: E402
from bench.local_api import local_api  # noqa: E402
from slea.measurement import irt, scale  # noqa: E402

CATEGORY = "technical"
QUESTION_TYPES = ["multiple_choice", "true_false"]
INTERESTS = ["LLM", "RAG", "Agent Architecture"]


def account(seed: int, role: str, number: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"slea-bench-collusion:{seed}:{role}:{number}"))


def survey(profiles: Any, user_id: str, job_role: str, duty: str, level: str = "intermediate") -> None:
    profiles.put_item(
        Item={
            "user_id": user_id,
            "submitted_at": "2026-11-01T00:00:00Z",
            "self_level": level,
            "years_experience": 3,
            "job_role": job_role,
            "duty": duty,
            "interests": INTERESTS,
            "previous_score": 0,
            "language": "en",
        }
    )


def play(
    client: Client,
    questions: Any,
    rounds: int,
    count: int,
    answer: Any,
    *,
    after_round: Any = None,
    question_types: list[str] | None = QUESTION_TYPES,
) -> list[list[dict[str, Any]]]:
    """`rounds` rounds (a new session every two rounds); each question shown as {stem, item_id,
    type, needs_review}; `answer(stored, question)` says whether to answer right; `after_round()`
    runs after each. `question_types` None: the round request names none (the web app's: the
    product's default mix, short answers included); a short answer answered right is its key's
    reference answer (or its keywords), wrong "I don't know"."""
    played: list[list[dict[str, Any]]] = []
    session, round_number = "", 0
    for _ in range(rounds):
        if round_number in {0, 2}:
            status, created = client("POST", "/sessions")
            assert status == 201, created
            session, round_number = created["session_id"], 0
        round_number += 1
        body: dict[str, Any] = {"round": round_number, "category": CATEGORY, "count": count}
        if question_types is not None:
            body["question_types"] = question_types
        status, started = client("POST", f"/sessions/{session}/rounds", body)
        assert status == 202, started
        if not _wait_for_round(client, session, round_number):
            played.append([])
            continue
        status, listed = client("GET", f"/sessions/{session}/questions")
        assert status == 200, listed
        shown = []
        for question in [q for q in listed["questions"] if q["round"] == round_number and not q["answered"]]:
            stored = questions.get_item(Key={"question_id": question["question_id"]})["Item"]
            right = answer(stored, question)
            if question["type"] == "short_answer":
                text = _short_answer_text(stored["answer_schema"], right)
            else:
                key = str(stored["answer_schema"]["correct_key"])
                text = _answer_text(key, question["choices"], right, random.Random(question["question_id"]))
            status, graded = client(
                "POST", f"/sessions/{session}/answers", {"question_id": question["question_id"], "user_answer": text}
            )
            assert status == 200, graded
            shown.append(
                {
                    "stem": question["stem"],
                    "item_id": str(stored.get("item_id") or question["question_id"]),
                    "question_id": question["question_id"],
                    "type": question["type"],
                    "needs_review": bool(graded.get("needs_review")),
                    "score": graded.get("score"),
                }
            )
        played.append(shown)
        if after_round is not None:
            after_round()
    return played


def _short_answer_text(schema: dict[str, Any], right: bool) -> str:
    """A short answer: the key's reference answer (its keywords joined if it has none), or a
    learner's admission of not knowing."""
    if not right:
        return "I don't know"
    reference = str(schema.get("reference_answer") or "").strip()
    return reference or " ".join(str(keyword) for keyword in schema.get("correct_keywords") or []) or "I don't know"


def play_honestly(
    base: str, tables: tuple[Any, Any], users: list[str], count: int, rng: random.Random, *, after_round: Any = None
) -> None:
    """Learners of distinct profiles answering two rounds as the model says (ability ~ N(0, 1),
    the items' labels as their difficulty)."""
    questions, profiles = tables
    for number, user in enumerate(users):
        survey(profiles, user, f"Engineer {number}", f"Team {number}")
        theta = rng.gauss(0.0, 1.0)

        def as_the_model_says(stored: dict[str, Any], question: dict[str, Any], theta: float = theta) -> bool:
            b = scale.label_to_b(int(question["difficulty"]))
            floor = irt.guess_floor(question["type"], len(question["choices"]) or None)
            return rng.random() < irt.p_correct(theta, b, floor)

        play(Client(base, user), questions, 2, count, as_the_model_says, after_round=after_round)


def patch_defences(stack: ExitStack, defences: bool, rest_after: int | None, cusum: tuple[float, float]) -> None:
    """With the defences off, no look-alike groups and no rest of either rule; on, the compromise
    CUSUM's K and H as given (the production ones unless scaled down). (bench.local_api lifts the
    rate limits.)"""
    from slea.dal import bank as bank_store
    from slea.measurement import compromise

    if rest_after is not None:
        stack.enter_context(mock.patch.object(bank_store, "REST_AFTER_DRAWS", rest_after))
    if not defences:
        stack.enter_context(mock.patch.object(compromise, "H", float("inf")))
    else:
        stack.enter_context(mock.patch.object(compromise, "K", cusum[0]))
        stack.enter_context(mock.patch.object(compromise, "H", cusum[1]))


def rested_items(stored: list[dict[str, Any]]) -> tuple[int, int, int]:
    """Items rested (any rule), and of them those rested as compromised and as an account farm's."""
    from slea.dal.bank import FARM_REST_REASON
    from slea.measurement.compromise import REST_REASON

    rested = [item for item in stored if item.get("rested_at")]
    reasons = [item.get("rest_reason") for item in rested]
    return len(rested), reasons.count(REST_REASON), reasons.count(FARM_REST_REASON)


def bank_items(questions: Any) -> int:
    """Questions stored as their own bank item: every generated question the bank kept (a drawn
    copy, or a generated question joined to an item of the same stem and key, is not one)."""
    pages = questions.meta.client.get_paginator("scan").paginate(
        TableName=questions.name, ProjectionExpression="question_id, item_id"
    )
    return sum(
        1 for page in pages for item in page["Items"] if item.get("item_id", item["question_id"]) == item["question_id"]
    )


def fold_summary(sums: list[dict[str, Any]], stored: list[dict[str, Any]], h: float) -> dict[str, Any]:
    """What the stream fold recorded: answers folded, items with sums, their CUSUMs, and how many
    are past `h` while still drawable (none, if every crossing rested its item)."""
    items = [record for record in sums if str(record["sums_key"]).startswith("item#")]
    drawable = {str(item["question_id"]) for item in stored if item.get("bank_key")}
    cusums = sorted((float(record.get("cusum") or 0.0) for record in items), reverse=True)
    return {
        "answers_folded": sum(1 for record in sums if str(record["sums_key"]).startswith("response#")),
        "items": len(items),
        "items_cusum_above_zero": sum(1 for value in cusums if value > 0.0),
        "top_cusums": [round(value, 2) for value in cusums[:5]],
        "past_h_still_drawable": sum(
            1 for record in items if float(record.get("cusum") or 0.0) > h and str(record.get("item_id")) in drawable
        ),
    }


def scenario(arguments: argparse.Namespace, defences: bool) -> dict[str, Any]:
    seed = arguments.seed
    rng = random.Random(seed)
    rest_after = arguments.rest_after if defences else 10**9
    started = time.perf_counter()
    with ExitStack() as stack:
        patch_defences(stack, defences, rest_after, (arguments.cusum_k, arguments.cusum_h))
        api = stack.enter_context(local_api())
        step_functions, base, fold = api.step_functions, api.base, api.folding()
        questions, profiles = api.table("QuestionsTable"), api.table("ProfilesTable")
        abilities = api.table("AbilitiesTable")

        def guessing(stored: dict[str, Any], question: dict[str, Any]) -> bool:
            return rng.random() < irt.guess_floor(question["type"], len(question["choices"]) or None)

        # A bank already serving a population: honest learners first (`--honest-first`).
        first = [account(seed, "honest-first", n) for n in range(arguments.honest_first)]
        play_honestly(base, (questions, profiles), first, arguments.count, rng, after_round=fold)
        generated = [bank_items(questions)]  # before each phase, and at the end
        harvested: dict[str, str] = {}  # stem -> bank item
        harvesters = [account(seed, "harvester", n) for n in range(arguments.colluders)]
        for number, user in enumerate(harvesters):
            if arguments.distinct:  # each its own survey: nothing ties them but their behaviour
                survey(profiles, user, f"Engineer {number}", f"Practice {number}")
            else:
                survey(profiles, user, "Engineer", "Practice")  # one profile: a script's accounts
            client = Client(base, user)
            for shown in play(client, questions, arguments.rounds, arguments.count, guessing, after_round=fold):
                harvested |= {item["stem"]: item["item_id"] for item in shown}
            print(f"collusion: harvester {number + 1}: {len(harvested)} keys", file=sys.stderr, flush=True)

        generated.append(bank_items(questions))
        later = [account(seed, "later", n) for n in range(arguments.later)]
        shares: list[list[float]] = []
        known_first: list[int] = []  # of each later account's first `--count` items, those it held the key of
        for number, user in enumerate(later):
            survey(profiles, user, f"Analyst {number}", "Reports")  # the party, not look-alike

            def from_keys(stored: dict[str, Any], question: dict[str, Any]) -> bool:
                return question["stem"] in harvested or guessing(stored, question)

            client = Client(base, user)
            rounds = play(client, questions, arguments.later_rounds, arguments.count, from_keys, after_round=fold)
            shares.append([sum(i["stem"] in harvested for i in r) / len(r) if r else 0.0 for r in rounds])
            known_first.append(sum(i["stem"] in harvested for i in [i for r in rounds for i in r][: arguments.count]))
            print(f"collusion: later account {number + 1}: answerable {shares[-1]}", file=sys.stderr, flush=True)

        generated.append(bank_items(questions))
        honest = [account(seed, "honest", n) for n in range(arguments.honest)]
        play_honestly(base, (questions, profiles), honest, arguments.count, rng, after_round=fold)
        step_functions.wait_for_running()
        generated.append(bank_items(questions))
        refit = step_functions.run("CalibrationRefitStateMachine", {"poll_seconds": 1}, name=f"collusion-{seed}")
        assert refit.status == "SUCCEEDED", refit.cause
        run = refit.output
        listed = abilities.get_item(Key={"user_id": "#review", "entry": "person-fit"}).get("Item") or {}
        flagged = set(cast("dict[str, Any]", listed.get("learners") or {}))
        stored = questions.scan()["Items"]
        rested, compromised, farm = rested_items(stored)
        sums = api.table("CalibrationSumsTable").scan()["Items"]

    def rate(group: list[str]) -> float:
        return round(sum(user in flagged for user in group) / len(group), 3) if group else 0.0

    return {
        "defences": "on" if defences else "off",
        "colluder_profiles": "distinct" if arguments.distinct else "one",
        "honest_first": arguments.honest_first,
        "rest_after": rest_after if defences else None,
        "keys_harvested": len(harvested),
        "later_share_answerable_by_round": [
            round(statistics.fmean(r[i] for r in shares), 3) for i in range(arguments.later_rounds)
        ]
        if shares
        else [],
        "later_first_items_known": known_first,
        "later_first_items_known_mean": round(statistics.fmean(known_first), 2) if known_first else 0.0,
        "later_share_answerable": round(statistics.fmean(s for r in shares for s in r), 3) if shares else 0.0,
        "items_rested": rested,
        "items_rested_compromised": compromised,
        "items_rested_farm": farm,
        # New bank items per round played in each phase (of `--count` items a round).
        "generated_per_round": {
            phase: round((generated[i + 1] - generated[i]) / rounds, 2) if rounds else 0.0
            for i, (phase, rounds) in enumerate(
                (
                    ("harvest", arguments.colluders * arguments.rounds),
                    ("later", arguments.later * arguments.later_rounds),
                    ("honest", arguments.honest * 2),
                )
            )
        },
        "cusum": {"k": arguments.cusum_k, "h": arguments.cusum_h} if defences else None,
        "fold": fold_summary(sums, stored, arguments.cusum_h),
        "person_fit": {
            "later_flagged": rate(later),
            "honest_flagged": rate(honest),
            "harvesters_flagged": rate(harvesters),
            "learners_excluded": run.get("learners_excluded"),
        },
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("off", "on", "both"), default="both")
    parser.add_argument("--rest-after", type=int, default=None, help="REST_AFTER_DRAWS for the `on` run")
    parser.add_argument("--colluders", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--later", type=int, default=5)
    parser.add_argument("--later-rounds", type=int, default=2)
    parser.add_argument("--cusum-k", type=float, default=None, help="the compromise CUSUM's K for `on` (scaled down)")
    parser.add_argument("--cusum-h", type=float, default=None, help="the compromise CUSUM's H for `on` (scaled down)")
    parser.add_argument("--honest", type=int, default=5)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--distinct", action="store_true", help="each harvesting account with its own survey")
    parser.add_argument("--honest-first", type=int, default=0, help="honest learners playing before the harvest")
    arguments = parser.parse_args()
    from slea.measurement import compromise

    arguments.cusum_k = compromise.K if arguments.cusum_k is None else arguments.cusum_k
    arguments.cusum_h = compromise.H if arguments.cusum_h is None else arguments.cusum_h
    modes = {"off": [False], "on": [True], "both": [False, True]}[arguments.mode]
    for defences in modes:
        print(json.dumps(scenario(arguments, defences)), flush=True)


if __name__ == "__main__":
    main()
