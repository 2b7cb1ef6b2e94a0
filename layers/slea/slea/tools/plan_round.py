"""Mode 1, before generation: validate the execution input and decide the round's difficulty.

The adaptive rule (documented in the README), in one function:
- round 1: beginner 3, intermediate 5, advanced 8; +1 with 5+ years of experience and +1 more
  with 10+; +1 if the previous test score was 85 or more, -1 if it was below 50 (0 = no test yet);
- round 2: from the round-1 attempts of the same session: the mean difficulty of the questions
  answered, +2 if 80%+ were correct, +1 if 60%+, 0 if 40%+, -1 if 20%+, else -2; with no round-1
  attempts, as round 1;
- always clamped to 1-10; an explicit `difficulty` in the input overrides the rule.
"""

from typing import Any

from slea.constants import DIFFICULTY_MAX, DIFFICULTY_MIN
from slea.contracts.errors import utc_now
from slea.contracts.profile import UserProfile
from slea.contracts.round import PlanRoundInput, RoundPlan, RoundProgress
from slea.dal import attempts, questions
from slea.errors import DataAccessError
from slea.observability import logger, metrics, tracer

LEVEL_BASE = {"beginner": 3, "intermediate": 5, "advanced": 8}
# (minimum share of correct answers, step) from the highest band down
ROUND_TWO_STEPS = ((0.8, 2), (0.6, 1), (0.4, 0), (0.2, -1), (0.0, -2))


def _clamp(value: float) -> int:
    return max(DIFFICULTY_MIN, min(DIFFICULTY_MAX, round(value)))


def decide_difficulty(profile: UserProfile, round_number: int, round_one: list[dict[str, Any]]) -> tuple[int, str]:
    """The round's difficulty and a one-line reason for it."""
    if round_number == 2 and round_one:
        correct = sum(bool(attempt.get("is_correct")) for attempt in round_one) / len(round_one)
        answered = [float(a["difficulty"]) for a in round_one if isinstance(a.get("difficulty"), (int, float))]
        base = sum(answered) / len(answered) if answered else _round_one(profile)[0]
        step = next(step for floor, step in ROUND_TWO_STEPS if correct >= floor)
        return _clamp(base + step), f"round 1: {correct:.0%} correct at difficulty {base:.1f}, step {step:+d}"
    return _round_one(profile)


def _round_one(profile: UserProfile) -> tuple[int, str]:
    base = LEVEL_BASE[profile.self_level]
    experience = (profile.years_experience >= 5) + (profile.years_experience >= 10)
    score = 0
    if profile.previous_score >= 85:
        score = 1
    elif 0 < profile.previous_score < 50:
        score = -1
    reason = f"{profile.self_level} {base}, experience {experience:+d}, previous score {score:+d}"
    return _clamp(base + experience + score), reason


def _earlier_stems(session_id: str, category: str) -> list[str]:
    """Stems the session already has, so a new round never repeats a question, and the stems
    reviewers retired in this category, so no round brings one back."""
    try:
        earlier = [question["stem"] for question in questions.session_questions(session_id)]
    except DataAccessError as error:
        logger.warning("earlier questions unavailable, not excluding them", extra={"reason": str(error)})
        earlier = []
    try:
        retired = questions.retired_stems(category)
    except DataAccessError as error:
        logger.warning("retired questions unavailable, not excluding them", extra={"reason": str(error)})
        retired = []
    return [*earlier, *(stem for stem in retired if stem and stem not in earlier)]


def _round_one_attempts(session_id: str) -> list[dict[str, Any]]:
    try:
        return [attempt for attempt in attempts.session_attempts(session_id) if attempt.get("round") == 1]
    except DataAccessError as error:
        logger.warning("round-1 attempts unavailable, planning as round 1", extra={"reason": str(error)})
        return []


@tracer.capture_method
def plan_round(request: PlanRoundInput) -> RoundPlan:
    wanted = request.request
    if wanted.difficulty is not None:
        difficulty, reason = wanted.difficulty, "set in the request"
    else:
        history = _round_one_attempts(wanted.session_id) if wanted.round == 2 else []
        difficulty, reason = decide_difficulty(request.profile, wanted.round, history)
    metrics.add_metric(name="RoundDifficulty", unit="Count", value=difficulty)
    return RoundPlan(
        session_id=wanted.session_id,
        round=wanted.round,
        round_id=f"{wanted.session_id}_{wanted.round}_{utc_now()}",
        category=wanted.category,
        count=wanted.count,
        difficulty=difficulty,
        difficulty_reason=reason,
        interests=request.profile.interests or [wanted.category],
        question_types=wanted.question_types,
        progress=RoundProgress(
            attempt=0, missing=wanted.count, used_stems=_earlier_stems(wanted.session_id, wanted.category)
        ),
    )
