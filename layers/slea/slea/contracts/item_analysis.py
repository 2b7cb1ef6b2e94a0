"""Contracts of the item statistics: what one run of the scheduled calibration job did,
and the reviewers' item analysis (GET /review/items)."""

from typing import Literal

from pydantic import ConfigDict, Field

from slea.contracts.common import Contract

# A column the listing can be sorted by (flagged items always come first).
SortColumn = Literal[
    "question_id",
    "category",
    "item_type",
    "label",
    "b",
    "se",
    "answers",
    "facility",
    "discrimination",
    "infit",
    "outfit",
    "exposure",
    "calibrated_at",
]
# Why the calibration job put an item in the review queue.
CalibrationFlag = Literal["misfit", "label_far"]


class CalibrationRun(Contract):
    """What one invocation of the calibration job did (its return value and its log line)."""

    complete: bool = Field(description="false: the invocation stopped before its deadline (see `stopped`)")
    stopped: Literal["scan", "write"] | None = Field(
        default=None,
        description="scan: the attempts were not all read, so nothing was written; write: some items were "
        "left for the next run",
    )
    attempts_read: int
    scan_pages: int
    responses: int = Field(description="attempts of stored bank items, the refit's input")
    items_calibrated: int = Field(description="items whose calibration was written")
    items_unchanged: int = Field(description="items whose stored calibration was already this one")
    items_flagged: int = Field(description="items this run put in the review queue")
    items_left: int = Field(default=0, description="items not written because the deadline came")
    learners_excluded: int = Field(
        default=0, description="learners whose answers misfit the model (person fit) and were left out of the refit"
    )
    seconds: float


class ItemAnalysisRow(Contract):
    question_id: str
    stem: str = Field(description="the item's stem, shortened for the listing")
    item_type: str | None = None
    category: str | None = None
    label: int | None = Field(default=None, description="the generator's difficulty label (1-10)")
    b: float | None = Field(default=None, description="calibrated difficulty (logits)")
    se: float | None = Field(default=None, description="standard error of b")
    answers: int = 0
    facility: float | None = Field(default=None, description="mean score (0-1)")
    discrimination: float | None = Field(default=None, description="point-biserial correlation with ability")
    infit: float | None = None
    outfit: float | None = None
    exposure: float | None = Field(default=None, description="answers / learners answering in the item's category")
    flags: list[str] = Field(default_factory=list, description="misfit, label_far, and the answer-rate flag if any")
    in_review: bool = Field(default=False, description="the item waits in the review queue")
    status: Literal["active", "retired"] = "active"
    calibrated_at: str | None = None


class FlaggedLearner(Contract):
    """A learner whose answers the last calibration run found misfitting (person fit): left out of
    the refit and waiting for a reviewer; their level was not changed."""

    user_id: str
    reason: str = Field(description="why, in plain words, with the statistic and its cut")
    lz: float = Field(description="the standardised log-likelihood of their answers (below -2.33 is flagged)")
    exposure_z: float | None = Field(
        default=None, description="success depending on how widely the items' keys were shown (above 2.33 is flagged)"
    )
    answers: int
    categories: list[str] = Field(default_factory=list, description="where their ability carries the review mark")
    flagged_at: str


class ItemAnalysis(Contract):
    items: list[ItemAnalysisRow]
    flagged_learners: list[FlaggedLearner] = Field(
        default_factory=list,
        description="learners the last calibration run flagged by person fit, most aberrant first (first page only)",
    )
    total: int = Field(description="items matching the filters (not only those listed)")
    last_calibrated_at: str | None = Field(
        default=None, description="when the calibration job last recalibrated any item of the bank (null: never)"
    )
    next_cursor: str | None = Field(
        default=None, description="pass as `cursor` (with the same filters and sort) for the next page; null at the end"
    )


class ItemsCursor(Contract):
    """The listing's paging cursor (sent base64url-encoded): how many rows came before, and a
    digest of the filters and sort it belongs to (another listing's cursor is refused)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    offset: int = Field(ge=0, le=1_000_000)
    query: str = Field(min_length=1, max_length=64)


class CalibrateItemsInput(Contract):
    """The job's event: EventBridge's scheduled event (its fields are ignored), or {} run by hand."""

    page_size: int | None = Field(
        default=None, ge=1, le=10_000, description="attempts per Scan page (default: DynamoDB's 1 MB pages)"
    )
