"""Fit the offline grader's evidence model on human-graded corpora and write
layers/slea/slea/grading/model.json (a few kilobytes: the layer loads nothing else).

Method:
- Every answer of every corpus's training split goes through the grader's own evidence and
  features (slea.grading.offline.answer_evidence), exactly as Tool 6 computes them; keywords are
  the three most informative words of the reference, as the grading benchmark picks them.
  Answers a fixed rule decides (non-answers, unrelated answers, form flags) are left out: the
  model never decides them.
- Two heads on standardised features, each corpus weighted equally (so the largest corpus does
  not set the model for all): L2-regularised logistic regression for "humans call it correct"
  (score >= 0.8 of the maximum) and ridge least squares for the humans' score.
- Verdict and finalisation cuts, leave-one-corpus-out: for each training corpus, the model is
  fitted on the others and predicts it. The verdict is "correct" from VERDICT_AT on; the cut on
  each side (correct / not correct) is the lowest calibrated confidence at
  which the verdicts finalised on EVERY left-out corpus agree with the humans at least
  TARGET_PRECISION of the time. The final model is then fitted on all training corpora.
- Test splits (and corpora without a training split) are never fitted on; they are only
  reported, by bench/grading_agreement.py.

    python bench/fit_grader.py --corpora DIR [--target 0.92] [--dry-run]

DIR holds <corpus>/<split>.jsonl files (bench/corpora.py builds it; the committed training data
is bench/data/*/train.jsonl and is used when --corpora is not given). Needs numpy (dev only).
"""

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))
from bench.grading_agreement import HUMAN_CORRECT, informative_words, read_jsonl  # noqa: E402

MODEL_PATH = REPO_ROOT / "layers" / "slea" / "slea" / "grading" / "model.json"
TARGET_PRECISION = 0.92  # a margin over the 90% the finalised verdicts must reach on unseen data
VERDICT_L2 = 1.0
SCORE_L2 = 1.0
CUT_GRID = [round(0.5 + 0.005 * step, 3) for step in range(100)]  # 0.5 .. 0.995
MIN_FINALISED_FOR_PRECISION = 5  # fewer finalised answers than this say nothing about precision


@dataclass
class Corpus:
    name: str
    features: np.ndarray  # answers x features, answers no rule decides
    human_scores: np.ndarray  # 0-1
    may_be_failed: np.ndarray  # the model may finalise the answer as incorrect
    ruled_incorrect: int  # answers a rule finalised as incorrect
    ruled_incorrect_right: int  # ... of which the humans agreed
    answers: int


def corpus_features(name: str, rows: list[dict[str, Any]]) -> Corpus:
    from slea.grading.evidence import Material
    from slea.grading.features import FEATURE_NAMES
    from slea.grading.offline import answer_evidence

    vectors, scores, failable = [], [], []
    ruled = ruled_right = 0
    keywords_of: dict[str, list[str]] = {}
    for row in rows:
        reference = row["reference_answer"]
        keywords = keywords_of.setdefault(reference, informative_words(reference))
        found = answer_evidence(Material(row["answer"], reference, keywords, stem=row.get("question", "")))
        human = float(row["score"])
        if found.ruled_incorrect:
            ruled += 1
            ruled_right += human < HUMAN_CORRECT
            continue
        if found.evidence.flags or found.evidence.reference_is_thin:
            continue
        vectors.append([found.features[feature] for feature in FEATURE_NAMES])
        scores.append(human)
        failable.append(found.may_be_failed)
    return Corpus(
        name,
        np.array(vectors, dtype=float),
        np.array(scores, dtype=float),
        np.array(failable, dtype=bool),
        ruled,
        ruled_right,
        len(rows),
    )


# ---------------------------------------------------------------------------- fitting
def corpus_weights(corpora: list[Corpus]) -> np.ndarray:
    """Each corpus counts as much as any other, whatever its size (mean weight 1)."""
    total = sum(len(c.human_scores) for c in corpora)
    parts = [np.full(len(c.human_scores), total / (len(corpora) * len(c.human_scores))) for c in corpora]
    return np.concatenate(parts)


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Weighted L2 logistic regression by Newton's method (intercept not penalised)."""
    design = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ beta, -30, 30)))
        gradient = design.T @ (w * (y - p)) - penalty * beta
        hessian = design.T @ (design * (w * p * (1 - p))[:, None]) + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.max(np.abs(step)) < 1e-8:
            break
    return float(beta[0]), beta[1:]


def fit_ridge(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    design = np.hstack([np.ones((len(x), 1)), x])
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    beta = np.linalg.solve(design.T @ (design * w[:, None]) + np.diag(penalty), design.T @ (w * y))
    return float(beta[0]), beta[1:]


@dataclass
class Fit:
    means: np.ndarray
    scales: np.ndarray
    verdict: tuple[float, np.ndarray]
    score: tuple[float, np.ndarray]

    def _standardised(self, x: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(x), 0.0, (x - self.means) / self.scales)

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = self._standardised(x)
        return 1.0 / (1.0 + np.exp(-np.clip(self.verdict[0] + z @ self.verdict[1], -30, 30)))

    def expected_score(self, x: np.ndarray) -> np.ndarray:
        z = self._standardised(x)
        return np.clip(self.score[0] + z @ self.score[1], 0, 1)


def fit(corpora: list[Corpus]) -> Fit:
    x = np.vstack([c.features for c in corpora])
    scores = np.concatenate([c.human_scores for c in corpora])
    weights = corpus_weights(corpora)
    present = ~np.isnan(x)
    means = np.array([np.average(x[present[:, j], j], weights=weights[present[:, j]]) for j in range(x.shape[1])])
    x = np.where(present, x, means)  # a missing value is the average, as slea.grading.model reads it
    scales = np.sqrt(np.average((x - means) ** 2, axis=0, weights=weights))
    scales[scales < 1e-9] = 1.0
    z = (x - means) / scales
    verdict = fit_logistic(z, (scores >= HUMAN_CORRECT).astype(float), weights, VERDICT_L2)
    score = fit_ridge(z, scores, weights, SCORE_L2)
    return Fit(means, scales, verdict, score)


# ---------------------------------------------------------------------------- cuts
# The probability from which the verdict is "correct". A cut chosen for the best mean held-out
# accuracy (0.39) raised it by a point but cost r 0.08 on SAF, so the verdict stays at even odds.
VERDICT_AT = 0.5


def side_precision(  # noqa: PLR0917 - the arguments of one decision, as offline.grade takes it
    p: np.ndarray,
    humans_correct: np.ndarray,
    cut: float,
    passed: bool,
    may_be_failed: np.ndarray | None = None,
    verdict_at: float = 0.5,
) -> tuple[int, int]:
    """(finalised, agreeing) on one side at a cut of calibrated confidence, as offline.grade decides."""
    if passed:
        chosen = (p >= cut) & (p >= verdict_at)
    else:
        chosen = ((1 - p) >= cut) & (p < verdict_at)
        if may_be_failed is not None:
            chosen &= may_be_failed
    agreeing = humans_correct[chosen] if passed else ~humans_correct[chosen]
    return int(chosen.sum()), int(agreeing.sum())


HeldOut = dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]  # p, humans correct, may be failed


def lowest_safe_cut(held_out: HeldOut, passed: bool, target: float, verdict_at: float = 0.5) -> float:
    for cut in CUT_GRID:
        safe = True
        for p, humans_correct, failable in held_out.values():
            finalised, agreeing = side_precision(p, humans_correct, cut, passed, failable, verdict_at)
            if finalised >= MIN_FINALISED_FOR_PRECISION and agreeing / finalised < target:
                safe = False
                break
        if safe:
            return cut
    return 1.01  # nothing is safe: never finalise this side


def leave_one_corpus_out(corpora: list[Corpus], target: float) -> dict[str, Any]:
    held_out: HeldOut = {}
    for left_out in corpora:
        model = fit([c for c in corpora if c is not left_out])
        humans_correct = left_out.human_scores >= HUMAN_CORRECT
        held_out[left_out.name] = (model.probability(left_out.features), humans_correct, left_out.may_be_failed)
    verdict_at = VERDICT_AT
    correct_at = lowest_safe_cut(held_out, passed=True, target=target, verdict_at=verdict_at)
    incorrect_at = lowest_safe_cut(held_out, passed=False, target=target, verdict_at=verdict_at)
    report = {}
    for corpus in corpora:
        p, humans_correct, failable = held_out[corpus.name]
        n_right, a_right = side_precision(p, humans_correct, correct_at, True, verdict_at=verdict_at)
        n_wrong, a_wrong = side_precision(p, humans_correct, incorrect_at, False, failable, verdict_at)
        finalised = n_right + n_wrong + corpus.ruled_incorrect
        agreeing = a_right + a_wrong + corpus.ruled_incorrect_right
        verdict_right = ((p >= verdict_at) == humans_correct).sum() + corpus.ruled_incorrect_right
        report[corpus.name] = {
            "answers": corpus.answers,
            "modelled": len(p),
            "auc": round(auc(p, humans_correct), 3),
            "brier": round(float(np.mean((p - humans_correct) ** 2)), 3),
            "verdict_accuracy": round(float(verdict_right) / (len(p) + corpus.ruled_incorrect), 3),
            "finalised_share": round(finalised / corpus.answers, 3),
            "finalised_precision": round(agreeing / finalised, 3) if finalised else None,
            "finalised_correct": [n_right, a_right],
            "finalised_incorrect": [n_wrong + corpus.ruled_incorrect, a_wrong + corpus.ruled_incorrect_right],
        }
    return {"verdict_at": verdict_at, "correct_at": correct_at, "incorrect_at": incorrect_at, "held_out": report}


def auc(p: np.ndarray, positive: np.ndarray) -> float:
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    positives = int(positive.sum())
    negatives = len(p) - positives
    if not positives or not negatives:
        return float("nan")
    return float((ranks[positive].sum() - positives * (positives + 1) / 2) / (positives * negatives))


# ---------------------------------------------------------------------------- corpora
def training_files(corpora_dir: Path | None) -> dict[str, list[Path]]:
    if corpora_dir is None:
        return {path.parent.name: [path] for path in sorted((REPO_ROOT / "bench" / "data").glob("*/train.jsonl"))}
    return {path.parent.name: [path] for path in sorted(corpora_dir.glob("*/train.jsonl"))}


def main() -> None:
    from slea.grading.features import FEATURE_NAMES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=None, help="directory of <corpus>/<split>.jsonl")
    parser.add_argument("--target", type=float, default=TARGET_PRECISION)
    parser.add_argument("--dry-run", action="store_true", help="report, do not write model.json")
    arguments = parser.parse_args()
    started = time.perf_counter()
    corpora = []
    for name, paths in training_files(arguments.corpora).items():
        rows = [row for path in paths for row in read_jsonl(path)]
        print(f"features of {len(rows)} answers of {name} ...", file=sys.stderr, flush=True)
        corpora.append(corpus_features(name, rows))
    if len(corpora) < 2:
        raise SystemExit("leave-one-corpus-out needs at least two training corpora")
    validation = leave_one_corpus_out(corpora, arguments.target)
    model = fit(corpora)
    document = {
        "about": "Fitted by bench/fit_grader.py; see that script for the method. Do not edit by hand.",
        "fitted_on": {c.name: len(c.human_scores) for c in corpora},
        "human_correct_at": HUMAN_CORRECT,
        "target_precision": arguments.target,
        "features": list(FEATURE_NAMES),
        "means": [round(float(v), 6) for v in model.means],
        "scales": [round(float(v), 6) for v in model.scales],
        "verdict": {
            "intercept": round(model.verdict[0], 6),
            "coefficients": [round(float(v), 6) for v in model.verdict[1]],
        },
        "score": {"intercept": round(model.score[0], 6), "coefficients": [round(float(v), 6) for v in model.score[1]]},
        "verdict_at": validation["verdict_at"],
        "finalise": {"correct_at": validation["correct_at"], "incorrect_at": validation["incorrect_at"]},
        "leave_one_corpus_out": validation["held_out"],
    }
    shown = ("fitted_on", "verdict_at", "finalise", "leave_one_corpus_out")
    print(json.dumps({k: document[k] for k in shown}, indent=2))
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    if not arguments.dry_run:
        MODEL_PATH.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH.relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
