"""The pending rule (logic/answering/ability_update.py): a grade waiting for review counts as the
fractional response min(p, score) with the grader's calibrated probability p, so that the estimate
before review stands where the review puts a learner whose answers are right, junk raises nothing,
and the review re-scores exactly what was counted; the ability's pending_review follows."""

import math
import random

import pytest

from slea.dal.attempts import StoredAttempt, stored_attempt
from slea.dal.question_records import stored_question
from slea.logic.answering import ability_update
from slea.measurement import irt
from slea.measurement.learner import POPULATION_PRIOR, Posterior
from tests.unit.logic.ability_records import stored_ability

LABEL_SD = 0.7


def test_a_pending_grade_counts_as_a_fractional_response_p_of_the_likelihood():
    """P^p (1-P)^(1-p): the same likelihood as a partial credit of p, at every ability."""
    counted = ability_update.counted_score(100, True, 0.83)
    assert counted == 83
    for theta in (-2.0, 0.0, 1.5):
        p_correct = irt.p_correct(theta, 0.3, 0.0, LABEL_SD)
        expected = 0.83 * math.log(p_correct) + 0.17 * math.log(1 - p_correct)
        assert irt.log_likelihood(theta, 0.3, 0.0, counted / 100, LABEL_SD) == pytest.approx(expected)


def test_the_pending_rule_is_capped_by_what_an_accept_would_give_and_flags_count_nothing():
    assert ability_update.counted_score(70, True, 0.99) == 70  # an accept gives 70: never more
    assert ability_update.counted_score(100, True, 0.999) == 100
    assert ability_update.counted_score(60, True, None, flagged=True) == 0  # a keyword list, an injection
    assert ability_update.counted_score(10, True, 0.9, flagged=True) == 0  # another item's reference


def _learner(rng, theta, answers, draw):
    """(estimate before review under the pending rule, after review) of one simulated learner."""
    before = after = Posterior.prior(*POPULATION_PRIOR)
    for _ in range(answers):
        b = before.estimate().theta + rng.gauss(0.0, 0.5)
        probability, score, reviewed = draw(rng, irt.p_correct(theta, b))
        counted = ability_update.counted_score(score, True, probability)
        before = before.updated(b, 0.0, counted / 100, LABEL_SD)
        after = after.updated(b, 0.0, reviewed / 100, LABEL_SD)
    return before.estimate().theta, after.estimate().theta


def test_learners_whose_short_answers_are_right_stand_within_0_3_logits_of_their_review():
    """Learners of known ability answer short answers right (p as the offline grader gives a
    reference-text answer, 0.93-0.97); the reviewer accepts them at 100. Before review the
    pending rule stands within 0.3 logits of the review; the rule before (0) is logits away."""
    rng = random.Random(11)
    for theta in (-2.0, -1.0, 0.0, 1.0, 2.0):
        for answers in (4, 8, 16):

            def right(rng, _chance):
                return rng.uniform(0.93, 0.97), 100, 100

            before, after = _learner(rng, theta, answers, right)
            assert abs(before - after) <= 0.3, (theta, answers, before, after)
    prior = Posterior.prior(*POPULATION_PRIOR)
    zero = prior
    for b in (0.0, -0.5, -0.9, -1.2):
        zero = zero.updated(b, 0.0, 0.0, LABEL_SD)
        prior = prior.updated(b, 0.0, 1.0, LABEL_SD)
    assert prior.estimate().theta - zero.estimate().theta > 1.5  # counting 0: the brief's "down 0.9"


def test_right_and_wrong_answers_with_a_calibrated_grader_are_unbiased_where_the_grader_is_sure():
    """Some right, some wrong: p for a right answer near 0.95, for a wrong one near 0.05 (a
    reviewer rejects it: 0). Before and after review agree within 0.3 for every learner."""
    rng = random.Random(5)
    for theta in (-1.5, -0.5, 0.5, 1.5):

        def graded(rng, chance):
            right = rng.random() < chance
            probability = rng.uniform(0.92, 0.98) if right else rng.uniform(0.02, 0.08)
            return probability, (100 if right else 0), (100 if right else 0)

        before, after = _learner(rng, theta, 10, graded)
        assert abs(before - after) <= 0.3, (theta, before, after)


def test_junk_raises_nothing():
    """Junk (the grader's p about 0.05, a score of 0), keyword lists and injections (flagged): the
    estimate before review never rises, from any starting point."""
    for start in (-2.0, 0.0, 2.0):
        posterior = Posterior.prior(start, 0.71)
        for score, probability, flagged in ((0, 0.05, False), (60, None, True), (18, None, True), (0, 0.3, False)):
            counted = ability_update.counted_score(score, True, probability, flagged=flagged)
            moved = posterior.updated(start, 0.0, counted / 100, LABEL_SD).estimate().theta
            assert moved < posterior.estimate().theta
            posterior = posterior.updated(start, 0.0, counted / 100, LABEL_SD)


def test_without_a_probability_the_answer_counts_what_the_estimate_expects_capped_at_its_score(monkeypatch):
    """A reference too thin to judge meaning (no calibrated probability, no flag): the estimate
    does not move to first order; the cap keeps a low score low."""
    monkeypatch.setenv("ABILITIES_TABLE", "abilities")
    prior = Posterior.prior(0.8, 0.71)
    bank_item = stored_question({"question_id": "item", "difficulty": 5})
    for cap, stays in ((100, True), (10, False)):
        evidence = ability_update.Evidence("u", "technical", "item", "short_answer", None, cap / 100, True, True)
        writes = ability_update.writes_for_answer(
            evidence, 5, "2026-11-26T00:00:00.000Z", "item#k", ability=None, bank_item=bank_item, prior=(0.8, 0.71)
        )
        counted = writes.attempt_fields["ability_score"]
        theta = float(writes.learner_items[0]["Update"]["ExpressionAttributeValues"][":theta"]["N"])
        assert counted <= cap
        assert (abs(theta - prior.estimate().theta) < 0.05) is stays
        assert writes.attempt_fields["ability_pending"] is True


def test_a_pending_answer_adds_to_the_abilitys_pending_review_and_a_final_one_does_not(monkeypatch):
    monkeypatch.setenv("ABILITIES_TABLE", "abilities")
    for pending, added in ((True, "1"), (False, None)):
        evidence = ability_update.Evidence("u", "technical", "item", "short_answer", None, 0.95, pending)
        writes = ability_update.writes_for_answer(
            evidence, 5, "t", "item#k", ability=None, bank_item=None, prior=(0.0, 1.0)
        )
        update = writes.learner_items[0]["Update"]
        assert ("pending_review :pending" in update["UpdateExpression"]) is (added is not None)
        assert update["ExpressionAttributeValues"].get(":pending", {}).get("N") == added
        assert ("ability_pending" in writes.attempt_fields) is pending


def _attempt(**extra) -> StoredAttempt:
    """An attempt as stored (`extra` None: without that field), counted at 95 in its ability."""
    item = {
        "attempt_id": "a",
        "attempt_key": "q#k",
        "user_id": "u",
        "score": 100,
        "ability_score": 95,
        "ability_category": "technical",
        "item_b": 0.0,
        "item_b_se": LABEL_SD,
        "guess_floor": 0.0,
        "ability_pending": True,
        **extra,
    }
    return stored_attempt({name: value for name, value in item.items() if value is not None})


def test_a_review_rescores_exactly_what_the_pending_rule_counted_and_settles_the_count(monkeypatch):
    from slea.dal import abilities

    monkeypatch.setenv("ABILITIES_TABLE", "abilities")
    stored = Posterior.prior(0.0, 1.0).updated(0.0, 0.0, 0.95, LABEL_SD)
    monkeypatch.setattr(abilities, "get_ability", lambda user, category: stored_ability(stored, 2))
    attempt = _attempt()
    assert ability_update.pending_change(attempt) == -1
    (update, _point) = ability_update.rescore_items(attempt, 100, "t", pending=-1)
    values = update["Update"]["ExpressionAttributeValues"]
    expected = Posterior.prior(0.0, 1.0).updated(0.0, 0.0, 1.0, LABEL_SD).estimate().theta
    assert float(values[":theta"]["N"]) == pytest.approx(expected, abs=1e-3)  # as if 100 from the start
    assert values[":pending"] == {"N": "-1"}
    # An override to the counted score moves only the count (no read, no version).
    (only,) = ability_update.rescore_items(attempt, 95, "t", pending=-1)
    assert only["Update"]["UpdateExpression"] == "ADD pending_review :pending"
    assert "ConditionExpression" not in only["Update"]
    assert ability_update.rescore_items(attempt, 95, "t") == []


def test_the_count_moves_only_for_attempts_counted_in_it():
    assert ability_update.pending_change(_attempt()) == -1
    assert ability_update.pending_change(_attempt(ability_pending=False)) == 0  # reviewed already
    assert ability_update.pending_change(_attempt(ability_pending=False), reopening=True) == 1  # undone
    old = _attempt(ability_pending=None)  # recorded before the count: never in it
    assert ability_update.pending_change(old) == 0
    assert ability_update.pending_change(old, reopening=True) == 0
