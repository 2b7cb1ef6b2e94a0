"""What one run of the stream-fed calibration reads and writes as the attempts history grows
(docs/benchmarks.md, docs/measurement.md): the history is grown to each size (10k, 100k, 1M
simulated answers, folded as the stream would deliver them), then a fixed number of new answers
arrives as stream records and is folded by the function's use case
(slea.logic.jobs.incremental_calibration.Folding) in batches of the event source mapping's size.

The storage layer is faked at its seam (slea.dal.calibration_sums: apply, touched_items, item_cusums,
write_statistics) by an in-memory store with the same rules (one response record per learner and
item, conditional corrections, the category's learner count, a learner's first answer in a
category costing a refused transaction first), which counts every record read and written. The
figure to watch is records read per run / new answers: constant as the history grows. For
comparison, the scheduled full Scan reads the whole history every run.

    python bench/calibration_growth.py [--sizes 10000 100000 1000000] [--new 1000] [--json]
"""

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

ITEMS = 2_000
CATEGORIES = ("technical", "business", "general")
ANSWERS_PER_LEARNER = 40
BATCH_SIZE = 100  # template.yaml: the AttemptsStream event's BatchSize
BATCH_GET_MAX = 100


@dataclass
class FakeSums:
    """slea.dal.calibration_sums in memory, counting what DynamoDB would be asked."""

    responses: dict[str, tuple[str, float]] = field(default_factory=dict)
    items: dict[str, Any] = field(default_factory=dict)
    learners: dict[str, Any] = field(default_factory=dict)
    learner_categories: dict[str, set[str]] = field(default_factory=dict)
    category_learners: Counter[str] = field(default_factory=Counter)
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    cusums: dict[str, Any] = field(default_factory=dict)  # item id -> (compromise CUSUM, folds)

    def item_cusums(self, item_ids: Any) -> dict[str, Any]:
        from slea.measurement.compromise import Cusum

        wanted = set(item_ids)
        self.counts["records_read"] += len(wanted)
        self.counts["batch_get_calls"] += -(-len(wanted) // BATCH_GET_MAX)
        return {item_id: self.cusums.get(item_id, (Cusum(), 0)) for item_id in wanted}

    def apply(self, fold: Any, at: str) -> str:
        from slea.dal.calibration_sums import response_key
        from slea.measurement.sufficient import ItemSums, LearnerSums

        key = response_key(fold.item_id, fold.user_id)
        recorded = self.responses.get(key)
        first = fold.expected_score is None
        known = fold.category in self.learner_categories.get(fold.user_id, set())
        if first and not known:
            self.counts["transactions_refused"] += 1  # the "known learner" shape is tried first
            self.counts["records_written"] += 3
        self.counts["transactions"] += 1
        items_in_transaction = 4 if first and not known else 3
        self.counts["records_written"] += items_in_transaction
        if first and recorded is not None:
            self.counts["transactions_refused"] += 1
            return "already_folded"
        if not first and (recorded is None or recorded != (fold.attempt, fold.expected_score)):
            self.counts["transactions_refused"] += 1
            return "already_folded"
        if fold.score is None:
            del self.responses[key]
        else:
            self.responses[key] = (fold.attempt, fold.score)
        self.items[fold.item_id] = self.items.get(fold.item_id, ItemSums()) + fold.item
        folds = self.cusums.get(fold.item_id, (None, 0))[1] + 1
        if fold.cusum is not None:
            self.cusums[fold.item_id] = (fold.cusum, folds)
        elif fold.item_id in self.cusums:
            self.cusums[fold.item_id] = (self.cusums[fold.item_id][0], folds)
        self.learners[fold.user_id] = self.learners.get(fold.user_id, LearnerSums()) + fold.learner
        if first and not known:
            self.learner_categories.setdefault(fold.user_id, set()).add(fold.category)
            self.category_learners[fold.category] += 1
        return "folded"

    def touched_items(self, categories: dict[str, str]) -> dict[str, Any]:
        from slea.dal.calibration_records import calibration_item
        from slea.dal.calibration_sums import TouchedItem
        from slea.measurement.sufficient import ItemSums

        keys = 2 * len(categories) + len(set(categories.values()))
        self.counts["records_read"] += keys
        self.counts["batch_get_calls"] += -(-keys // BATCH_GET_MAX)
        return {
            item_id: TouchedItem(
                sums=self.items.get(item_id, ItemSums()),
                category_learners=self.category_learners[category],
                question=calibration_item(self.questions[item_id]) if item_id in self.questions else None,
            )
            for item_id, category in categories.items()
        }

    def write_statistics(self, item_id: str, calibration: Any, folds: int, rest_at: str | None = None) -> bool:
        from slea.dal.calibration_records import calibration_map

        self.counts["records_written"] += 1
        self.counts["statistics_written"] += 1
        self.questions[item_id] = {**self.questions[item_id], "calibration": calibration_map(calibration)}
        return True


def _bank(rng: random.Random) -> dict[str, dict[str, Any]]:
    from slea.measurement.scale import label_to_b

    bank = {}
    for number in range(ITEMS):
        label = 1 + number % 10
        bank[f"item-{number:05d}"] = {
            "question_id": f"item-{number:05d}",
            "difficulty": label,
            "difficulty_b": label_to_b(label) + rng.gauss(0.0, 0.3),
            "difficulty_precision": 4.0,
            "category": CATEGORIES[number % len(CATEGORIES)],
        }
    return bank


def _answers(rng: random.Random, bank: dict[str, dict[str, Any]], count: int, first_learner: int) -> list[Any]:
    """`count` answers of new learners (ANSWERS_PER_LEARNER each, one category per learner)."""
    from slea.logic.jobs.incremental_calibration import Answer
    from slea.measurement.irt import p_correct

    by_category: dict[str, list[str]] = {}
    for item_id, item in bank.items():
        by_category.setdefault(item["category"], []).append(item_id)
    made: list[Answer] = []
    learner = first_learner
    while len(made) < count:
        category = CATEGORIES[learner % len(CATEGORIES)]
        theta = rng.gauss(0.0, 1.0)
        for item_id in rng.sample(by_category[category], ANSWERS_PER_LEARNER):
            b = float(bank[item_id]["difficulty_b"])
            score = 1.0 if rng.random() < p_correct(theta, b, 0.25) else 0.0
            made.append(
                Answer(item_id, f"learner-{learner:07d}", category, f"s-{learner}#{item_id}", score, theta, b, 0.25)
            )
        learner += 1
    return made[:count]


def _stream_image(answer: Any) -> dict[str, Any]:
    """The attempt's NewImage as the stream delivers it (DynamoDB's format)."""
    session, _, key = answer.attempt.partition("#")
    return {
        "session_id": {"S": session},
        "attempt_key": {"S": key},
        "question_id": {"S": answer.item_id},
        "item_id": {"S": answer.item_id},
        "user_id": {"S": answer.user_id},
        "score": {"N": str(round(answer.score * 100))},
        "is_correct": {"BOOL": answer.score == 1.0},
        "learner_theta": {"N": str(round(answer.theta, 6))},
        "item_b": {"N": str(answer.b)},
        "guess_floor": {"N": str(answer.floor)},
        "ability_category": {"S": answer.category},
        "graded_at": {"S": "2026-11-27T00:00:00Z"},
    }


def measure(sizes: list[int], new: int, seed: int = 11) -> list[dict[str, Any]]:
    from slea.dal import calibration_sums
    from slea.logic.jobs.incremental_calibration import Folding, fold_of

    rng = random.Random(seed)
    store = FakeSums()
    store.questions = _bank(rng)
    rows = []
    history, next_learner = 0, 0
    with (
        mock.patch.object(calibration_sums, "apply", store.apply),
        mock.patch.object(calibration_sums, "touched_items", store.touched_items),
        mock.patch.object(calibration_sums, "write_statistics", store.write_statistics),
        mock.patch.object(calibration_sums, "item_cusums", store.item_cusums),
    ):
        for size in sizes:
            # Grow the history to `size` answers (folded, as the stream would have delivered them).
            grow = _answers(rng, store.questions, size - history, next_learner)
            for answer in grow:
                change = fold_of(None, answer)
                assert change is not None
                store.apply(change, "history")
            history = size
            next_learner = 1 + max((int(a.user_id.rsplit("-", 1)[1]) for a in grow), default=next_learner)
            # The run measured: `new` answers arrive as stream records, in BatchSize batches.
            arriving = _answers(rng, store.questions, new, next_learner)
            next_learner += new // ANSWERS_PER_LEARNER + 1
            store.counts.clear()
            started = time.perf_counter()
            for start in range(0, len(arriving), BATCH_SIZE):
                folding = Folding()
                images = [_stream_image(answer) for answer in arriving[start : start + BATCH_SIZE]]
                folding.prepare([("INSERT", None, image) for image in images])
                for image in images:
                    folding.fold_record("INSERT", None, image)
                folding.recompute()
            seconds = time.perf_counter() - started
            history += new
            counts = store.counts
            rows.append(
                {
                    "history": size,
                    "new_answers": new,
                    "records_read": counts["records_read"],
                    "batch_get_calls": counts["batch_get_calls"],
                    "records_written": counts["records_written"],
                    "transactions": counts["transactions"],
                    "transactions_refused": counts["transactions_refused"],
                    "statistics_written": counts["statistics_written"],
                    "reads_per_new_answer": round(counts["records_read"] / new, 3),
                    "writes_per_new_answer": round(counts["records_written"] / new, 3),
                    "full_scan_reads_per_new_answer": round((size + new) / new, 1),
                    "ms_per_new_answer": round(1000 * seconds / new, 3),
                }
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--new", type=int, default=1_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from slea_local.cloud import prepare_process_environment

    prepare_process_environment()
    import logging

    logging.disable(logging.INFO)  # one log line per batch folded would drown the table
    rows = measure(sorted(args.sizes), args.new)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    columns = list(rows[0])
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(str(row[column]) for column in columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
