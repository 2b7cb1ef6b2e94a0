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
    """What one fit of the calibration refit did (its return value and its log line)."""

    complete: bool = Field(description="false: the invocation stopped before its deadline (see `stopped`)")
    stopped: Literal["read", "write"] | None = Field(
        default=None,
        description="read: the export's answers were not all read, so nothing was written; write: some items "
        "were left for the next run",
    )
    attempts_read: int = Field(description="answers read from the export (compact records of the reduced files)")
    files_read: int = Field(description="reduced export files read")
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


LearnerPattern = Literal["hard_right_easy_wrong", "right_where_keys_shown"]


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
    seen: list[LearnerPattern] = Field(
        default_factory=list,
        description="what was seen in their answers, for the page to put in words: hard_right_easy_wrong (right "
        "on hard items, wrong on easy ones), right_where_keys_shown (right mostly where keys had gone round)",
    )


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


# A refit run's name: the state machine's execution name, which names its S3 prefixes.
RUN_PATTERN = r"^[A-Za-z0-9_-]{1,80}$"


class CalibrateItemsInput(Contract):
    """The refit's fit step: the run whose reduced export files it reads (the state machine passes
    its execution name)."""

    run: str = Field(pattern=RUN_PATTERN, description="the refit run (the state machine's execution name)")


class ExportState(Contract):
    """Where a refit's export of the attempts table stands: what the state machine carries from
    one poll to the next."""

    run: str = Field(pattern=RUN_PATTERN)
    export_arn: str = Field(min_length=1, max_length=400)
    status: Literal["IN_PROGRESS", "COMPLETED", "FAILED"]
    failure: str | None = None
    bucket: str = Field(min_length=3, max_length=63)
    files_prefix: str = Field(min_length=1, max_length=200, description="where the export's files are listed")
    polls: int = Field(default=0, ge=0)
    max_polls: int = Field(ge=1, description="polls before the run gives up on the export")
    poll_seconds: int = Field(ge=0, le=3600, description="seconds between polls")


class RefitOptions(Contract):
    """The refit state machine's execution input: {} (EventBridge's scheduled event, whose fields
    are ignored), or a shorter poll interval for a run by hand or on the local stack."""

    poll_seconds: int | None = Field(default=None, ge=0, le=3600, description="seconds between polls of the export")


class CalibrationExportInput(Contract):
    """The refit's export steps: start the point-in-time export, or describe it again."""

    action: Literal["start", "describe"]
    run: str | None = Field(default=None, pattern=RUN_PATTERN, description="start: the refit run")
    options: RefitOptions = Field(default_factory=RefitOptions, description="start: the execution's input")
    export: ExportState | None = Field(default=None, description="describe: the state the last step returned")


class ReduceExportFileInput(Contract):
    """One child of the refit's map: one file of the run's export, reduced to compact answers."""

    run: str = Field(pattern=RUN_PATTERN)
    key: str = Field(min_length=1, max_length=1024, description="the S3 key of one file of the run's export")
