"""The fitted evidence model: what the layer ships (model.json), how it decides, and the fitting
script's method (leave-one-corpus-out cuts) on synthetic data where the answer is known."""

import json
import math

import numpy as np
import pytest

from bench import fit_grader
from slea.grading import model as grading_model
from slea.grading import offline
from slea.grading.evidence import Material
from slea.grading.features import FEATURE_NAMES, features
from slea_local import REPO_ROOT

MODEL_JSON = REPO_ROOT / "layers" / "slea" / "slea" / "grading" / "model.json"


def shipped() -> dict:
    return json.loads(MODEL_JSON.read_text(encoding="utf-8"))


def test_the_shipped_model_matches_the_features_the_grader_computes():
    document = shipped()
    assert tuple(document["features"]) == FEATURE_NAMES
    for head in ("verdict", "score"):
        assert len(document[head]["coefficients"]) == len(FEATURE_NAMES)
    assert len(document["means"]) == len(document["scales"]) == len(FEATURE_NAMES)
    assert all(scale > 0 for scale in document["scales"])


def test_the_shipped_cuts_held_on_every_corpus_left_out():
    document = shipped()
    assert len(document["fitted_on"]) >= 2  # leave-one-corpus-out needs several corpora
    assert document["finalise"]["correct_at"] >= 0.5
    assert document["finalise"]["incorrect_at"] >= 0.5
    for corpus, figures in document["leave_one_corpus_out"].items():
        for side in ("finalised_correct", "finalised_incorrect"):
            finalised, agreeing = figures[side]
            if finalised >= fit_grader.MIN_FINALISED_FOR_PRECISION:  # fewer say nothing about precision
                assert agreeing / finalised >= 0.9, (corpus, side)


def test_the_layer_ships_only_a_few_kilobytes_of_coefficients():
    assert MODEL_JSON.stat().st_size < 16_000


def fixed_model(correct_at=0.7, incorrect_at=0.7, weight=4.0):
    """A model that reads coverage alone: p = sigmoid(weight * (coverage - 0.5))."""
    coefficients = [weight if name == "coverage" else 0.0 for name in FEATURE_NAMES]
    return grading_model.from_document(
        {
            "features": list(FEATURE_NAMES),
            "means": [0.5 if name == "coverage" else 0.0 for name in FEATURE_NAMES],
            "scales": [1.0] * len(FEATURE_NAMES),
            "verdict": {"intercept": 0.0, "coefficients": coefficients},
            "score": {"intercept": 0.5, "coefficients": [0.5 if name == "coverage" else 0.0 for name in FEATURE_NAMES]},
            "finalise": {"correct_at": correct_at, "incorrect_at": incorrect_at},
        }
    )


REFERENCE = "A hash table maps keys to buckets with a hash function, so lookups take constant time on average."
STEM = "How does a hash table find a value quickly?"


def graded(answer, model, monkeypatch):
    monkeypatch.setattr(offline, "fitted_model", lambda: model)
    return offline.grade(Material(answer=answer, reference=REFERENCE, keywords=["hash"], stem=STEM))


def test_the_verdict_follows_the_fitted_probability_and_finalises_at_the_cut(monkeypatch):
    answer = "A hash function maps each key to a bucket, so a lookup takes constant time on average."
    sure = graded(answer, fixed_model(correct_at=0.7), monkeypatch)
    assert sure.probability_correct is not None
    assert sure.probability_correct >= 0.7
    assert (sure.score >= 80, sure.needs_review) == (True, False)
    assert sure.confidence == pytest.approx(sure.probability_correct, abs=1e-3)
    unsure = graded(answer, fixed_model(correct_at=0.99), monkeypatch)
    assert (unsure.score >= 80, unsure.needs_review) == (True, True)


def test_a_verdict_of_incorrect_keeps_its_score_below_the_pass_mark_and_may_be_final(monkeypatch):
    answer = "It sorts the keys first and then searches them."
    result = graded(answer, fixed_model(incorrect_at=0.6, weight=12.0), monkeypatch)
    assert result.probability_correct is not None
    assert result.probability_correct < 0.4
    assert result.score < 80
    assert result.needs_review is False
    assert result.confidence == pytest.approx(1 - result.probability_correct, abs=1e-3)


def test_the_rubric_points_add_up_to_the_score_whatever_the_model_says(monkeypatch):
    for answer in ("A hash function maps each key to a bucket.", "Keys.", "It is quick because of hashing keys."):
        result = graded(answer, fixed_model(), monkeypatch)
        assert result.points.total == result.score
        assert 0 <= result.points.key_concepts <= 40
        assert 0 <= result.points.clarity <= 20


def test_scaled_points_respect_each_maximum():
    for score in (0, 1, 55, 79, 80, 99, 100):
        points = offline.scaled_points(offline.RubricPoints(40, 2, 20), score)
        assert points.total == score
        assert points.key_concepts <= 40
        assert points.correctness <= 40
        assert points.clarity <= 20


def test_features_are_numbers_in_the_fixed_order_and_a_missing_similarity_counts_for_nothing():
    from slea.grading.evidence import Evidence

    values = features(Evidence(Material(answer="hash keys", reference=REFERENCE, stem=STEM)), similarity=None)
    assert tuple(values) == FEATURE_NAMES
    assert math.isnan(values["similarity"])
    assert all(math.isfinite(value) for name, value in values.items() if not name.startswith("similarity"))
    model = grading_model.fitted_model()
    at_average = {**values}
    for name in ("similarity", "similarity_gap"):
        at_average[name] = model.means[model.features.index(name)]
    assert model.probability_correct(values) == pytest.approx(model.probability_correct(at_average))


# ---------------------------------------------------------------------------- the fitting method
def synthetic_corpus(name, rng, size, slope, shift):
    x = rng.normal(size=(size, len(FEATURE_NAMES)))
    probability = 1 / (1 + np.exp(-(slope * x[:, 0] + shift)))
    scores = (rng.random(size) < probability).astype(float)
    return fit_grader.Corpus(name, x, scores, np.ones(size, dtype=bool), 0, 0, answers=size)


def test_the_fit_recovers_a_known_logistic_relation():
    rng = np.random.default_rng(5)
    corpora = [synthetic_corpus(name, rng, 3000, slope=2.0, shift=0.0) for name in ("a", "b")]
    model = fit_grader.fit(corpora)
    assert model.verdict[1][0] == pytest.approx(2.0, abs=0.25)
    assert np.max(np.abs(model.verdict[1][1:])) < 0.2


def test_each_corpus_weighs_the_same_whatever_its_size():
    rng = np.random.default_rng(1)
    corpora = [synthetic_corpus("big", rng, 900, 1.0, 0.0), synthetic_corpus("small", rng, 100, 1.0, 0.0)]
    weights = fit_grader.corpus_weights(corpora)
    assert weights[:900].sum() == pytest.approx(weights[900:].sum())


def test_the_cut_is_the_lowest_at_which_every_left_out_corpus_is_precise_enough():
    rng = np.random.default_rng(2)
    p = rng.random(4000)
    humans_correct = rng.random(4000) < p  # calibrated: precision above a cut t is about (1 + t) / 2
    cut = fit_grader.lowest_safe_cut({"only": (p, humans_correct, None)}, passed=True, target=0.9)
    finalised, agreeing = fit_grader.side_precision(p, humans_correct, cut, passed=True)
    assert agreeing / finalised >= 0.9
    lower = round(cut - 0.05, 3)
    finalised, agreeing = fit_grader.side_precision(p, humans_correct, lower, passed=True)
    assert agreeing / finalised < 0.9  # a clearly lower cut would not have held
    # A corpus where "sure" verdicts are wrong half the time makes that side never final.
    wrong = fit_grader.lowest_safe_cut({"only": (p, rng.random(4000) < 0.5, None)}, passed=True, target=0.9)
    assert wrong > 1.0
