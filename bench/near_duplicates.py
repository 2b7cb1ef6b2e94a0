"""Tool 4's batch: seconds for a batch of N distinct generated-looking questions checked against
the largest allowed `existing_stems`, at N=100 and at the maximum batch size, then at the maximum
with every stem as long as the contract allows (offline semantic score, no model call). Then the
near-duplicate check alone on the same 100 questions, the old difflib loop against the rapidfuzz
`StemIndex`, timed in this process. Target: the worst case a few seconds (the function's 120 s
timeout less the model call's worst case leaves 22 s, at a third of a vCPU); 0 flagged.

    python bench/near_duplicates.py [--compare-existing 0]
"""

import argparse
import contextlib
import difflib
import io
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")

from slea.authoring.question_quality import (  # noqa: E402
    NEAR_DUPLICATE_MIN_WORDS,
    NEAR_DUPLICATE_RATIO,
    StemIndex,
    normalised,
    prepared_stem,
)
from slea.constants import QUESTION_STEM_MAX, VALIDATION_BATCH_MAX, VALIDATION_EXISTING_STEMS_MAX  # noqa: E402
from slea_local.cloud import prepare_process_environment  # noqa: E402

EXISTING = VALIDATION_EXISTING_STEMS_MAX  # the bank each batch is checked against: the most allowed
FRAMES = [
    "Which statement best describes how {0} {1} affects {2} {3} when {4} {5} is {6}?",
    "In a {0} {1} pipeline, what is the main reason to use {2} {3} instead of {4} {5} for {6}?",
    "A team sees {0} {1} degrade after adding {2} {3}; which change to {4} {5} addresses {6} first?",
    "Explain the trade-off between {0} {1} and {2} {3} in {4} {5} systems that require {6}.",
]
VOCABULARY = """
retrieval ranking embedding vector index chunk context window prompt token latency cache agent planner
tool memory router evaluator guardrail policy schema gateway queue stream batch replica shard partition
lease checkpoint gradient adapter quantised distilled sparse dense hybrid recall precision drift bias
audit lineage consent budget forecast churn margin pricing contract onboarding feedback rubric cohort
sampling tracing rollback canary throttle quota tenant region
"""


def distinct_stems(count: int, seed: int) -> list[str]:
    """Generated-looking stems: seven random words in a frame differ too much to be near-duplicates
    (the runs count what Tool 4 flags, to show it)."""
    rng, words = random.Random(seed), VOCABULARY.split()
    return [rng.choice(FRAMES).format(*rng.sample(words, 7)) for _ in range(count)]


def longest_stems(count: int, seed: int) -> list[str]:
    """The worst case the contract allows: every stem QUESTION_STEM_MAX characters, all of one
    length, so that no pair is ruled out by length alone."""
    rng = random.Random(seed)
    return [" ".join(distinct_stems(40, rng.getrandbits(32)))[:QUESTION_STEM_MAX] for _ in range(count)]


def _batch_event(stems: list[str], existing: list[str]) -> dict[str, Any]:
    return {
        "stem": stems,
        "question_type": ["multiple_choice"] * len(stems),
        "choices": [["A) Retrieval", "B) Ranking", "C) Caching", "D) Routing"]] * len(stems),
        "correct_answer": ["A"] * len(stems),
        "batch": True,
        "existing_stems": existing,
    }


def tool4_batch(stems: list[str], existing: list[str]) -> dict[str, Any]:
    """Seconds for Tool 4's handler logic (parse, rules, offline semantic score) on one batch."""
    from slea.contracts.common import parse_input
    from slea.contracts.validation import ValidateQuestionBatchInput
    from slea.logic.generation.validation import validate_question_batch

    prepared_stem.cache_clear()  # as in a fresh invocation: no stem normalised in advance
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # the EMF metrics lines, not our report
        results = validate_question_batch(parse_input(ValidateQuestionBatchInput, _batch_event(stems, existing)))
    seconds = time.perf_counter() - started
    flagged = sum(any(issue.startswith("Near-duplicate") for issue in r.issues) for r in results)
    return {"questions": len(stems), "existing_stems": len(existing), "seconds": round(seconds, 3), "flagged": flagged}


def _difflib_near_duplicate_of(stem: str, others: list[str]) -> int | None:
    """The check as it was before rapidfuzz: every stem normalised again, difflib per pair."""
    mine = normalised(stem)
    for index, other in enumerate(map(normalised, others)):
        if not other:
            continue
        if mine == other:
            return index
        long_enough = min(len(mine.split()), len(other.split())) >= NEAR_DUPLICATE_MIN_WORDS
        if long_enough and difflib.SequenceMatcher(None, mine, other).ratio() >= NEAR_DUPLICATE_RATIO:
            return index
    return None


def _difflib_batch(stems: list[str], existing: list[str]) -> int:
    flagged = 0
    for position, stem in enumerate(stems):
        earlier = _difflib_near_duplicate_of(stem, stems[:position])
        flagged += earlier is not None or _difflib_near_duplicate_of(stem, existing) is not None
    return flagged


def _rapidfuzz_batch(stems: list[str], existing: list[str]) -> int:
    bank, earlier, flagged = StemIndex(existing), StemIndex(), 0
    for stem in stems:
        flagged += earlier.first_match(stem) is not None or bank.first_match(stem) is not None
        earlier.add(stem)
    return flagged


def _timed(check: Callable[[list[str], list[str]], int], stems: list[str], existing: list[str]) -> tuple[float, int]:
    prepared_stem.cache_clear()
    started = time.perf_counter()
    flagged = check(stems, existing)
    return time.perf_counter() - started, flagged


def compare_with_difflib(stems: list[str], existing: list[str]) -> dict[str, Any]:
    """The near-duplicate check alone, old and new, on the same stems."""
    new_seconds, new_flagged = _timed(_rapidfuzz_batch, stems, existing)
    old_seconds, old_flagged = _timed(_difflib_batch, stems, existing)
    return {
        "questions": len(stems),
        "existing_stems": len(existing),
        "difflib_seconds": round(old_seconds, 3),
        "rapidfuzz_seconds": round(new_seconds, 4),
        "difflib_to_rapidfuzz_ratio": round(old_seconds / new_seconds, 1),
        "flagged": {"difflib": old_flagged, "rapidfuzz": new_flagged},
    }


def measure(compare_existing: int = 0) -> dict[str, Any]:
    os.environ["LLM_PROVIDER"] = "offline"  # time our code, not a model call
    prepare_process_environment()
    tool4_batch(distinct_stems(1, seed=0), [])  # imports done, as in a warm container
    bank, longest_bank = distinct_stems(EXISTING, seed=1), longest_stems(EXISTING, seed=5)
    small, largest = distinct_stems(100, seed=2), distinct_stems(VALIDATION_BATCH_MAX, seed=3)
    small_run, largest_run = tool4_batch(small, bank), tool4_batch(largest, bank)
    worst_run = tool4_batch(longest_stems(VALIDATION_BATCH_MAX, seed=4), longest_bank)
    return {
        "tool4_batch_100": small_run,
        f"tool4_batch_{VALIDATION_BATCH_MAX}": largest_run,
        "seconds_ratio_max_to_100": round(largest_run["seconds"] / small_run["seconds"], 1),
        f"tool4_batch_{VALIDATION_BATCH_MAX}_every_stem_{QUESTION_STEM_MAX}_chars": worst_run,
        # difflib against all the existing stems would take minutes: by default the batch alone
        "near_duplicate_check_100_difflib_vs_rapidfuzz": compare_with_difflib(small, bank[:compare_existing]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare-existing", type=int, default=0, help="existing stems in the difflib comparison")
    args = parser.parse_args()
    print(json.dumps(measure(args.compare_existing), indent=2))


if __name__ == "__main__":
    main()
