"""bench/elimination.py: the elimination answerer uses what was shown (and only that) the way a
test-wise learner would, and a small run through the product reports its figures (the full run
prints the accuracy over chance and the exposure spread: docs/benchmarks.md)."""

import random

import pytest

from bench import elimination

NN = "A model of layered units whose weighted connections are learned from examples."
SL = "Learning a mapping from inputs to outputs using examples labelled with the right answer."
RL = "Learning which actions to take from rewards received while interacting with an environment."
CL = "Grouping examples by similarity without any labels telling which group is right."


def item(stem, options, kind="multiple_choice"):
    return {
        "type": kind,
        "stem": stem,
        "choices": [f"{label}) {text}" for label, text in zip("ABCD", options, strict=False)],
    }


def answerer():
    return elimination.Answerer(random.Random(0))


def test_it_learns_a_concept_from_an_explanation_and_from_feedback_on_a_wrong_pick():
    known = answerer()
    known.learn_text(f"Neural network: {NN}")
    known.learn_text(f"The option you chose is a different concept. Supervised learning: {SL}")
    known.learn_text("The option you chose is the definition of a different concept: Clustering.", picked=CL)
    assert {name for name, _ in known.facts} == {"Neural network", "Supervised learning", "Clustering"}


def test_it_picks_the_option_it_knows_the_stem_asks_for():
    known = answerer()
    known.learn("Neural network", NN)
    picked, informed = known.answer_choice(item("Which option describes a neural network?", [SL, RL, NN, CL]))
    assert (picked, informed) == ("C", True)


def test_it_eliminates_options_it_knows_are_other_concepts():
    known = answerer()
    known.learn("Neural network", NN)
    known.learn("Supervised learning", SL)
    picks = {known.answer_choice(item("Which option describes clustering?", [NN, SL, RL, CL]))[0] for _ in range(40)}
    assert picks == {"C", "D"}  # never A or B


def test_it_knows_nothing_it_was_not_shown():
    picks = {answerer().answer_choice(item("Which option describes clustering?", [NN, SL, RL, CL])) for _ in range(1)}
    assert all(not informed for _, informed in picks)


def test_a_statement_is_judged_by_the_fact_it_holds():
    known = answerer()
    known.learn("Supervised learning", SL)
    true_false = item(f"Neural network is {SL}", ["True", "False"], "true_false")
    true_false["choices"] = ["True", "False"]
    assert known.answer_statement(true_false) == ("False", True)


@pytest.fixture(scope="module")
def quick():
    return elimination.measure(learners_per_profile=1, sessions=1, spread=3, limit=1)


def test_a_small_run_reports_accuracy_beside_chance_and_the_spread(quick):
    assert quick["sessions"] == 1
    assert quick["items"] == 2 * elimination.ROUND_SIZE
    assert 0 < quick["later_choice_items"] < quick["items"]
    assert 0 < quick["chance"] < 1
    assert quick["points_over_chance"] == pytest.approx(
        100 * (quick["elimination_accuracy"] - quick["chance"]), abs=0.1
    )
    assert quick["same_profile_learners"] == 3
    assert 1 <= quick["distinct_first_items"] <= 3


def test_the_figure_is_the_answerers_chance_over_its_own_random_pick():
    """Each item counts the share of the options the answerer picks among that are the key, not
    the outcome of the one pick it made: the luck of its random picks (about +-6 points a run)
    leaves the figure; what it recognised stays."""
    question = item("Which option describes clustering?", [NN, SL, RL, CL])
    result = {"details": {"correct_answer": CL}}
    assert elimination.expected_right(question, result, ["A", "B", "C", "D"], False, right=True) == 0.25
    assert elimination.expected_right(question, result, ["B", "D"], True, right=False) == 0.5
    assert elimination.expected_right(question, result, ["A", "B"], True, right=False) == 0.0
    statement = item("True or false: clustering needs labels.", ["True", "False"], kind="true_false")
    assert elimination.expected_right(statement, {}, [], False, right=True) == 0.5  # a guess
    assert elimination.expected_right(statement, {}, [], True, right=True) == 1.0  # it knew
    known = answerer()
    known.learn("Neural network", NN)
    known.learn("Supervised learning", SL)
    candidates, informed = known.candidates(question)
    assert (sorted(candidates), informed) == (["C", "D"], True)  # two options eliminated
