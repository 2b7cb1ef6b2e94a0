"""Attacks on grades learned from reviews and on finalisation, in English and Korean, through the
product's own short-answer grading (`slea.logic.answering.short_answers.grade`, offline provider), on the
constructed cases (bench/data/grading_cases, CC0).

Each question is graded as a bank item whose reviewers accepted two learners' answers that restate
its reference (the exemplars a hostile learner would rely on), beside the reference prints of every
other question of its language (as the category's record holds them, grading/reference_prints.py)
and with the session's other items' references (grading/other_items.py):

- `shuffled`: the reference's words shuffled (5 seeds); `spliced`: half of the reference and half
  of another question's, both ways; `word_salad`: the reference's words amid nonsense words;
- `other_reference`: another question's reference pasted whole (it must never be marked correct);
- `non_answer`: "I don't know" and its Korean and English variants, the question copied back, the
  question with its keyword list (each must be final and incorrect, never queued);
- honest answers (textbook answers and paraphrases), to show the gates keep them: how many are
  still finalised as correct with and without the attacks' defences in the way.

    python bench/grading_attacks.py [--json]
"""

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from bench.grading_agreement import case_item  # noqa: E402

CASES = REPO_ROOT / "bench" / "data" / "grading_cases"
SEEDS = 5
NONSENSE = {
    "english": "purple elephants dance quietly under moonlit bananas while teapots whistle",
    "korean": "보라색 코끼리가 달빛 아래 바나나 위에서 조용히 춤추고 주전자가 휘파람을 분다",
}
NON_ANSWERS = {
    "english": ["I don't know", "I really don't know the answer to this.", "No idea, sorry.", "I forgot."],
    "korean": ["모르겠습니다", "잘 모르겠어요", "이 문제는 잘 모르겠습니다.", "기억이 안 나요"],
}


def rows(language: str) -> list[dict[str, Any]]:
    text = (CASES / f"{language}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def questions(language: str) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for row in rows(language):
        found.setdefault(row["question"], row)
    return list(found.values())


def _shuffled(text: str, seed: int) -> str:
    words = text.split()
    random.Random(seed).shuffle(words)
    return " ".join(words)


def _spliced(first: str, second: str) -> str:
    head, tail = first.split(), second.split()
    return " ".join(head[: len(head) // 2] + tail[len(tail) // 2 :])


def attacks(case: dict[str, Any], others: list[dict[str, Any]], language: str) -> Iterator[tuple[str, str]]:
    reference = case["reference_answer"]
    for seed in range(SEEDS):
        yield "shuffled", _shuffled(reference, seed)
        filler = NONSENSE[language].split()
        words = reference.split() + filler
        random.Random(seed).shuffle(words)
        yield "word_salad", " ".join(words)
    for other in others[:3]:
        yield "spliced", _spliced(reference, other["reference_answer"])
        yield "spliced", _spliced(other["reference_answer"], reference)
        yield "other_reference", other["reference_answer"]
    for answer in NON_ANSWERS[language]:
        yield "non_answer", answer
    yield "non_answer", case["question"]
    yield "non_answer", f"{case['question']} {case['question']}"
    yield "non_answer", f"{case['question']} {', '.join(case['keywords'])}"


def measure() -> dict[str, Any]:
    from slea.grading.answer_groups import Exemplar
    from slea.grading.other_items import Reference
    from slea.grading.reference_prints import sketch
    from slea.grading.short_answer_evidence import grade_with_evidence
    from slea.logic.answering import grades, short_answers

    results: dict[str, Any] = {}
    for language in ("english", "korean"):
        found = questions(language)
        prints = {case["question"]: sketch(case["reference_answer"]) for case in found}
        outcomes: dict[str, list[grades.Grade]] = defaultdict(list)
        for index, case in enumerate(found):
            others = found[index + 1 :] + found[:index]
            exemplars = []
            for number, text in enumerate([case["reference_answer"], case["reference_answer"] + "."]):
                probability = grade_with_evidence(case_item(case, text)).probability_correct
                exemplars.append(Exemplar(f"e{number}", text, True, 100, probability))
            context = {
                "exemplars": exemplars,
                # The session's other items are the next four; the category's prints hold them all.
                "others": [Reference(reference=other["reference_answer"]) for other in others[3:7]],
                "prints": grades.OtherPrints(prints, (case["question"],)),
            }
            for kind, answer in attacks(case, others, language):
                outcomes[kind].append(short_answers.grade(case_item(case, answer), **context))
            for row in rows(language):
                if row["question"] == case["question"] and row["kind"] in ("textbook", "paraphrase"):
                    outcomes[f"honest_{row['kind']}"].append(
                        short_answers.grade(case_item(case, row["answer"]), **context)
                    )
                    outcomes[f"honest_{row['kind']}_alone"].append(short_answers.grade(case_item(case, row["answer"])))
        results[language] = {
            kind: {
                "cases": len(graded),
                "finalised_correct": sum(g.is_correct and not g.needs_review for g in graded),
                "marked_correct": sum(g.is_correct for g in graded),
                "queued": sum(g.needs_review for g in graded),
                "finalised_incorrect": sum(not g.is_correct and not g.needs_review for g in graded),
            }
            for kind, graded in sorted(outcomes.items())
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    results = measure()
    if arguments.json:
        print(json.dumps(results, indent=2))
        return
    print("| language | case | cases | finalised correct | marked correct | queued | finalised incorrect |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for language, kinds in results.items():
        for kind, row in kinds.items():
            print(
                f"| {language} | {kind} | {row['cases']} | {row['finalised_correct']} | {row['marked_correct']} "
                f"| {row['queued']} | {row['finalised_incorrect']} |"
            )


if __name__ == "__main__":
    main()
