"""The feedback's advice and the next round come from one rule (target.next_round, the
planner's round_label): for a range of estimates and item labels, the advice says harder exactly
when the next round's label is higher than the item's, easier exactly when it is lower, and it
names the label the planner then aims a round at, with its level on the scale."""

import pytest

from slea.feedback.details import PHRASES, difficulty_words, next_steps
from slea.logic.rounds import target
from slea.measurement import scale
from tests.unit.feedback.test_feedback import SOURCE, mc_item

ESTIMATES = [step / 4 for step in range(-12, 13)]  # -3 .. +3 logits
DIRECTION_WORDS = {
    "en": {"harder": "harder", "same": "same level", "easier": "easier"},
    "ko": {"harder": "더 어려운", "same": "같은 난이도", "easier": "더 쉬운"},
}


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("is_correct", [True, False])
@pytest.mark.parametrize("theta", ESTIMATES)
def test_the_advice_and_the_next_round_agree(theta, is_correct, language):
    planned = target.from_ability(theta, 0.5, target.success_rate(), None).label
    for current in range(1, 11):
        advice = target.next_round(theta, current)
        assert advice.label == planned  # the planner's label for a default round
        steps = " ".join(
            next_steps(mc_item(language, "A" if is_correct else "C", is_correct), [SOURCE], False, language, advice)
        )
        said = {direction for direction, word in DIRECTION_WORDS[language].items() if word in steps}
        assert said == {advice.direction}
        assert (advice.direction == "harder") == (planned > current)
        assert (advice.direction == "easier") == (planned < current)
        assert difficulty_words(planned, language) in steps


def test_the_summary_announces_the_same_label():
    from slea.dal.abilities import stored_ability
    from slea.logic.sessions.summary import _next_difficulty

    for theta in ESTIMATES:
        ability = stored_ability({"entry": "ability#technical", "theta": theta, "se": 0.4, "answers": 5})
        assert _next_difficulty("learner", 2, [], ability) == target.next_round(theta, 5).label


@pytest.mark.parametrize("count", [1, 3, 5, 10, 20])
def test_a_default_round_of_any_count_is_aimed_at_the_advised_label(count):
    from slea.contracts.profile import UserProfile
    from slea.contracts.round import PlanRoundInput, RoundRequest
    from slea.dal.abilities import stored_ability
    from slea.logic.rounds.planning import _target

    user = "550e8400-e29b-41d4-a716-446655440000"

    profile = UserProfile.model_validate(
        {
            "user_id": user,
            "self_level": "intermediate",
            "years_experience": 5,
            "job_role": "x",
            "duty": "y",
            "interests": ["LLM"],
            "previous_score": 72,
        }
    )
    for theta in ESTIMATES:
        request = PlanRoundInput(
            request=RoundRequest(user_id=user, session_id="s", category="technical", count=count), profile=profile
        )
        slots = target.slot_types(None, count, target.success_rate(), 0.4)  # as the planner lays them out
        ability = stored_ability({"entry": "ability#technical", "theta": theta, "se": 0.4, "answers": 3})
        planned = _target(request, ability, [], slots).label
        assert planned == target.next_round(theta, 5).label


@pytest.mark.parametrize(
    ("label", "level"),
    [
        (1, "novice"),
        (2, "novice"),
        (3, "beginner"),
        (4, "beginner"),
        (5, "intermediate"),
        (6, "intermediate"),
        (7, "advanced"),
        (8, "advanced"),
        (9, "expert"),
        (10, "expert"),
    ],
)
def test_a_label_reads_on_its_scale(label, level):
    assert scale.label_level(label) == level
    assert difficulty_words(label, "en") == f"{label} of 10: {level}"
    assert difficulty_words(label, "ko") == f"10단계 중 {label}단계: {PHRASES['ko'][f'level.{level}']}"


def test_without_an_estimate_the_advice_follows_the_result():
    right = " ".join(next_steps(mc_item("en", "A", True), [], False, "en"))
    wrong = " ".join(next_steps(mc_item("en"), [], False, "en"))
    assert "harder" in right
    assert "same level" in wrong
