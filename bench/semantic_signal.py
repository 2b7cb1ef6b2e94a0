"""What the semantic signal (slea.grading.semantic, WordLlama word vectors) costs and what it tells.

Cost: the first similarity in a fresh interpreter (import tokenizers, read the weights, load the
tokenizer), then the time of one similarity against the time of the lexical evidence for the same
answer (`Evidence`: recall, order, on_topic, keywords, flags), both uncached.
Value: the answer's closeness to its question (`relatedness.semantic_closeness`) and the same
closeness relative to everyday small talk (`relatedness.closeness_above_everyday`, a z-score), per
kind of constructed English case (bench/data/grading_cases); for the answers that share no term
with the question (the only ones `is_unrelated` can dismiss), the share of junk dismissed at
several z limits next to the lowest z of a correct answer; and on the human-graded SAF corpus the
AUC of closeness for "the humans gave 80% or more".

    PYTHONPATH=layers/slea:. python bench/semantic_signal.py
"""

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.grading import relatedness, semantic  # noqa: E402 - after the path above
from slea.grading.evidence import Evidence, Material  # noqa: E402

CASES = REPO_ROOT / "bench" / "data" / "grading_cases"
SAF = REPO_ROOT / "bench" / "data" / "saf_communication_networks" / "answers.jsonl"
Z_LIMITS = (0.0, 0.5, 1.0, 1.5, 2.0)
COLD = """
import sys, time
sys.path.insert(0, {layer!r})
from slea.grading import semantic
started = time.perf_counter()
semantic.similarity("RAG retrieves documents for the prompt.", "It looks things up first.")
print(time.perf_counter() - started)
"""


def _rows(name: str) -> list[dict[str, Any]]:
    lines = (CASES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _material(row: dict[str, Any]) -> Material:
    return Material(row["answer"], row["reference_answer"], row.get("keywords", []), row["question"])


def cold_load_seconds(runs: int = 3) -> float:
    layer = str(REPO_ROOT / "layers" / "slea")
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", COLD.format(layer=layer)], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return round(statistics.median(times), 3)


def per_call_ms(rows: list[dict[str, Any]]) -> dict[str, float]:
    started = time.perf_counter()
    for row in rows:
        evidence = Evidence(_material(row))
        _ = (evidence.recall, evidence.order, evidence.on_topic, evidence.keyword_coverage, evidence.flags)
    lexical = (time.perf_counter() - started) * 1000 / len(rows)
    semantic._unit_vector.cache_clear()
    started = time.perf_counter()
    for row in rows:
        semantic.similarity(row["answer"], row["reference_answer"])
        semantic._unit_vector.cache_clear()  # a new answer and a new reference each time: the worst case
    vectors = (time.perf_counter() - started) * 1000 / len(rows)
    return {
        "lexical_evidence_ms": round(lexical, 2),
        "similarity_ms": round(vectors, 2),
        "ratio": round(vectors / lexical, 2),
    }


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


def closeness_by_kind() -> dict[str, Any]:
    rows = [row for row in _rows("english.jsonl") + _rows("unrelated.jsonl") if row["language"] == "en"]
    closeness: dict[str, list[float]] = {}
    above: dict[str, list[float]] = {}
    shares_nothing: dict[str, list[float]] = {}
    for row in rows:
        evidence = Evidence(_material(row))
        value, z = relatedness.semantic_closeness(evidence), relatedness.closeness_above_everyday(evidence)
        if value is None or z is None:
            continue
        closeness.setdefault(row["kind"], []).append(value)
        above.setdefault(row["kind"], []).append(z)
        if not evidence.matched and not evidence.keyword_matches and evidence.on_topic == 0.0:
            shares_nothing.setdefault(row["kind"], []).append(z)
    correct = [z for kind in ("textbook", "paraphrase", "partial") for z in shares_nothing.get(kind, [])]
    junk = shares_nothing.get("junk", [])
    junk_total = len([row for row in rows if row["kind"] == "junk"])
    return {
        "closeness": {kind: _summary(values) for kind, values in closeness.items()},
        "z_above_everyday": {kind: _summary(values) for kind, values in above.items()},
        "sharing_no_term": {
            "correct_answers": len(correct),
            "lowest_correct_z": round(min(correct), 2) if correct else None,
            "lowest_correct_z_any_answer": round(min(above["paraphrase"] + above.get("partial", [])), 2),
            "junk_dismissed_share_by_z_limit": {
                str(limit): round(sum(z < limit for z in junk) / junk_total, 2) for limit in Z_LIMITS
            },
            "chosen_z_limit": relatedness.UNRELATED_MAX_Z,
        },
    }


def _auc(positives: list[float], negatives: list[float]) -> float:
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def saf_auc() -> dict[str, Any]:
    rows = [json.loads(line) for line in SAF.read_text(encoding="utf-8").splitlines() if line.strip()]
    scored = [(row["score"] >= 0.8, semantic.similarity(row["answer"], row["reference_answer"])) for row in rows]
    values = [(correct, value) for correct, value in scored if value is not None]
    dismissed = sum(Evidence(_material(row)).unrelated for row in rows if row["score"] >= 0.8)
    return {
        "answers": len(values),
        "auc_similarity_for_human_correct": round(
            _auc([v for c, v in values if c], [v for c, v in values if not c]), 3
        ),
        "correct_answers_marked_unrelated": dismissed,
    }


def measure() -> dict[str, Any]:
    cases = _rows("english.jsonl")
    return {
        "first_similarity_cold_seconds": cold_load_seconds(),
        "per_answer": per_call_ms(cases),
        "constructed_english": closeness_by_kind(),
        "saf": saf_auc(),
    }


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
