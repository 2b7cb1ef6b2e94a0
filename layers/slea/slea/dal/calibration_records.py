"""What calibration reads of stored items, as frozen records built in one function each, so the
calibration jobs (slea.logic.jobs.calibration, .incremental_calibration) and the reviewers' item
analysis never read an attribute name:

- CalibrationAnswer: a graded answer's calibration fields (attempt_export.CALIBRATION_FIELDS), as
  the refit holds millions of them (slots, values kept as read: no copy per answer);
- StreamedAnswer: the same plus the estimates the answer was expected from, as the stream fold
  reads an attempt record's image;
- ItemCalibration: a bank item's `calibration` map (the statistics both jobs write);
- CalibrationItem: what the jobs and the item analysis read of a bank item.

A field an item lacks is None, False, "" or empty: the rules above read an absent field and a
null one alike.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def _as_text(value: Any) -> str | None:
    return value if value is None or value.__class__ is str else str(value)


def _text(item: Mapping[str, Any], name: str) -> str | None:
    return _as_text(item.get(name))


def _as_number(value: Any) -> float | None:
    """A number as stored (an int stays the int read: no new object per answer), else None."""
    kind = value.__class__
    return value if kind is int or kind is float or (isinstance(value, int | float) and kind is not bool) else None


@dataclass(frozen=True, slots=True)
class CalibrationAnswer:
    """A graded answer as calibration counts it."""

    item_id: str | None = None  # the bank item a drawn copy was drawn from
    question_id: str | None = None
    user_id: str | None = None
    score: float | None = None  # the grade, 0-100 (None: none recorded, `is_correct` counts)
    is_correct: bool = False
    guess_floor: float | None = None  # the floor it was graded with (None: not recorded)
    question_type: str | None = None
    graded_at: str = ""
    skipped: bool = False
    declined: bool = False  # "I don't know" (set on reducing: attempt_export.declined_answer)


@dataclass(frozen=True, slots=True)
class StreamedAnswer(CalibrationAnswer):
    """A graded answer as the stream fold reads it: with its attempt's key and the estimates its
    ability update was computed from (None: it was recorded without them)."""

    session_id: str | None = None
    attempt_key: str | None = None
    ability_category: str | None = None
    learner_theta: float | None = None
    item_b: float | None = None
    item_b_se: float | None = None


def calibration_answer(answer: Mapping[str, Any]) -> CalibrationAnswer:
    """The record of an answer's calibration fields (a reduced file's line, as JSON gives it).
    Millions are read per refit: each value is read once, and kept as read when it already has
    its type (the strings of the ids are shared across answers: attempt_export.reduced_answers)."""
    get = answer.get
    return CalibrationAnswer(
        _as_text(get("item_id")),
        _as_text(get("question_id")),
        _as_text(get("user_id")),
        _as_number(get("score")),
        bool(get("is_correct")),
        _as_number(get("guess_floor")),
        _as_text(get("question_type")),
        str(get("graded_at", "")),
        bool(get("skipped")),
        bool(get("declined")),
    )


def streamed_answer(attempt: Mapping[str, Any]) -> StreamedAnswer:
    """The record of an attempt item (as `wire_format.from_item` gives it) for the stream fold."""
    return StreamedAnswer(
        item_id=_text(attempt, "item_id"),
        question_id=_text(attempt, "question_id"),
        user_id=_text(attempt, "user_id"),
        score=_as_number(attempt.get("score")),
        is_correct=bool(attempt.get("is_correct")),
        guess_floor=_as_number(attempt.get("guess_floor")),
        question_type=_text(attempt, "question_type"),
        graded_at=str(attempt.get("graded_at", "")),
        skipped=bool(attempt.get("skipped")),
        declined=bool(attempt.get("declined")),
        session_id=_text(attempt, "session_id"),
        attempt_key=_text(attempt, "attempt_key"),
        ability_category=_text(attempt, "ability_category"),
        learner_theta=_as_number(attempt.get("learner_theta")),
        item_b=_as_number(attempt.get("item_b")),
        item_b_se=_as_number(attempt.get("item_b_se")),
    )


@dataclass(frozen=True, slots=True)
class ItemCalibration:
    """A bank item's `calibration` map: the statistics of its last fit (None: not in the map)."""

    b: float | None = None
    se: float | None = None
    answers: int | None = None
    facility: float | None = None
    discrimination: float | None = None
    infit: float | None = None
    outfit: float | None = None
    exposure: float | None = None
    flags: tuple[str, ...] = ()
    calibrated_at: str | None = None
    # The map as stored: the keys a rewrite keeps beside these.
    as_stored: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


def item_calibration(stored: Mapping[str, Any]) -> ItemCalibration:
    answers = stored.get("answers")
    return ItemCalibration(
        b=_as_number(stored.get("b")),
        se=_as_number(stored.get("se")),
        answers=None if answers is None else int(answers),
        facility=_as_number(stored.get("facility")),
        discrimination=_as_number(stored.get("discrimination")),
        infit=_as_number(stored.get("infit")),
        outfit=_as_number(stored.get("outfit")),
        exposure=_as_number(stored.get("exposure")),
        flags=tuple(str(flag) for flag in stored.get("flags") or ()),
        calibrated_at=_text(stored, "calibrated_at"),
        as_stored=dict(stored),
    )


def calibration_map(calibration: ItemCalibration) -> dict[str, Any]:
    """The `calibration` map to store: the keys stored beside the statistics kept, the statistics
    set (a None as null, as they always were)."""
    return dict(calibration.as_stored) | {
        "b": calibration.b,
        "se": calibration.se,
        "answers": calibration.answers,
        "facility": calibration.facility,
        "discrimination": calibration.discrimination,
        "infit": calibration.infit,
        "outfit": calibration.outfit,
        "exposure": calibration.exposure,
        "flags": list(calibration.flags),
        "calibrated_at": calibration.calibrated_at,
    }


@dataclass(frozen=True, slots=True)
class CalibrationItem:
    """A bank item as the calibration jobs and the item analysis read it (each reads only some
    fields: the others are what they would be on an item that lacks them)."""

    question_id: str
    item_type: str | None = None
    choices: tuple[str, ...] = ()
    difficulty: float | None = None  # the label, 1-10
    category: str | None = None
    status: str | None = None  # "retired" once a reviewer took it out
    draws: float = 0  # accounts its key was shown to
    calibration: ItemCalibration | None = None  # None: never calibrated
    calibration_flags: Mapping[str, float] = field(default_factory=dict)  # reason -> answers when raised
    difficulty_b: float | None = None
    difficulty_precision: float | None = None
    bank_key: str | None = None  # None: out of the bank's index (retired or rested)
    stem: str = ""
    stats_flag: str | None = None
    review_state: str | None = None


def _raised(flags: Any) -> dict[str, float]:
    """{reason: answers when raised}, the numbers as stored (they are written back as read)."""
    if not isinstance(flags, Mapping):
        return {}
    return {str(name): number for name, value in flags.items() if (number := _as_number(value)) is not None}


def calibration_item(stored: Mapping[str, Any]) -> CalibrationItem:
    """The record of a bank item (as `wire_format.from_item` gives it)."""
    calibration = stored.get("calibration")
    flags = stored.get("calibration_flags")
    return CalibrationItem(
        question_id=str(stored.get("question_id") or ""),
        item_type=_text(stored, "item_type"),
        choices=tuple(str(choice) for choice in stored.get("choices") or ()),
        difficulty=_as_number(stored.get("difficulty")),
        category=_text(stored, "category"),
        status=_text(stored, "status"),
        draws=_as_number(stored.get("draws")) or 0,
        calibration=item_calibration(calibration) if isinstance(calibration, Mapping) and calibration else None,
        calibration_flags=_raised(flags),
        difficulty_b=_as_number(stored.get("difficulty_b")),
        difficulty_precision=_as_number(stored.get("difficulty_precision")),
        bank_key=_text(stored, "bank_key"),
        stem=str(stored.get("stem") or ""),
        stats_flag=_text(stored, "stats_flag"),
        review_state=_text(stored, "review_state"),
    )
