"""A provisional grade counts by the pending rule until reviewed (its calibrated probability of
being judged correct, capped at its score; 0 when flagged), and the review re-scores from what was
counted (logic/answering/ability_update.py); which rounds are over at the summary (logic/rounds/skips.py)."""

import datetime
from decimal import Decimal

from slea.dal.attempts import stored_attempt
from slea.dal.question_records import stored_question
from slea.dal.rounds import stored_round
from slea.logic.answering import ability_update
from slea.logic.rounds import skips
from tests.unit.logic.ability_records import stored_ability


def test_a_provisional_grade_counts_its_probability_capped_at_its_score_and_a_final_one_its_score():
    assert ability_update.counted_score(100, needs_review=True, probability=0.95) == 95
    assert ability_update.counted_score(60, needs_review=True, probability=0.95) == 60  # never above the accept
    assert ability_update.counted_score(0, needs_review=True, probability=0.04) == 0  # junk
    assert ability_update.counted_score(60, needs_review=True, probability=0.95, flagged=True) == 0
    assert ability_update.counted_score(60, needs_review=True) is None  # no probability: the expected response
    assert ability_update.counted_score(60, needs_review=False) == 60
    assert ability_update.counted_score(60, needs_review=False, probability=0.1) == 60


def test_the_counted_score_is_the_attempts_ability_score_else_its_score():
    assert ability_update.counted_of(stored_attempt({"score": 60, "ability_score": 0})) == 0
    assert ability_update.counted_of(stored_attempt({"score": 60})) == 60  # older attempts counted their score


def _stored_ability(monkeypatch, stored):
    """The learner's ability in the category as slea.dal.abilities reads it: `stored` (a Posterior)
    after one answer."""
    from slea.dal import abilities

    monkeypatch.setenv("ABILITIES_TABLE", "abilities")
    monkeypatch.setattr(abilities, "get_ability", lambda user, category: stored_ability(stored, 3))


# An attempt counted with ability score 0 (a provisional grade), on an item of b 0.
COUNTED_AT_ZERO = {
    "attempt_id": "a",
    "attempt_key": "q#k",
    "user_id": "u",
    "ability_score": 0,
    "ability_category": "technical",
    "item_b": 0.0,
}


def test_a_review_that_confirms_a_provisional_grade_rescores_from_zero(monkeypatch):
    from slea.measurement.learner import Posterior

    stored = Posterior.prior(0.0, 1.2).updated(0.0, 0.0, 0.0)
    _stored_ability(monkeypatch, stored)
    attempt = {**COUNTED_AT_ZERO, "score": 60, "guess_floor": 0.0}
    items = ability_update.rescore_items(stored_attempt(attempt), 60, "2026-11-26T00:00:00.000Z")
    assert items, "an accept of a provisional grade re-scores the ability"
    theta = float(items[0]["Update"]["ExpressionAttributeValues"][":theta"]["N"])
    expected = stored.removed(0.0, 0.0, 0.0).updated(0.0, 0.0, 0.6).estimate().theta
    assert abs(theta - expected) < 1e-3
    assert ability_update.rescore_items(stored_attempt({**attempt, "ability_score": 60}), 60, "t") == []  # unchanged


def _at(hours_ago: float) -> str:
    moment = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=hours_ago)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def test_at_the_summary_a_round_is_over_once_a_later_one_started_or_past_its_time_limit():
    stored = [stored_question({"question_id": "a", "round": 1})]
    over = skips.rounds_over_at_summary(stored, {1: stored_round({"started_at": _at(0.5)})})
    assert not over(1)  # a summary mid-round leaves the round open
    started = {1: stored_round({"started_at": _at(0.5)}), 2: stored_round({"started_at": _at(0.1)})}
    over = skips.rounds_over_at_summary(stored, started)
    assert over(1)
    assert not over(2)
    assert skips.rounds_over_at_summary(stored, {1: stored_round({"started_at": _at(2.5)})})(1)


def test_open_items_are_the_shown_unanswered_ones_of_rounds_that_are_over():
    stored = [
        stored_question(item)
        for item in (
            {"question_id": "a", "round": 1, "category": "technical"},
            {"question_id": "b", "round": 1, "category": "technical", "answered_at": "t"},
            {"question_id": "c", "round": 1, "category": "technical", "status": "retired"},
            {"question_id": "d", "round": 2, "category": "technical"},
        )
    ]
    assert [q.question_id for q in skips.open_items(stored, lambda number: number < 2)] == ["a"]


def test_an_answer_counts_with_its_items_difficulty_uncertainty_and_keeps_it(monkeypatch):
    """The posterior averages over the item's b as the bank knows it (SE 1/sqrt(precision)), and the
    attempt keeps that SE so a review can take out exactly what was counted."""
    monkeypatch.setenv("ABILITIES_TABLE", "abilities")
    from slea.measurement.learner import Posterior

    evidence = ability_update.Evidence("u", "technical", "item", "multiple_choice", 4, 1.0)
    bank_item = stored_question(
        {"question_id": "item", "difficulty": 6, "difficulty_b": Decimal("0.25"), "difficulty_precision": Decimal(4)}
    )
    writes = ability_update.writes_for_answer(
        evidence, 6, "2026-11-26T00:00:00.000Z", "item#k", ability=None, bank_item=bank_item, prior=(0.0, 0.71)
    )
    assert writes.attempt_fields["item_b_se"] == 0.5
    theta = float(writes.learner_items[0]["Update"]["ExpressionAttributeValues"][":theta"]["N"])
    prior = Posterior.prior(0.0, 0.71)
    assert abs(theta - prior.updated(0.25, 0.25, 1.0, 0.5).estimate().theta) < 1e-3
    assert abs(theta - prior.updated(0.25, 0.25, 1.0).estimate().theta) > 1e-3  # not as if b were known


def test_a_review_rescores_with_the_uncertainty_the_answer_was_counted_with(monkeypatch):
    from slea.measurement.learner import Posterior

    stored = Posterior.prior(0.0, 0.71).updated(0.0, 0.25, 0.0, 0.7)
    _stored_ability(monkeypatch, stored)
    attempt = stored_attempt({**COUNTED_AT_ZERO, "score": 100, "item_b_se": 0.7, "guess_floor": 0.25})
    items = ability_update.rescore_items(attempt, 100, "2026-11-26T00:00:00.000Z")
    theta = float(items[0]["Update"]["ExpressionAttributeValues"][":theta"]["N"])
    expected = stored.removed(0.0, 0.25, 0.0, 0.7).updated(0.0, 0.25, 1.0, 0.7).estimate().theta
    assert abs(theta - expected) < 1e-3
    # the prior plus one right answer on an uncertain item: the wrong one was taken out entirely
    assert abs(theta - Posterior.prior(0.0, 0.71).updated(0.0, 0.25, 1.0, 0.7).estimate().theta) < 1e-3
