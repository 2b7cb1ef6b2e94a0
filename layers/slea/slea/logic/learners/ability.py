"""What a learner sees of their measured ability: GET /learners/me/ability, the
session summary's `ability` and the MCP tool get_ability all call these. Always the caller's own
ability: the user id comes from the token, never from the request."""

from typing import Any

from slea.contracts.ability import (
    HISTORY_POINTS_MAX,
    AbilityPoint,
    AbilityView,
    LearnerAbility,
    PointEvent,
    SessionAbility,
)
from slea.dal import abilities
from slea.logic.rounds.skips import settle_timed_out
from slea.measurement import scale
from slea.platform.observability import tracer


def _session_ability(stored: dict[str, Any]) -> SessionAbility:
    theta, se = float(stored["theta"]), float(stored["se"])
    return SessionAbility(
        category=str(stored["category"]),
        theta=round(theta, 3),
        se=round(se, 3),
        level=scale.level_of(theta),
        answers=int(stored.get("answers") or 0),
        skipped=int(stored.get("skipped") or 0),
        # Settled and reopened by transactions of their own: never shown below 0.
        pending_review=max(0, int(stored.get("pending_review") or 0)),
    )


def _view(stored: dict[str, Any]) -> AbilityView:
    return AbilityView(
        **_session_ability(stored).model_dump(),
        updated_at=str(stored.get("updated_at", "")),
        answers_to_precision=scale.answers_to_precision(float(stored["se"])),
    )


def _measured(stored: dict[str, Any]) -> bool:
    """An ability item holds an estimate once an answer updated it (mark_seen alone creates one
    with only the items shown)."""
    return stored.get("theta") is not None and stored.get("se") is not None


@tracer.capture_method
def learner_ability(user_id: str, category: str | None = None) -> LearnerAbility:
    """The learner's abilities (one per category, or only `category`) and the newest
    HISTORY_POINTS_MAX points of their history, oldest first. A round left open past its time
    limit is counted first (logic/rounds/skips.py: one Query when there is none), so no level is
    shown that the items left open would lower."""
    settle_timed_out(user_id)
    measured = [item for item in abilities.abilities_of(user_id) if _measured(item)]
    if category is not None:
        measured = [item for item in measured if item.get("category") == category]
    categories = [str(item["category"]) for item in measured]
    points = abilities.history_of(user_id, categories, HISTORY_POINTS_MAX)
    answers = {str(item["category"]): int(item.get("answers") or 0) for item in measured}
    return LearnerAbility(
        abilities=[_view(item) for item in sorted(measured, key=lambda item: str(item["category"]))],
        history=_one_point_per_answer(points, answers),
    )


def _event(point: dict[str, Any]) -> PointEvent:
    """What made a stored history point: an answer, a reviewer's correction (its entry ends
    "#review") or items left unanswered counted as wrong (its key holds "#skipped#")."""
    entry = str(point.get("entry", ""))
    if entry.endswith("#review"):
        return "review"
    return "skipped" if "#skipped#" in entry else "answer"


def _one_point_per_answer(points: list[dict[str, Any]], answers: dict[str, int]) -> list[AbilityPoint]:
    """The history (oldest first), every point as it was stored, with its answer number counted
    back from the ability's `answers` (the newest answer is the last). Only an answer's point
    takes a number of its own: a reviewer's correction or a batch of items left unanswered
    counted as wrong rests on as many answers as the point before it and is a point of its own
    beside it (`event`), so an answer's row never changes once shown (it read -0.5, then -0.9
    when a later re-estimate took its place) and the numbers stay the answers'."""
    numbered: list[AbilityPoint] = []
    counted = dict(answers)
    for point in reversed(points):
        category = str(point["category"])
        number = counted.get(category, 0)
        event = _event(point)
        if event == "answer":
            if number <= 0:
                continue  # older than the first answer counted (it cannot be): nothing to number it with
            counted[category] = number - 1
        numbered.append(
            AbilityPoint(
                at=str(point["at"]),
                category=category,
                theta=round(float(point["theta"]), 3),
                se=round(float(point["se"]), 3),
                answers=max(number, 0),
                event=event,
            )
        )
    return numbered[::-1]


def session_ability(category: str | None, stored: dict[str, Any] | None) -> SessionAbility | None:
    """The learner's current ability in the session's category, from its stored record (None:
    none measured yet, or it could not be read)."""
    if not category:
        return None
    return _session_ability({**stored, "category": category}) if stored and _measured(stored) else None
