"""The reviewers' item analysis (GET /review/items): every calibrated item with its difficulty,
uncertainty, label, answers, facility, discrimination, fit and exposure, filtered and sorted,
flagged items first, a page at a time.

The rows are the calibrated items of the bank (the `bank-items` index: one Query per category and
language), sorted here: any column can be the sort key, and a bank of thousands of items is a few
index pages. The cursor is the offset of the next row plus a
digest of the filters and sort it was made for, so a cursor is never applied to another listing.
The first page also lists the learners the last calibration run flagged by person fit, with why.
"""

import base64
import binascii
import hashlib
import json
from typing import Literal, get_args

from slea.constants import SUPPORTED_CATEGORIES, Language
from slea.contracts.item_analysis import FlaggedLearner, ItemAnalysis, ItemAnalysisRow, ItemsCursor, SortColumn
from slea.dal import calibration as store
from slea.dal import person_review
from slea.dal.calibration_records import CalibrationItem, ItemCalibration
from slea.logic.jobs.person_review import seen_in
from slea.platform.errors import Invalid
from slea.platform.observability import tracer

STEM_LISTED = 160  # characters of the stem in a row: enough to recognise the item
ELLIPSIS = "…"
Order = Literal["asc", "desc"]
LANGUAGES = get_args(Language)


def _row(stored: CalibrationItem) -> ItemAnalysisRow:
    calibration = stored.calibration or ItemCalibration()
    stem = stored.stem
    flags = list(calibration.flags)
    if stored.stats_flag:
        flags.append(stored.stats_flag)
    return ItemAnalysisRow(
        question_id=stored.question_id,
        stem=stem if len(stem) <= STEM_LISTED else stem[: STEM_LISTED - 1] + ELLIPSIS,
        item_type=stored.item_type,
        category=stored.category,
        label=None if stored.difficulty is None else int(stored.difficulty),
        b=calibration.b,
        se=calibration.se,
        answers=calibration.answers or 0,
        facility=calibration.facility,
        discrimination=calibration.discrimination,
        infit=calibration.infit,
        outfit=calibration.outfit,
        exposure=calibration.exposure,
        flags=flags,
        in_review=stored.review_state == "open",
        status="retired" if stored.status == "retired" else "active",
        calibrated_at=calibration.calibrated_at,
    )


def _query_digest(category: str | None, flagged: bool, item_type: str | None, sort: str, order: str) -> str:
    text = json.dumps([category, flagged, item_type, sort, order])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _offset(cursor: str | None, digest: str) -> int:
    if not cursor:
        return 0
    try:
        decoded = ItemsCursor.model_validate_json(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError) as error:  # pydantic's ValidationError is a ValueError
        raise Invalid("VALIDATION_ERROR", "cursor: not a cursor of the item analysis") from error
    if decoded.query != digest:
        raise Invalid("VALIDATION_ERROR", "cursor: made for other filters or another sort")
    return decoded.offset


def _encoded(offset: int, digest: str) -> str:
    cursor = ItemsCursor(offset=offset, query=digest)
    return base64.urlsafe_b64encode(cursor.model_dump_json().encode()).decode().rstrip("=")


def _sorted(rows: list[ItemAnalysisRow], sort: SortColumn, order: Order) -> list[ItemAnalysisRow]:
    """Flagged items first; within each group by `sort` (rows without a value last, either
    order); ties by question_id, so pages never overlap."""

    def has_value(row: ItemAnalysisRow) -> bool:
        return getattr(row, sort) is not None

    by_id = sorted(rows, key=lambda row: row.question_id)
    valued = sorted(
        (row for row in by_id if has_value(row)), key=lambda row: getattr(row, sort), reverse=order == "desc"
    )
    ordered = valued + [row for row in by_id if not has_value(row)]
    return sorted(ordered, key=lambda row: not row.flags)  # stable: keeps the order within each group


@tracer.capture_method
def item_analysis(
    *,
    limit: int,
    cursor: str | None = None,
    category: str | None = None,
    flagged: bool = False,
    item_type: str | None = None,
    sort: SortColumn = "b",
    order: Order = "asc",
) -> ItemAnalysis:
    if category is not None and category not in SUPPORTED_CATEGORIES:
        raise Invalid("VALIDATION_ERROR", f"category: one of {', '.join(sorted(SUPPORTED_CATEGORIES))}")
    digest = _query_digest(category, flagged, item_type, sort, order)
    start = _offset(cursor, digest)
    categories = [category] if category else sorted(SUPPORTED_CATEGORIES)
    partitions = [(name, language) for name in categories for language in LANGUAGES]
    rows = [_row(stored) for name, language in partitions for stored in store.calibrated_bank_items(name, language)]
    last = max((row.calibrated_at for row in rows if row.calibrated_at), default=None)
    rows = [row for row in rows if (not flagged or row.flags) and (item_type is None or row.item_type == item_type)]
    ordered = _sorted(rows, sort, order)
    page = ordered[start : start + limit]
    following = start + len(page)
    return ItemAnalysis(
        items=page,
        flagged_learners=_flagged_learners() if start == 0 else [],
        total=len(ordered),
        next_cursor=_encoded(following, digest) if following < len(ordered) else None,
        last_calibrated_at=last,
    )


def _flagged_learners() -> list[FlaggedLearner]:
    """The learners the last calibration run flagged (one GetItem), most aberrant first."""
    listed = person_review.flagged_learners("review")
    learners = [
        FlaggedLearner(
            user_id=user_id,
            reason=mark.reason,
            lz=mark.lz,
            exposure_z=mark.exposure_z,
            answers=mark.answers,
            categories=list(mark.categories),
            flagged_at=mark.flagged_at,
            seen=seen_in(mark.lz, mark.exposure_z),
        )
        for user_id, mark in listed.items()
    ]
    return sorted(learners, key=lambda learner: (-max(-learner.lz, learner.exposure_z or 0.0), learner.user_id))
