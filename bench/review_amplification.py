"""How far one reviewer action goes: answer groups and grades learned from reviews, on corpora graded
by people.

Each CSV file (columns question_id, question, reference, answer, label; label 1 = correct, 0 = not;
other columns ignored) is played as a bank whose items gather answers over time:
- each question's answers arrive in a seeded order; each is graded by the offline provider's own
  grader (`slea.grading.short_answer_evidence`), and held back (not correct, flagged, to a reviewer)
  where it holds another question's reference (its print, grading/reference_prints.py), as Tool 6
  does with its category's prints; a grade the grader finalises stands;
- otherwise the product's propagation (`slea.grading.answer_groups.propagate`) tries the item's
  exemplars (the answers reviewers graded so far): agreeing exemplars close enough finalise it;
- otherwise it waits in the review queue, grouped as it arrives (`answer_groups.assign`);
- the reviewer visits an item's queue whenever `--batch` answers are waiting (and once at the
  end). The queue shows groups first, largest first: one action grades a whole group with the
  grade most of its members deserve (the gold labels play the reviewer), the members whose gold
  label differs are excluded and graded one action each. After each action, the answers still
  waiting are tried against the new exemplars (the queue drops those they settle).
Reviewed answers take the reviewer's (gold) verdict, so final agreement falls short of 100% only
through verdicts finalised without review.

    python bench/review_amplification.py --csv FILE [--csv FILE ...] [--json] [--seed 7] [--batch 8]
    python bench/review_amplification.py --fit --csv TRAIN1 --csv TRAIN2 ...   # choose the constants

`--fit` chooses the grouping and propagation constants leave-one-corpus-out: for each file, the
cheapest setting (fewest reviewer actions over the other files) whose propagated verdicts agree
with the humans at least `--target` of the time on every other file is measured on the file left
out; the setting chosen on all files is the one to store in answer_groups.py.

`bench/corpora.py csv --dir /work/corpora --out DIR` writes the CSV files from the converted corpora.
"""

import argparse
import csv
import itertools
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.dal.exemplars import slot_for  # noqa: E402
from slea.grading import answer_groups  # noqa: E402
from slea.grading.answer_groups import Closeness, Exemplar, Graded, Group, Settings  # noqa: E402

DEFAULT_BATCH = 8
DEFAULT_SEED = 7
TARGET = 0.96  # propagated verdicts must agree with the humans this often on corpora left out
CURVE_POINTS = 10
# The IDF of an item's texts is recomputed when it has seen this many times the answers it had
# then (statistics of a few answers move fast, of many slowly; recomputing at every visit of the
# reviewer makes a run several times slower for the same figures).
REFRESH_GROWTH = 1.25


@dataclass(frozen=True)
class Answer:
    answer_id: str
    question_id: str
    question: str
    reference: str
    text: str
    label: bool


@dataclass(frozen=True)
class GraderView:
    """What the offline grader said about one answer."""

    correct: bool
    score: int
    final: bool
    probability: float | None
    flagged: bool


def read_csv(path: Path) -> list[Answer]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Answer(
                answer_id=f"{path.stem}-{position}",
                question_id=row["question_id"],
                question=row["question"],
                reference=row["reference"],
                text=row["answer"],
                label=str(row["label"]).strip() in {"1", "1.0", "true", "True"},
            )
            for position, row in enumerate(csv.DictReader(handle))
            if row["answer"].strip()
        ]


def grade_all(answers: list[Answer]) -> dict[str, GraderView]:
    """The offline provider's grade of every answer, as Tool 6 grades a short answer offline."""
    from bench.grading_agreement import informative_words
    from slea.constants import HIGH_SCORE_THRESHOLD
    from slea.contracts.llm import GradingItem
    from slea.grading.reference_prints import pasted_from, sketch
    from slea.grading.short_answer_evidence import grade_with_evidence

    keywords: dict[str, list[str]] = {}
    # The file's questions are one category: each answer is also checked against the reference
    # prints of the other questions, as Tool 6 checks the category's (grading/reference_prints.py).
    prints = {answer.question_id: sketch(answer.reference) for answer in answers}
    views = {}
    for answer in answers:
        words = keywords.setdefault(answer.question_id, informative_words(answer.reference))
        graded = grade_with_evidence(
            GradingItem(
                question_type="short_answer",
                user_answer=answer.text,
                stem=answer.question,
                reference_answer=answer.reference,
                correct_keywords=words,
            )
        )
        pasted = pasted_from(answer.text, answer.reference, prints, [answer.question_id]) is not None
        score = min(graded.score, HIGH_SCORE_THRESHOLD - 1) if pasted else graded.score
        views[answer.answer_id] = GraderView(
            correct=score >= HIGH_SCORE_THRESHOLD,
            score=score,
            final=not graded.needs_review and not pasted,
            probability=graded.probability_correct,
            flagged=pasted or bool(graded.flags) or (graded.probability_correct is None and not graded.needs_review),
        )
    return views


@dataclass
class Outcome:
    answers: int = 0
    reviewer_actions: int = 0
    group_actions: int = 0
    single_actions: int = 0
    finalised_by_grader: int = 0
    propagated: int = 0
    propagated_right: int = 0
    grader_right: int = 0
    conflicts: int = 0
    largest_group: int = 0
    curve: list[tuple[int, int, int]] = field(default_factory=list)  # (arrived, actions, final wrong)

    @property
    def finalised_without_review(self) -> int:
        return self.finalised_by_grader + self.propagated

    @property
    def wrong(self) -> int:
        return (self.propagated - self.propagated_right) + (self.finalised_by_grader - self.grader_right)


@dataclass
class Item:
    """One question's state as the product keeps it: its exemplars and its queue of groups."""

    reference: str
    slots: dict[str, Exemplar] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    closeness: Closeness | None = None
    refreshed_at: int = 0

    @property
    def exemplars(self) -> list[Exemplar]:
        return [self.slots[slot] for slot in sorted(self.slots)]

    def keep(self, exemplar: Exemplar) -> None:
        """Stored as the product stores it (dal/exemplars.py `slot_for`): in the slot its id hashes
        to, or the next free one, of SLOTS; replacing the hashed slot's exemplar when all are taken."""
        self.slots[slot_for(self.slots, exemplar.exemplar_id)] = exemplar

    def refresh(self) -> Closeness:
        """IDF over what the item holds: its reference and the answers it has seen."""
        self.closeness = Closeness([self.reference, *self.seen])
        self.refreshed_at = max(1, len(self.seen))
        return self.closeness


def _graded(answer: Answer, view: GraderView) -> Graded:
    return Graded(answer.text, view.probability, view.flagged)


class Simulation:
    def __init__(self, answers: list[Answer], views: dict[str, GraderView], settings: Settings, batch: int) -> None:
        self.answers = answers
        self.views = views
        self.settings = settings
        self.batch = batch
        self.by_id = {a.answer_id: a for a in answers}
        self.outcome = Outcome(answers=len(answers))

    def _settle(self, answer: Answer, correct: bool, propagated: bool) -> None:
        if propagated:
            self.outcome.propagated += 1
            self.outcome.propagated_right += correct == answer.label
        else:
            self.outcome.finalised_by_grader += 1
            self.outcome.grader_right += correct == answer.label

    def _try_exemplars(self, item: Item, answer: Answer) -> bool:
        found = answer_groups.propagate(
            _graded(answer, self.views[answer.answer_id]), item.exemplars, item.closeness, self.settings
        )
        self.outcome.conflicts += found.conflict
        if found.correct is None:
            return False
        self._settle(answer, found.correct, propagated=True)
        return True

    def _queue(self, item: Item, answer: Answer) -> None:
        graded = _graded(answer, self.views[answer.answer_id])
        index = answer_groups.assign(graded, item.groups, item.closeness, self.settings, item.exemplars)
        if index is None:
            item.groups.append(Group(answer.answer_id, graded, [answer.answer_id]))
        else:
            item.groups[index].member_ids.append(answer.answer_id)

    def _review(self, item: Item) -> None:
        """Groups first, largest first; after each action the rest of the queue meets the new exemplars."""
        while item.groups:
            item.groups.sort(key=lambda g: -len(g.member_ids))
            group = item.groups.pop(0)
            members = [self.by_id[m] for m in group.member_ids]
            self.outcome.largest_group = max(self.outcome.largest_group, len(members))
            votes = Counter(m.label for m in members)
            face = self.by_id[group.group_id].label
            grade = face if votes[face] >= votes[not face] else not face
            self.outcome.reviewer_actions += 1
            if len(members) > 1:
                self.outcome.group_actions += 1
            else:
                self.outcome.single_actions += 1
            for member in members:
                if member.label != grade:  # excluded from the group, graded alone
                    self.outcome.reviewer_actions += 1
                    self.outcome.single_actions += 1
                view = self.views[member.answer_id]
                item.keep(
                    Exemplar(member.answer_id, member.text, member.label, 100 if member.label else 0, view.probability)
                )
            still: list[Group] = []
            closeness = item.closeness or item.refresh()
            for waiting in item.groups:
                # Only the new exemplars can change what the rest of the queue was told.
                left = [
                    m
                    for m in waiting.member_ids
                    if not (
                        max(closeness(self.by_id[m].text, t.text) for t in members) >= self.settings.conflict_similarity
                        and self._try_exemplars(item, self.by_id[m])
                    )
                ]
                if left:
                    face_id = waiting.group_id if waiting.group_id in left else left[0]
                    still.append(Group(face_id, _graded(self.by_id[face_id], self.views[face_id]), left))
            item.groups = still

    def run(self, seed: int) -> Outcome:
        by_question: dict[str, list[Answer]] = defaultdict(list)
        for answer in self.answers:
            by_question[answer.question_id].append(answer)
        rng = random.Random(seed)
        arrived = 0
        for question_id in sorted(by_question):
            stream = list(by_question[question_id])
            rng.shuffle(stream)
            item = Item(stream[0].reference)
            item.refresh()
            for answer in stream:
                arrived += 1
                item.seen.append(answer.text)
                view = self.views[answer.answer_id]
                if view.final:
                    self._settle(answer, view.correct, propagated=False)
                elif not self._try_exemplars(item, answer):
                    self._queue(item, answer)
                if sum(len(g.member_ids) for g in item.groups) >= self.batch:
                    self._review(item)
                    if len(item.seen) >= REFRESH_GROWTH * item.refreshed_at:
                        item.refresh()
                self.outcome.curve.append((arrived, self.outcome.reviewer_actions, self.outcome.wrong))
            self._review(item)
            self.outcome.curve[-1] = (arrived, self.outcome.reviewer_actions, self.outcome.wrong)
        return self.outcome


def simulate(answers: list[Answer], views: dict[str, GraderView], settings: Settings, batch: int, seed: int) -> Outcome:
    return Simulation(answers, views, settings, batch).run(seed)


def report(name: str, outcome: Outcome) -> dict[str, Any]:
    total = max(1, outcome.answers)
    return {
        "file": name,
        "answers": outcome.answers,
        "reviewer_actions": outcome.reviewer_actions,
        "final_agreement": round(1 - outcome.wrong / total, 4),
        "finalised_without_review": outcome.finalised_without_review,
        "actions_share": round(outcome.reviewer_actions / total, 4),
        "group_actions": outcome.group_actions,
        "single_actions": outcome.single_actions,
        "propagated": outcome.propagated,
        "propagated_agreement": round(outcome.propagated_right / outcome.propagated, 4) if outcome.propagated else None,
        "finalised_by_grader": outcome.finalised_by_grader,
        "conflicts_sent_to_review": outcome.conflicts,
        "largest_group": outcome.largest_group,
    }


def curve_text(name: str, outcome: Outcome) -> str:
    """Agreement against reviewer actions as the answers arrive (answers not yet final count as
    waiting, not as disagreements)."""
    lines = [f"{name}: answers arrived, reviewer actions (share), final agreement so far"]
    total = len(outcome.curve)
    for point in range(1, CURVE_POINTS + 1):
        arrived, actions, wrong = outcome.curve[max(0, round(point * total / CURVE_POINTS) - 1)]
        lines.append(f"  {arrived:6d}  {actions:6d} ({actions / arrived:6.1%})  {1 - wrong / arrived:6.1%}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------- fitting
# Two stages, as the two sets of constants do different jobs: propagation decides what is
# finalised without a reviewer (its precision is the safety figure), grouping only what one
# action covers (with the reviewer grading, it never changes a final grade).
PROPAGATION_GRID: dict[str, list[Any]] = {
    "propagate_disagreement_margin": [0.0, 0.05],
}
GROUPING_GRID: dict[str, list[Any]] = {
    "group_probability_gap": [0.5, 0.7],
}


def settings_grid(grid: dict[str, list[Any]], base: Settings) -> Iterator[Settings]:
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        chosen = dict(zip(keys, values, strict=True))
        if chosen.get("conflict_similarity", 0.0) > chosen.get("propagate_similarity", 1.0):
            continue
        yield replace(base, **chosen)


def _precision(outcome: Outcome) -> float:
    return outcome.propagated_right / outcome.propagated if outcome.propagated else 1.0


def _cost(results: dict[Settings, dict[str, Outcome]], settings: Settings, files: list[str]) -> float:
    return sum(results[settings][f].reviewer_actions / results[settings][f].answers for f in files)


def choose(results: dict[Settings, dict[str, Outcome]], files: list[str], target: float) -> Settings:
    """The setting with the fewest reviewer actions (as a share, each file weighted equally) whose
    propagated verdicts reach `target` on every one of `files` (the strictest one if none does)."""
    safe = [s for s, per in results.items() if all(_precision(per[f]) >= target for f in files)]
    if not safe:
        return max(results, key=lambda s: min(_precision(results[s][f]) for f in files))
    return min(safe, key=lambda s: _cost(results, s, files))


Data = dict[str, tuple[list[Answer], dict[str, GraderView]]]


def _run_grid(data: Data, grid: Iterator[Settings], batch: int, seed: int) -> dict[Settings, dict[str, Outcome]]:
    results = {}
    for settings in grid:
        results[settings] = {name: simulate(a, v, settings, batch, seed) for name, (a, v) in data.items()}
        print(f"# {settings}", file=sys.stderr, flush=True)
    return results


def choose_settings(
    data: Data, files: list[str], *, batch: int, seed: int, target: float, cache: dict[Any, Any]
) -> Settings:
    """Stage 1 on `files`: the propagation constants; stage 2: the grouping constants with them."""
    if "propagation" not in cache:
        cache["propagation"] = _run_grid(data, settings_grid(PROPAGATION_GRID, answer_groups.DEFAULT), batch, seed)
    propagation = choose(cache["propagation"], files, target)
    if propagation not in cache:
        cache[propagation] = _run_grid(data, settings_grid(GROUPING_GRID, propagation), batch, seed)
    return choose(cache[propagation], files, target)


def fit(data: Data, batch: int, seed: int, target: float) -> None:
    cache: dict[Any, Any] = {}
    names = list(data)
    for left_out in names:
        chosen = choose_settings(
            data, [n for n in names if n != left_out], batch=batch, seed=seed, target=target, cache=cache
        )
        answers, views = data[left_out]
        measured = report(left_out, simulate(answers, views, chosen, batch, seed))
        print(json.dumps({"left_out": left_out, "chosen_on_the_others": chosen.__dict__, **measured}), flush=True)
    chosen = choose_settings(data, names, batch=batch, seed=seed, target=target, cache=cache)
    print(json.dumps({"chosen_on_all": chosen.__dict__}))


def _setting(pair: str) -> tuple[str, Any]:
    name, _, value = pair.partition("=")
    named = {"None": None, "True": True, "False": False}
    if value in named:
        return name, named[value]
    return name, int(value) if value.isdigit() else float(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--csv", type=Path, action="append", required=True, help="question_id,question,reference,answer,label"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="waiting answers that bring the reviewer")
    parser.add_argument("--fit", action="store_true", help="choose the constants leave-one-corpus-out")
    parser.add_argument("--target", type=float, default=TARGET)
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="try a setting other than the shipped one"
    )
    args = parser.parse_args(argv)
    settings = replace(answer_groups.DEFAULT, **dict(_setting(pair) for pair in args.set))
    data = {}
    for path in args.csv:
        answers = read_csv(path)
        data[str(path)] = (answers, grade_all(answers))
    if args.fit:
        fit(data, args.batch, args.seed, args.target)
        return 0
    for name, (answers, views) in data.items():
        outcome = simulate(answers, views, settings, args.batch, args.seed)
        if args.json:
            print(json.dumps(report(name, outcome)))
        else:
            print(json.dumps(report(name, outcome), indent=1))
        print(curve_text(name, outcome), file=sys.stderr if args.json else sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
