"""How far a learner's ability stands, before review, from where the review puts it: the pending
rule (slea.logic.answering.ability_update.counted_score) against the rules it was chosen over
(docs/measurement.md#grades-waiting-for-review, docs/benchmarks.md).

Simulated learners of known ability through the real measurement code (Posterior, irt) and the
real rule, no copy:
- learners: theta ~ N(0, 1), the population's prior N(0, 1); ANSWERS short answers each, at
  items a little off the current estimate (b = estimate + N(0, 0.5), known to the label's 0.7);
- a calibrated grader: whether a reviewer will call the answer correct is drawn from the model
  (P = sigmoid(theta - b)); the grader's probability p is drawn given that verdict from
  Beta(k + 1, k) (correct) or Beta(k, k + 1) (not), which is calibrated (P(correct | p) = p) with
  an AUC near the fitted grader's left-out corpora (k = 2: about 0.7); its score sits on its
  verdict's side of the pass mark and grows with p; every grade waits for review;
- the review: an accept when the reviewer agrees with the grader's verdict (the score stands),
  else an override to 100 or 0;
- "right answers": learners every one of whose answers the reviewer accepts at 100, with p as the
  offline grader gives a reference-text answer through the API (0.95, the mean of 12) and, for a
  grader unsure of them, p from Beta(k + 1, k);
- "junk": answers the grader gives p 0.05 and a score of 0, rejected by the review: the
  estimate before review must not rise above the prior's mean.

Rules compared (the score an answer counts with before review, out of 100): `zero` (the rule
before), `pending` (the product's: min(100 p, score)), `expected` (the expected reviewed score
p * score, a rejection taken as 0), `score` (the provisional score as it stands, unchecked).
Figures: the mean and the largest |before - after| in logits, and the mean signed gap
(before - after).

`--api`: the brief's case through the HTTP API on the local AWS (offline grader, demo seed): new
learners answer four short answers with each item's reference text, their level is read before
a reviewer accepts the grades and after; and learners whose answers are junk. Run with the old
rule too (`zero`) for the comparison.

    python bench/pending_grades.py [--learners 400] [--answers 8] [--seed 7] [--api [--api-learners 6]]
"""

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from slea.measurement import irt  # noqa: E402
from slea.measurement.learner import POPULATION_PRIOR, Posterior  # noqa: E402

ANSWERS = 8
LABEL_SD = 0.7  # a new item's difficulty is known to about this
GRADER_SHARPNESS = 2  # k of the Beta draws: AUC about 0.7
REFERENCE_TEXT_P = 0.95  # the offline grader's p for a reference-text answer (through the API)
JUNK_P = 0.05
PASS = 80

Rule = Callable[[int, float], int]
RULES: dict[str, Rule] = {
    "zero": lambda score, p: 0,
    "pending": lambda score, p: _pending(score, p),  # noqa: PLW0108 - _pending is defined below
    "expected": lambda score, p: round(score * p),
    "score": lambda score, p: score,
}


def _pending(score: int, probability: float) -> int:
    """The product's rule (imported here: the answer path's modules read the environment the
    local AWS sets, so `--api` imports them inside it)."""
    from slea.logic.answering.ability_update import counted_score

    return int(counted_score(score, True, probability) or 0)


def _score(p: float) -> int:
    """A score on the verdict's side of the pass mark, growing with p (80-100 above p 0.5)."""
    return PASS + round(40 * (p - 0.5)) if p >= 0.5 else round(150 * p)


def _reviewed(score: int, correct: bool) -> int:
    return score if (score >= PASS) == correct else (100 if correct else 0)


def _learner(
    rng: random.Random, theta: float, answers: int, draw: Callable[[random.Random, float], tuple[float, int, int]]
) -> dict[str, float]:
    """One learner's estimate before review under each rule, and after review. `draw(rng, P)`:
    (p, the provisional score, the reviewed score) of one answer."""
    prior = Posterior.prior(*POPULATION_PRIOR)
    before = dict.fromkeys(RULES, prior)
    after = prior
    for _ in range(answers):
        # Items are chosen while the grades wait: at the estimate the product has then.
        b = before["pending"].estimate().theta + rng.gauss(0.0, 0.5)
        p, score, reviewed = draw(rng, irt.p_correct(theta, b))
        for name, rule in RULES.items():
            before[name] = before[name].updated(b, 0.0, rule(score, p) / 100, LABEL_SD)
        after = after.updated(b, 0.0, reviewed / 100, LABEL_SD)
    settled = after.estimate().theta
    return {name: posterior.estimate().theta - settled for name, posterior in before.items()} | {
        "after": settled,
        "junk_rise": before["pending"].estimate().theta - POPULATION_PRIOR[0],
    }


def _calibrated(rng: random.Random, chance: float) -> tuple[float, int, int]:
    correct = rng.random() < chance
    k = GRADER_SHARPNESS
    p = rng.betavariate(k + 1, k) if correct else rng.betavariate(k, k + 1)
    score = _score(p)
    return p, score, _reviewed(score, correct)


def _right(p_of: Callable[[random.Random], float]) -> Callable[[random.Random, float], tuple[float, int, int]]:
    def draw(rng: random.Random, _chance: float) -> tuple[float, int, int]:
        p = p_of(rng)
        return p, 100, 100  # the grader's score for the reference text; the reviewer accepts it

    return draw


def _junk(_rng: random.Random, _chance: float) -> tuple[float, int, int]:
    return JUNK_P, 0, 0


def _summary(gaps: list[dict[str, float]]) -> dict[str, Any]:
    return {
        name: {
            "mean_abs_gap": round(statistics.fmean(abs(gap[name]) for gap in gaps), 3),
            "max_abs_gap": round(max(abs(gap[name]) for gap in gaps), 3),
            "mean_gap": round(statistics.fmean(gap[name] for gap in gaps), 3),
        }
        for name in RULES
    }


def simulate(learners: int = 400, answers: int = ANSWERS, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    thetas = [rng.gauss(0.0, 1.0) for _ in range(learners)]
    k = GRADER_SHARPNESS
    worlds = {
        "calibrated_grader": _calibrated,
        "right_answers_reference_text": _right(lambda _rng: REFERENCE_TEXT_P),
        "right_answers_unsure_grader": _right(lambda rng: rng.betavariate(k + 1, k)),
    }
    results: dict[str, Any] = {"learners": learners, "answers": answers, "seed": seed}
    for world, draw in worlds.items():
        results[world] = _summary([_learner(rng, theta, answers, draw) for theta in thetas])
    junk = [_learner(rng, theta, answers, _junk) for theta in thetas]
    results["junk_largest_rise_above_the_prior"] = round(max(gap["junk_rise"] for gap in junk), 3)
    results["target"] = "right answers (reference text): |before - after| <= 0.3; junk: no rise"
    return results


# ---------------------------------------------------------------- through the HTTP API
def through_api(learners: int = 6, rule: str = "pending") -> dict[str, Any]:
    """The brief's case on the local AWS: reference-text answers and junk, the level before and
    after a reviewer accepts. `rule` "zero": the rule before, patched in for the comparison."""
    import uuid

    import boto3

    from slea_local.demo_aws import seeded_local_aws
    from slea_local.executions import LocalStepFunctions
    from slea_local.http import HttpApiAdapter, call

    reviewer = str(uuid.UUID(int=99_999, version=4))
    outcome: dict[str, list[Any]] = {"reference_text": [], "junk": []}
    with seeded_local_aws() as aws:
        # Imported in the local AWS's environment (the modules read it on import).
        from slea.contracts.review import AttemptReviewRequest
        from slea.logic.answering import ability_update
        from slea.logic.review.grades import review_attempt

        if rule == "zero":
            ability_update.counted_score = lambda score, needs_review, *_, **__: 0 if needs_review else score  # type: ignore[assignment]
        questions = boto3.resource("dynamodb").Table(aws.cloud.table_name("QuestionsTable"))
        with LocalStepFunctions(aws.runtime) as step_functions:
            http = HttpApiAdapter(aws.runtime)
            for number in range(2 * learners):
                kind = "reference_text" if number < learners else "junk"
                learner = str(uuid.UUID(int=number + 1, version=4))
                _, _, created = call(http, "POST", "/sessions", None, learner)
                session = created["session_id"]
                request = {"category": "technical", "count": 4, "question_types": ["short_answer"]}
                _, _, started = call(http, "POST", f"/sessions/{session}/rounds", request, learner)
                step_functions.watch(started["execution_arn"])
                _, _, listed = call(http, "GET", f"/sessions/{session}/questions", None, learner)
                graded = []
                for shown in listed["questions"]:
                    key = questions.get_item(Key={"question_id": shown["question_id"]})["Item"]["answer_schema"]
                    text = key.get("reference_answer") if kind == "reference_text" else "asdf qwer zxcv"
                    body = {"question_id": shown["question_id"], "user_answer": text}
                    graded.append(call(http, "POST", f"/sessions/{session}/answers", body, learner)[2])
                (before,) = call(http, "GET", "/learners/me/ability", None, learner)[2]["abilities"]
                with aws.cloud.environment(aws.cloud.environment_of("ApiFunction")):
                    for grade in graded:
                        if grade["needs_review"]:
                            review_attempt(grade["attempt_id"], reviewer, AttemptReviewRequest(action="accept"))
                (after,) = call(http, "GET", "/learners/me/ability", None, learner)[2]["abilities"]
                outcome[kind].append(
                    {
                        "before": before["theta"],
                        "pending_review": before["pending_review"],
                        "after": after["theta"],
                        "level_before": before["level"],
                        "level_after": after["level"],
                        "provisional": sum(bool(grade["needs_review"]) for grade in graded),
                    }
                )
    right = outcome["reference_text"]
    return {
        "rule": rule,
        "learners": learners,
        "reference_text": {
            "provisional_answers": sum(entry["provisional"] for entry in right),
            "mean_before": round(statistics.fmean(entry["before"] for entry in right), 3),
            "mean_after": round(statistics.fmean(entry["after"] for entry in right), 3),
            "max_abs_gap": round(max(abs(entry["before"] - entry["after"]) for entry in right), 3),
            "levels_before": sorted({entry["level_before"] for entry in right}),
            "levels_after": sorted({entry["level_after"] for entry in right}),
        },
        "junk": {
            "largest_theta_before_review": round(max(entry["before"] for entry in outcome["junk"]), 3),
            "largest_theta_after_review": round(max(entry["after"] for entry in outcome["junk"]), 3),
        },
        "prior_mean": POPULATION_PRIOR[0],
    }


def measure(learners: int = 400, answers: int = ANSWERS, seed: int = 7) -> dict[str, Any]:
    return simulate(learners, answers, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=400)
    parser.add_argument("--answers", type=int, default=ANSWERS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--api", action="store_true", help="the reference-text case through the HTTP API too")
    parser.add_argument("--api-learners", type=int, default=6)
    parser.add_argument("--api-rule", choices=("pending", "zero"), default="pending")
    arguments = parser.parse_args()
    results: dict[str, Any] = {}
    if arguments.api:  # first: the local AWS sets the environment the answer path's modules read on import
        results["through_the_api"] = through_api(arguments.api_learners, arguments.api_rule)
    results["simulation"] = simulate(arguments.learners, arguments.answers, arguments.seed)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
