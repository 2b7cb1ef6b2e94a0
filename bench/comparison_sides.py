"""Comparison questions answered about one side: for every concept of the seed (data/demo_seed.json)
compared with the next concept of its record in the same language, the generator's comparison
frame ("How does X differ from Y?" with the reference "X: ... By contrast, Y: ..."; Korean "X은(는)
Y와(과) 어떻게 다른가?" / "X: ... 반면 Y: ...") is answered with X's definition alone, Y's alone and
both, and graded by the offline grader. Counts the answers graded correct (80+) of each kind.

    PYTHONPATH=layers/slea:. .venv/bin/python bench/comparison_sides.py
"""

import json
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
SEED = REPO_ROOT / "data" / "demo_seed.json"


def _item(language: str, first: dict[str, str], second: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    a, b = first["name"], second["name"]
    if language == "en":
        stem = f"How does {a} differ from {b}? Explain the key difference."
        reference = f"{a}: {first['definition']} By contrast, {b}: {second['definition']}"
        first_only, second_only = f"{a} is {first['definition']}", f"{b} is {second['definition']}"
        both = f"{first_only} whereas {second_only}"
    else:
        stem = f"{a}은(는) {b}와(과) 어떻게 다른가? 핵심 차이를 설명하시오."
        reference = f"{a}: {first['definition']} 반면 {b}: {second['definition']}"
        first_only, second_only = f"{a}은 {first['definition']}", f"{b}은 {second['definition']}"
        both = f"{first_only} 반면 {second_only}"
    return stem, reference, {"first_only": first_only, "second_only": second_only, "both": both}


def measure() -> dict[str, dict[str, int]]:
    from slea.constants import HIGH_SCORE_THRESHOLD
    from slea.grading.evidence import Material
    from slea.grading.offline import grade

    passed: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for record in json.loads(SEED.read_text(encoding="utf-8"))["keywords"]:
        for language in ("en", "ko"):
            concepts = [c for c in record["concepts"] if c.get("language", "en") == language]
            for first, second in pairwise(concepts):
                stem, reference, answers = _item(language, first, second)
                pairs[language] += 1
                for kind, answer in answers.items():
                    grading = grade(Material(answer=answer, reference=reference, stem=stem))
                    passed[f"{language} {kind}"] += grading.score >= HIGH_SCORE_THRESHOLD
    return {
        language: {"pairs": pairs[language], **{kind: passed[f"{language} {kind}"] for kind in answers}}
        for language in ("en", "ko")
    }


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
