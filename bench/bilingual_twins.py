"""Korean answers graded like their English twins: each case of bench/data/bilingual_twins is one
item written in both languages (question, reference answer, key terms) with the same four answers
in each (a correct answer with the key terms, a correct paraphrase in other words, a partial and a
wrong answer). Each answer is graded by the offline grader as Tool 6 grades it; a pair agrees when
both languages get the same verdict (correct or not) and both are final or both go to review.

Two sets: `dev.jsonl` was looked at while the Korean grading was fixed; `heldout.jsonl` was written
and committed before the Korean grading was examined and was not looked at until the fix was done
(docs/grading.md says how). Report both:

    PYTHONPATH=layers/slea:. .venv/bin/python bench/bilingual_twins.py [--set dev|heldout|all] [--verbose]
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
DATA = REPO_ROOT / "bench" / "data" / "bilingual_twins"
KINDS = ("correct", "paraphrase", "partial", "wrong")


def cases(name: str) -> list[dict[str, Any]]:
    names = ("dev", "heldout") if name == "all" else (name,)
    found: list[dict[str, Any]] = []
    for each in names:
        lines = (DATA / f"{each}.jsonl").read_text(encoding="utf-8").splitlines()
        found.extend(json.loads(line) for line in lines if line.strip())
    return found


def graded(side: dict[str, Any], kind: str) -> Any:
    from slea.grading.evidence import Material
    from slea.grading.offline import grade

    material = Material(
        answer=side["answers"][kind], reference=side["reference"], keywords=side["keywords"], stem=side["question"]
    )
    return grade(material)


def verdict(grading: Any) -> tuple[bool, bool]:
    from slea.constants import HIGH_SCORE_THRESHOLD

    return grading.score >= HIGH_SCORE_THRESHOLD, grading.needs_review


def measure(name: str, verbose: bool = False) -> dict[str, Any]:
    per_kind: dict[str, dict[str, int]] = {kind: {"pairs": 0, "agree": 0} for kind in KINDS}
    passed = {"en": dict.fromkeys(KINDS, 0), "ko": dict.fromkeys(KINDS, 0)}
    gaps: list[int] = []
    for case in cases(name):
        for kind in KINDS:
            english, korean = graded(case["en"], kind), graded(case["ko"], kind)
            agree = verdict(english) == verdict(korean)
            per_kind[kind]["pairs"] += 1
            per_kind[kind]["agree"] += agree
            passed["en"][kind] += verdict(english)[0]
            passed["ko"][kind] += verdict(korean)[0]
            gaps.append(abs(english.score - korean.score))
            if verbose:
                mark = " " if agree else "x"
                print(
                    f"{mark} {case['id']:<20} {kind:<10} en {english.score:3d}{'?' if english.needs_review else '!'}"
                    f" ko {korean.score:3d}{'?' if korean.needs_review else '!'}"
                    f" {english.flags or ''} {korean.flags or ''}"
                )
    pairs = sum(entry["pairs"] for entry in per_kind.values())
    agree = sum(entry["agree"] for entry in per_kind.values())
    return {
        "set": name,
        "pairs": pairs,
        "same_verdict": agree,
        "by_kind": per_kind,
        "passed": passed,
        "mean_score_gap": round(sum(gaps) / len(gaps), 1) if gaps else 0.0,
        "max_score_gap": max(gaps, default=0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="all", choices=("dev", "heldout", "all"))
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    names = ("dev", "heldout") if arguments.set == "all" else (arguments.set,)
    for name in names:
        print(json.dumps(measure(name, arguments.verbose), ensure_ascii=False))


if __name__ == "__main__":
    main()
