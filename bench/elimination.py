"""Elimination across a session (docs/benchmarks.md): can a learner who knows nothing but what the
session has shown answer its later items?

Sessions of two rounds (five items each, the default mix) are run through the product on the local
AWS (offline provider, demo seed, the HTTP API and the state machine as `make serve` runs them):
every demo learner plays several sessions in each category, one after the other in one process,
so later rounds draw from a bank the earlier ones filled (bank draws and generation mixed).

The *elimination answerer* sees only what a learner sees: each item's stem and options as listed,
and after each answer everything the answer returns (the key, the explanation and its parts,
the feedback line, reference titles). It learns concept facts from that text:
- "Name: definition" (how an explanation or a feedback part opens), "That is the definition of
  Name", "a different concept: Name" (then the option picked is its definition) and "Name:
  definition" after "a different concept.";
- the item itself: a stem naming a concept with the key that answered it (or a stem quoting a
  definition with the name that answered it).
It answers each multiple-choice item by picking an option it recognises as the concept the stem
asks about, else at random among the options it does not recognise as another concept; a
true/false statement "Name ... definition" by the fact it holds on Name (or on the definition's
concept); short answers are skipped. Accuracy is reported on the items after the session's first
against chance (the mean of 1/options; 1/2 for true/false). Target: at most 5 points over chance.

Exposure spread: N new learners with one profile (the same interests, level and language) each
start a session; the share of the most common first item (by stem) and the number of distinct
first items. Target: no stem shared by more than a quarter of them. `--spread-only` measures only
that (on the demo seed's bank, or after `--limit N` sessions have filled it); `--spread-profile I`
is the demo profile they share (0, a product manager, whose interests no technical bank item is
written for, so their rounds are all generated; 1, interests LLM, RAG and agents, which the
technical bank serves).

Each state of the round's state machine has its deployed timeout (PlanRound 15 s); on a machine
shared with other work a step can take longer than in Lambda, and a round that times out ends the
run. `--timeout-factor F` multiplies every state's timeout in this process only (moto's
interpreter), never the template.

    python bench/elimination.py [--learners-per-profile 2] [--sessions 2] [--spread 20]
                                [--spread-only] [--timeout-factor 1]
"""

import argparse
import json
import random
import re
import sys
import uuid
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(1, str(REPO_ROOT / "layers" / "slea"))

from rapidfuzz import fuzz, utils  # noqa: E402

DEMO_SEED = REPO_ROOT / "data" / "demo_seed.json"
CATEGORIES = ("technical", "business", "general")
ROUND_SIZE = 5
MATCH_RATIO = 90
TARGET_POINTS = 5.0
SPREAD_TARGET = 0.25
LABEL = re.compile(r"^\s*([A-Ea-e])[).:]\s*")
# What the product's feedback says (feedback/details.py PHRASES, both languages): where a name
# and a definition are told together.
DEFINITION_OF = re.compile(r"(?:That is the definition of|정답 보기는 다음 개념의 정의입니다:)\s*(.+?)\.?$")
OTHER_DEFINITION = re.compile(r"(?:definition of a different concept:|다른 개념의 정의입니다:)\s*(.+?)\.?$")
OTHER_NAMED = re.compile(r"(?:is a different concept\.|다른 개념입니다\.)\s*(.+?):\s*(.+)$")
NAME_MAX = 80
HEADINGS = re.compile(r"(?:^|\n)(?:Why:|이유:|Why your answer is not right:|제출한 답이 틀린 이유:)\s*")


def normalised(text: str) -> str:
    return str(utils.default_process(text))


def option_text(choice: str) -> str:
    return LABEL.sub("", choice, count=1).strip()


def label_of(choice: str) -> str:
    match = LABEL.match(choice)
    return match.group(1) if match else choice


def same(a: str, b: str) -> bool:
    a, b = normalised(a), normalised(b)
    if not a or not b:
        return False
    if min(len(a), len(b)) < 25:  # a name: equal, not fuzzily similar
        return a == b
    return fuzz.ratio(a, b) >= MATCH_RATIO or (min(len(a), len(b)) > 40 and fuzz.partial_ratio(a, b) >= 95)


def contains(text: str, needle: str) -> bool:
    text, needle = normalised(text), normalised(needle)
    if not needle:
        return False
    if len(needle) < 25:
        return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text) is not None
    return fuzz.partial_ratio(needle, text) >= MATCH_RATIO


@dataclass
class Answerer:
    """Knows (name, definition) facts learned from what the session has shown."""

    rng: random.Random
    facts: list[tuple[str, str]] = field(default_factory=list)

    def learn(self, name: str, definition: str) -> None:
        name, definition = name.strip(), definition.strip()
        if name and definition and 0 < len(name) <= NAME_MAX and (name, definition) not in self.facts:
            self.facts.append((name, definition))

    def learn_text(self, text: str, picked: str | None = None) -> None:
        for raw in re.split(r"\n+|(?<=[.!?])\s+(?=\S)", text):
            line = raw.strip()
            if match := OTHER_NAMED.search(line):
                self.learn(match.group(1), match.group(2))
            elif (match := OTHER_DEFINITION.search(line)) and picked:
                self.learn(match.group(1), picked)
        for paragraph in re.split(r"\n\s*\n", text):
            for part in re.split(
                r"(?:^|\n)(?:Why:|이유:|Why your answer is not right:|제출한 답이 틀린 이유:)\s*", paragraph
            ):
                head, colon, rest = part.strip().partition(":")
                head = re.split(r"(?<=[.!?])\s+", head)[-1]  # the name opens its own sentence
                if colon and 0 < len(head) <= NAME_MAX and "\n" not in head and len(rest.strip()) > 20:
                    self.learn(head, rest.strip().split("\n")[0])

    def learn_item(self, item: dict[str, Any], result: dict[str, Any], picked_text: str | None) -> None:
        details = result.get("details") or {}
        key = str(details.get("correct_answer") or "")
        texts = [
            result.get("explanation") or "",
            result.get("feedback") or "",
            details.get("why_correct") or "",
            details.get("why_yours_is_wrong") or "",
            *(details.get("next_steps") or []),
            *(link.get("title", "") for link in result.get("reference_links") or []),
        ]
        for text in texts:
            self.learn_text(str(text), picked_text)
        why = str(details.get("why_correct") or "")
        if (match := DEFINITION_OF.search(why.split(". ", maxsplit=1)[0] + ".")) and key:
            self.learn(match.group(1), key)
        if item["type"] == "multiple_choice" and key:
            # The stem with its key: a named concept and its definition, or a quoted definition and its name.
            names = [name for name, _ in self.facts if contains(item["stem"], name)]
            if len(key) > NAME_MAX or len(key.split()) > 6:
                for name in names:
                    self.learn(name, key)
            else:
                self.learn(key, item["stem"])

    def concept_of(self, text: str) -> str | None:
        """The concept `text` (an option) is, by name or by definition, if known."""
        for name, definition in self.facts:
            if same(text, name) or same(text, definition):
                return name
        return None

    def asked(self, stem: str) -> list[str]:
        """The concepts the stem names or quotes."""
        return [name for name, definition in self.facts if contains(stem, name) or contains(stem, definition)]

    def answer_choice(self, item: dict[str, Any]) -> tuple[str, bool]:
        """(the label picked, whether anything was recognised)."""
        candidates, informed = self.candidates(item)
        return self.rng.choice(candidates), informed

    def candidates(self, item: dict[str, Any]) -> tuple[list[str], bool]:
        """The labels the answerer picks among, at random (whether anything was recognised)."""
        options = [
            (LABEL.match(choice).group(1) if LABEL.match(choice) else choice, option_text(choice))
            for choice in item["choices"]
        ]
        asked = set(self.asked(item["stem"]))
        known = {label: self.concept_of(text) for label, text in options}
        hits = [label for label, concept in known.items() if concept is not None and concept in asked]
        if hits:
            return hits, True
        # An option recognised as a concept the stem does not name is another concept's.
        left = [label for label, concept in known.items() if concept is None or contains(item["stem"], concept)]
        informed = len(left) < len(options)
        return left or [label for label, _ in options], informed

    def answer_statement(self, item: dict[str, Any]) -> tuple[str, bool]:
        true, false = item["choices"][:2] if len(item["choices"]) >= 2 else ("True", "False")
        stem = item["stem"]
        for name, definition in self.facts:
            if contains(stem, definition):
                named = contains(stem, name)
                return (true if named else false), True
        return self.rng.choice([true, false]), False


@dataclass
class Figures:
    sessions: int = 0
    items: int = 0
    drawn: int = 0
    later: int = 0
    later_right: int = 0
    later_expected: float = 0.0  # the answerer's chance of being right, over its own random picks
    later_chance: float = 0.0
    informed: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    right_by_type: Counter[str] = field(default_factory=Counter)
    first_items: Counter[str] = field(default_factory=Counter)
    first_from_bank: int = 0
    informed_right: int = 0  # later items answered right where the answerer recognised something
    first_rounds_drawn: int = 0  # items drawn from the bank over the spread learners' first rounds
    first_rounds: Counter[str] = field(default_factory=Counter)  # each first round's stems, as a set
    examples: list[dict[str, Any]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        accuracy = self.later_expected / self.later if self.later else None
        picked = self.later_right / self.later if self.later else None
        chance = self.later_chance / self.later if self.later else None
        over = round(100 * (accuracy - chance), 1) if accuracy is not None and chance is not None else None
        spread = self.first_items
        most = spread.most_common(1)[0][1] / sum(spread.values()) if spread else None
        return {
            "sessions": self.sessions,
            "items": self.items,
            "items_drawn_from_bank": self.drawn,
            "later_choice_items": self.later,
            "elimination_accuracy": round(accuracy, 4) if accuracy is not None else None,
            "accuracy_of_the_picks_made": round(picked, 4) if picked is not None else None,
            "chance": round(chance, 4) if chance is not None else None,
            "points_over_chance": over,
            "target_points_over_chance": TARGET_POINTS,
            "items_with_something_recognised": self.informed,
            "recognised_and_right": self.informed_right,
            "later_items_by_type": dict(self.by_type),
            "right_by_type": dict(self.right_by_type),
            "same_profile_learners": sum(spread.values()),
            "distinct_first_items": len(spread),
            "most_common_first_item_share": round(most, 4) if most is not None else None,
            "first_items_from_bank": self.first_from_bank,
            "first_round_items_from_bank": self.first_rounds_drawn,
            "distinct_first_rounds": len(self.first_rounds),
            "examples": self.examples[:5],
        }


class Product:
    """The local AWS with the HTTP API and the state machine."""

    def __init__(self, stack: ExitStack) -> None:
        import boto3

        from slea_local.cloud import LocalCloud, prepare_process_environment

        prepare_process_environment()
        from ops.seed import load_seed
        from slea_local.executions import LocalStepFunctions
        from slea_local.http import HttpApiAdapter
        from slea_local.runtime import LocalRuntime

        # A benchmark starts rounds faster than a learner may: the per-user limits are lifted.
        limits = {"DailyRoundsPerUser": "100000", "RoundStartRateBurst": "100000", "AnswerRateBurst": "100000"}
        cloud = stack.enter_context(LocalCloud(parameters=limits))
        with cloud.environment(cloud.seed_environment()):
            load_seed(json.loads(DEMO_SEED.read_text(encoding="utf-8")))
        runtime = LocalRuntime(cloud)
        self.sfn = stack.enter_context(LocalStepFunctions(runtime))
        self.api = HttpApiAdapter(runtime)
        dynamodb = boto3.resource("dynamodb")
        self.questions = dynamodb.Table(cloud.table_name("QuestionsTable"))
        self.sessions = dynamodb.Table(cloud.table_name("SessionsTable"))
        self.profiles = dynamodb.Table(cloud.table_name("ProfilesTable"))

    def call(self, method: str, path: str, body: Any, user: str) -> tuple[int, Any]:
        from slea_local.http import call

        status, _, payload = call(self.api, method, path, body, user)
        return status, payload

    def learner(self, profile: dict[str, Any]) -> str:
        user = str(uuid.UUID(int=random.Random(json.dumps(profile, sort_keys=True)).getrandbits(128), version=4))
        self.profiles.put_item(Item={**profile, "user_id": user})
        return user

    def session(self, user: str, name: str) -> str:
        self.sessions.put_item(Item={"session_id": name, "user_id": user, "created_at": "2026-11-26T00:00:00Z"})
        return name

    def round(self, user: str, session: str, category: str, number: int) -> list[dict[str, Any]]:
        """The round's items as listed, in order (with `from_bank` from the stored copy)."""
        request = {"category": category, "count": ROUND_SIZE, "round": number}
        status, started = self.call("POST", f"/sessions/{session}/rounds", request, user)
        assert status == 202, started
        execution = self.sfn.watch(started["execution_arn"])
        assert execution.status == "SUCCEEDED", execution.cause
        drawn = {q["question_id"] for q in execution.output["questions"] if q.get("from_bank")}
        _, listed = self.call("GET", f"/sessions/{session}/questions", None, user)
        items = [q for q in listed["questions"] if q.get("round", number) == number]
        for item in items:
            item["from_bank"] = item["question_id"] in drawn
        return items

    def answer(self, user: str, session: str, item: dict[str, Any], answer: str) -> dict[str, Any]:
        body = {"question_id": item["question_id"], "user_answer": answer}
        status, result = self.call("POST", f"/sessions/{session}/answers", body, user)
        assert status == 200, result
        return dict(result)


def profiles() -> list[dict[str, Any]]:
    newest: dict[str, dict[str, Any]] = {}
    for survey in sorted(
        json.loads(DEMO_SEED.read_text(encoding="utf-8"))["profiles"], key=lambda s: s["submitted_at"]
    ):
        newest[survey["user_id"]] = survey
    return list(newest.values())


def expected_right(
    item: dict[str, Any], result: dict[str, Any], candidates: list[str], informed: bool, right: bool
) -> float:
    """The answerer's chance of being right on `item`, over its own random pick: the share of the
    labels it picks among that are the key (multiple choice), 1/2 for a true/false statement it
    guesses, else its answer's outcome. Averaging these instead of its picks' outcomes takes the
    luck of its random picks out of the figure (about +-6 points a run over some 250 items),
    leaving what it recognised."""
    if item["type"] == "true_false":
        return float(right) if informed else 0.5
    key = normalised(str((result.get("details") or {}).get("correct_answer") or ""))
    keyed = [label_of(choice) for choice in item["choices"] if normalised(option_text(choice)) == key]
    labels = [label_of(choice) for choice in item["choices"]]
    if not keyed and len(key) == 1:
        keyed = [label for label in labels if label.casefold() == key]
    if not keyed:
        return float(right)  # the key cannot be placed among the options: the pick's outcome
    return sum(label in keyed for label in candidates) / len(candidates)


def play_session(product: Product, user: str, session: str, category: str, figures: Figures) -> None:
    answerer = Answerer(random.Random(session))
    position = 0
    for number in (1, 2):
        items = product.round(user, session, category, number)
        figures.items += len(items)
        figures.drawn += sum(item["from_bank"] for item in items)
        for item in items:
            position += 1
            if item["type"] == "short_answer":
                result = product.answer(user, session, item, "I am not sure.")
                answerer.learn_item(item, result, None)
                continue
            candidates: list[str] = []
            if item["type"] == "multiple_choice":
                candidates, informed = answerer.candidates(item)
                picked = answerer.rng.choice(candidates)
                chance = 1 / len(item["choices"])
                picked_text = next((option_text(c) for c in item["choices"] if c.startswith(f"{picked})")), None)
            else:
                picked, informed = answerer.answer_statement(item)
                chance, picked_text = 0.5, None
            result = product.answer(user, session, item, picked)
            right = bool(result.get("is_correct"))
            if position > 1:
                figures.later += 1
                figures.later_chance += chance
                figures.later_right += right
                figures.later_expected += expected_right(item, result, candidates, informed, right)
                figures.informed += informed
                figures.by_type[item["type"]] += 1
                figures.right_by_type[item["type"]] += right
                figures.informed_right += informed and right
                if informed and right:
                    figures.examples.append({"stem": item["stem"], "choices": item["choices"], "picked": picked})
            answerer.learn_item(item, result, picked_text)
    figures.sessions += 1


def longer_timeouts(factor: float) -> Any:
    """Every state's TimeoutSeconds times `factor` in moto's interpreter (this process only)."""
    from unittest import mock

    from moto.stepfunctions.parser.asl.component.common.timeouts.timeout import TimeoutSeconds

    deployed = TimeoutSeconds._eval_seconds

    def scaled(self: TimeoutSeconds, env: Any) -> int:
        seconds = int(deployed(self, env))
        return seconds if self.is_default_value() else int(seconds * factor)

    return mock.patch.object(TimeoutSeconds, "_eval_seconds", scaled)


def measure(
    learners_per_profile: int = 2,
    sessions: int = 2,
    spread: int = 20,
    limit: int | None = None,
    *,
    spread_only: bool = False,
    timeout_factor: float = 1.0,
    spread_profile: int = 0,
) -> dict[str, Any]:
    figures = Figures()
    with ExitStack() as stack:
        if timeout_factor != 1.0:
            stack.enter_context(longer_timeouts(timeout_factor))
        product = Product(stack)
        plans = [
            (profile, copy, category)
            for profile in profiles()
            for copy in range(learners_per_profile)
            for category in CATEGORIES
        ]
        if spread_only:
            plans = plans[:limit] if limit else []
        for number, (profile, copy, category) in enumerate(plans[:limit] if limit else plans):
            user = product.learner({**profile, "duty": f"{profile.get('duty', '')} ({copy})"})
            for session in range(sessions):
                name = f"elimination-{number}-{session}"
                play_session(product, user, product.session(user, name), category, figures)
        # Exposure spread: new learners with one profile, each starting a session.
        profile = profiles()[spread_profile]
        category = "technical"
        for number in range(spread):
            user = product.learner({**profile, "duty": f"spread learner {number}"})
            session = product.session(user, f"spread-{number}")
            items = product.round(user, session, category, 1)
            first = items[0]
            figures.first_items[first["stem"]] += 1
            figures.first_from_bank += bool(first["from_bank"])
            figures.first_rounds_drawn += sum(bool(item["from_bank"]) for item in items)
            figures.first_rounds[json.dumps(sorted(item["stem"] for item in items))] += 1
    return figures.report()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners-per-profile", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=2, help="sessions per learner and category")
    parser.add_argument("--spread", type=int, default=20, help="same-profile new learners for the exposure spread")
    parser.add_argument("--limit", type=int, default=None, help="only the first N (learner, category) plans")
    parser.add_argument("--spread-only", action="store_true", help="only the exposure spread (after --limit plans)")
    parser.add_argument("--timeout-factor", type=float, default=1.0, help="every state's timeout times this, locally")
    parser.add_argument(
        "--spread-profile", type=int, default=0, help="which demo profile the spread's learners share (index)"
    )
    arguments = parser.parse_args()
    print(
        json.dumps(
            measure(
                arguments.learners_per_profile,
                arguments.sessions,
                arguments.spread,
                arguments.limit,
                spread_only=arguments.spread_only,
                timeout_factor=arguments.timeout_factor,
                spread_profile=arguments.spread_profile,
            ),
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
