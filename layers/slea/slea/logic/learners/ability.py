"""What a learner sees of their measured ability: GET /learners/me/ability, the
session summary's `ability` and the MCP tool get_ability all call these. Always the caller's own
ability: the user id comes from the token, never from the request."""

from dataclasses import replace

from slea.contracts.ability import (
    HISTORY_POINTS_MAX,
    AbilityPoint,
    AbilityView,
    LearnerAbility,
    SessionAbility,
)
from slea.dal import abilities
from slea.logic.rounds.skips import settle_timed_out
from slea.measurement import scale
from slea.platform.observability import tracer


def _session_ability(estimate: abilities.AbilityEstimate) -> SessionAbility:
    return SessionAbility(
        category=estimate.category,
        theta=round(estimate.theta, 3),
        se=round(estimate.se, 3),
        level=scale.level_of(estimate.theta),
        answers=estimate.answers,
        skipped=estimate.skipped,
        # Settled and reopened by transactions of their own: never shown below 0.
        pending_review=max(0, estimate.pending_review),
    )


def _view(estimate: abilities.AbilityEstimate) -> AbilityView:
    return AbilityView(
        **_session_ability(estimate).model_dump(),
        updated_at=estimate.updated_at,
        answers_to_precision=scale.answers_to_precision(estimate.se),
    )


@tracer.capture_method
def learner_ability(user_id: str, category: str | None = None) -> LearnerAbility:
    """The learner's abilities (one per category, or only `category`) and the newest
    HISTORY_POINTS_MAX points of their history, oldest first. A round left open past its time
    limit is counted first (logic/rounds/skips.py: one Query when there is none), so no level is
    shown that the items left open would lower."""
    settle_timed_out(user_id)
    measured = abilities.abilities_of(user_id)  # only the categories with an estimate
    if category is not None:
        measured = [estimate for estimate in measured if estimate.category == category]
    categories = [estimate.category for estimate in measured]
    points = abilities.history_of(user_id, categories, HISTORY_POINTS_MAX)
    answers = {estimate.category: estimate.answers for estimate in measured}
    return LearnerAbility(
        abilities=[_view(estimate) for estimate in sorted(measured, key=lambda estimate: estimate.category)],
        history=_one_point_per_answer(points, answers),
    )


def _one_point_per_answer(points: list[abilities.HistoryPoint], answers: dict[str, int]) -> list[AbilityPoint]:
    """The history (oldest first), every point as it was stored, with its answer number counted
    back from the ability's `answers` (the newest answer is the last). Only an answer's point
    takes a number of its own: a reviewer's correction or a batch of items left unanswered
    counted as wrong rests on as many answers as the point before it and is a point of its own
    beside it (`event`), so an answer's row never changes once shown (it read -0.5, then -0.9
    when a later re-estimate took its place) and the numbers stay the answers'."""
    numbered: list[AbilityPoint] = []
    counted = dict(answers)
    for point in reversed(points):
        category = point.category
        number = counted.get(category, 0)
        if point.event == "answer":
            if number <= 0:
                continue  # older than the first answer counted (it cannot be): nothing to number it with
            counted[category] = number - 1
        numbered.append(
            AbilityPoint(
                at=point.at,
                category=category,
                theta=round(point.theta, 3),
                se=round(point.se, 3),
                answers=max(number, 0),
                event=point.event,
            )
        )
    return numbered[::-1]


def session_ability(category: str | None, stored: abilities.StoredAbility | None) -> SessionAbility | None:
    """The learner's current ability in the session's category, from its stored record (None:
    none measured yet, or it could not be read)."""
    if not category or stored is None or stored.estimate is None:
        return None
    return _session_ability(replace(stored.estimate, category=category))
