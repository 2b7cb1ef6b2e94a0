"""The fitted evidence model: from the features of an answer (features.py) to the probability
that human graders would call it correct, the score they would give, and whether that verdict is
sure enough to stand without a reviewer.

`model.json` is written by bench/fit_grader.py (logistic regression for the verdict, least
squares for the score, on standardised features; several human-graded corpora weighted equally;
finalisation cuts chosen leave-one-corpus-out so that finalised verdicts agreed with the humans
at least 90% of the time on every corpus the model had not seen). Evaluating it is a dot product,
so the layer needs no numerical library.
"""

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class LinearHead:
    intercept: float
    coefficients: tuple[float, ...]

    def value(self, standardised: list[float]) -> float:
        return self.intercept + sum(c * x for c, x in zip(self.coefficients, standardised, strict=True))


@dataclass(frozen=True)
class FittedModel:
    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    verdict: LinearHead  # log-odds that humans call the answer correct
    score: LinearHead  # the humans' score as a share of the maximum
    verdict_at: float  # the probability of "correct" from which the verdict is "correct"
    finalise_correct_at: float  # least probability of "correct" that is final
    finalise_incorrect_at: float  # least probability of "not correct" that is final

    def _standardised(self, values: dict[str, float]) -> list[float]:
        named = zip(self.features, self.means, self.scales, strict=True)
        # A missing value (NaN) reads as the training average: it moves the prediction neither way.
        return [0.0 if math.isnan(values[name]) else (values[name] - mean) / scale for name, mean, scale in named]

    def probability_correct(self, values: dict[str, float]) -> float:
        log_odds = self.verdict.value(self._standardised(values))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, log_odds))))

    def expected_score(self, values: dict[str, float]) -> float:
        return max(0.0, min(1.0, self.score.value(self._standardised(values))))

    def passes(self, probability: float) -> bool:
        return probability >= self.verdict_at

    def is_final(self, passed: bool, confidence: float) -> bool:
        """Whether a verdict held with this calibrated confidence stands without a reviewer."""
        return confidence >= (self.finalise_correct_at if passed else self.finalise_incorrect_at)


def _head(document: dict[str, Any]) -> LinearHead:
    return LinearHead(float(document["intercept"]), tuple(float(c) for c in document["coefficients"]))


def from_document(document: dict[str, Any]) -> FittedModel:
    return FittedModel(
        features=tuple(document["features"]),
        means=tuple(float(m) for m in document["means"]),
        scales=tuple(float(s) for s in document["scales"]),
        verdict=_head(document["verdict"]),
        score=_head(document["score"]),
        verdict_at=float(document.get("verdict_at", 0.5)),
        finalise_correct_at=float(document["finalise"]["correct_at"]),
        finalise_incorrect_at=float(document["finalise"]["incorrect_at"]),
    )


@cache
def fitted_model() -> FittedModel:
    """Loaded on first use (a few kilobytes of JSON shipped in the layer)."""
    document = json.loads(resources.files("slea.grading").joinpath("model.json").read_text(encoding="utf-8"))
    return from_document(document)
