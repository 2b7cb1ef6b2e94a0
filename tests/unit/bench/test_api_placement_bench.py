"""bench/api_placement.py: a simulated learner's answers, the figures across learners and their
targets (pure), and one small placement through the local HTTP API after one warm-up round (the
full run, 30 learners after ten, prints the figures beside their targets)."""

import random

import pytest

from bench import api_placement

MC = {"type": "multiple_choice", "choices": ["A) one", "B) two", "C) three", "D) four"]}


@pytest.fixture(scope="module")
def small():
    return api_placement.measure(learners=1, seed=5, warm_rounds=1)


def test_one_placement_through_the_api_ends_with_a_result(small):
    assert small["errors"] == []
    assert small["placed"] == 1
    assert small["bank_at_start"]["items"] > 0  # the warm-up round stocked the bank
    assert small["bank_at_end"]["items"] >= small["bank_at_start"]["items"]
    assert small["items_mismatch"] == 0  # the result counts every question answered
    assert 1 <= small["items_median"] <= 25
    assert small["next_alone_seconds"]["n"] >= small["answer_to_next_seconds"]["n"] > 0
    assert [row["figure"] for row in small["targets"]] == [
        "median items",
        "95% range coverage",
        "within one level",
        "max item exposure",
        "median answer-to-next-question (s)",
    ]


def test_a_learner_who_knows_types_the_key_and_one_who_does_not_guesses_among_the_choices():
    rng = random.Random(1)
    assert api_placement.answer_text(MC, {"correct_key": "C"}, True, rng) == "C"
    guesses = {api_placement.answer_text(MC, {"correct_key": "C"}, False, rng) for _ in range(200)}
    assert guesses == {"A", "B", "C", "D"}  # a guess may be right
    true_false = {"type": "true_false", "choices": []}
    assert {api_placement.answer_text(true_false, {"correct_key": "true"}, False, rng) for _ in range(50)} == {
        "true",
        "false",
    }


def test_a_short_answer_is_the_reference_text_or_i_dont_know():
    short = {"type": "short_answer", "choices": []}
    schema = {"reference_answer": "A cache keeps recent reads.", "correct_keywords": ["cache", "reads"]}
    rng = random.Random(2)
    assert api_placement.answer_text(short, schema, True, rng) == "A cache keeps recent reads."
    assert api_placement.answer_text(short, {"correct_keywords": ["cache", "reads"]}, True, rng) == "cache reads"
    assert api_placement.answer_text(short, schema, False, rng) == "I don't know"


def test_a_misstating_learner_states_a_level_two_bands_off():
    assert api_placement.stated_level(-0.4, random.Random(3), misstates=True) == "advanced"
    assert api_placement.stated_level(0.4, random.Random(3), misstates=True) == "beginner"
    assert api_placement.stated_level(0.4, random.Random(3), misstates=False) in api_placement.SELF_LEVELS


def test_the_percentile_interpolates():
    assert api_placement.percentile([0.1, 0.2, 0.3, 0.4, 0.5], 0.5) == pytest.approx(0.3)
    assert api_placement.percentile([0.0, 1.0], 0.9) == pytest.approx(0.9)
    assert api_placement.percentile([0.7], 0.9) == 0.7


def test_the_figures_are_computed_against_the_true_ability():
    rows = [
        _row(0.0, theta=0.3, low=-0.6, high=1.2, level="intermediate", items=12, shown=["a", "b"]),
        _row(1.6, theta=0.6, low=-0.2, high=1.4, level="advanced", items=16, shown=["a", "c"]),  # out, one level off
        _row(-2.0, theta=-2.1, low=-3.0, high=-1.2, level="novice", items=20, shown=["d"], waits=[4.0]),
        {**_row(0.0), "result": None, "error": {"step": "POST next", "status": 500, "body": {}}},
    ]
    summary = api_placement.summarise(rows)
    assert summary["placed"] == 3
    assert summary["errors"] == [{"learner": 3, "step": "POST next", "status": 500, "body": {}}]
    assert summary["items_median"] == 16
    assert summary["coverage"] == pytest.approx(2 / 3, abs=1e-3)
    assert summary["exact_level"] == pytest.approx(2 / 3, abs=1e-3)  # 1.6 is expert, placed advanced
    assert summary["within_one_level"] == 1.0
    assert summary["rmse"] == pytest.approx(((0.3**2 + 1.0**2 + 0.1**2) / 3) ** 0.5, abs=1e-3)
    assert summary["max_exposure"] == pytest.approx(2 / 3, abs=1e-3)  # item "a": two of three learners
    assert summary["no_question_yet"]["waits"] == 1
    assert summary["no_question_yet"]["total_wait_seconds"] == 4.0
    assert summary["stopped_because"] == {"precise": 3}
    met = {row["figure"]: row["met"] for row in summary["targets"]}
    assert met == {
        "median items": True,
        "95% range coverage": False,
        "within one level": True,
        "max item exposure": False,
        "median answer-to-next-question (s)": True,
    }


def _row(true, *, theta=0.0, low=-1.0, high=1.0, level="intermediate", items=1, shown=("a",), waits=()):
    return {
        "theta": true,
        "items_shown": list(shown),
        "no_question_yet": len(waits),
        "waits": list(waits),
        "next_seconds": [0.2],
        "answer_to_next_seconds": [0.25],
        "error": None,
        "result": {
            "theta": theta,
            "se": 0.5,
            "range_low": low,
            "range_high": high,
            "level": level,
            "items": items,
            "stopped_because": "precise",
            "pending_review": 0,
        },
    }
