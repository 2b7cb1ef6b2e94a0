"""The calibration refit's fit (docs/measurement.md): refit every bank item's difficulty from all
answers (slea.measurement.calibration), store it with the statistics reviewers read, and queue the
items that misfit or sit far from their label. The answers are those of the attempts table's
point-in-time export, reduced file by file to their calibration fields
(slea.logic.jobs.calibration_refit; the refit state machine runs the steps in order).

Time: one invocation reads the reduced answers until READ_SHARE of its time is spent (then it has
read too little to refit from: nothing is written, and the run says so), refits, and writes while
more than WRITE_RESERVE_MS remain (items left over are written by the next run, which skips the
ones already current). bench/calibration_scale.py measures how many answers fit in 15 minutes.

Idempotent: the input is put in a fixed order and every statistic is rounded, so the same data
gives the same values; an item whose stored calibration is already those values is not written
(its `calibrated_at` stays the run that first computed them). A reason is raised on an item once
per body of evidence: again only when the item has REFLAG_GROWTH times the answers it had when the
reason was last raised, so a reviewer who accepted a misfit is not asked again about the same data.

Learners whose answers person fit flags are marked for review after the fit (logic/jobs/person_review.py),
their level never changed.
"""

import time
from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from slea.contracts.item_analysis import CalibrationFlag, CalibrationRun
from slea.dal import attempt_export
from slea.dal import calibration as store
from slea.dal.calibration_records import CalibrationAnswer, CalibrationItem, ItemCalibration
from slea.logic.jobs import person_review
from slea.logic.jobs.answer_rules import DECIMALS, answer_floor, answer_score, answered_item
from slea.measurement.calibration import ItemStatistics, Response, calibrate_guarded
from slea.measurement.items import ItemDifficulty
from slea.platform.clock import utc_now
from slea.platform.observability import logger, metrics, tracer

READ_SHARE = 0.5  # of the invocation's time: the refit and the writes get the rest
WRITE_RESERVE_MS = 5_000  # stop writing with this much left, to log and return the report
REFLAG_GROWTH = 2.0
QUEUED_FLAGS: frozenset[CalibrationFlag] = frozenset({"misfit", "label_far"})
DEFAULT_CATEGORY = "general"

RemainingMs = Callable[[], int]


@dataclass(frozen=True)
class _Prepared:
    responses: list[Response]
    items: dict[str, CalibrationItem]
    learners_by_category: dict[str, int]


def _prepare(attempts: Collection[CalibrationAnswer]) -> _Prepared:
    """The responses the refit fits, in two passes over `attempts`."""
    # An item left unanswered is no evidence of how hard it is (a learner skips what they do not
    # know): it counts against the learner's ability, not in the item's difficulty.
    items = store.bank_items(
        item_id for attempt in attempts if not attempt.skipped and (item_id := answered_item(attempt))
    )
    responses: list[tuple[str, Response]] = []
    learners: dict[str, set[str]] = defaultdict(set)
    for attempt in attempts:
        if attempt.skipped:
            continue
        item_id, learner = answered_item(attempt), attempt.user_id
        item = items.get(item_id or "")
        if item is None or not learner:  # graded without a stored question, or without a learner
            continue
        responses.append(
            (
                attempt.graded_at,
                Response(
                    str(item_id),
                    learner,
                    answer_score(attempt),
                    answer_floor(attempt, item),
                    # A non-answer counts in the item's fit as graded, never as a person-fit misfit.
                    answered=not attempt.declined,
                ),
            )
        )
        learners[_category(item)].add(learner)
    counts = {category: len(found) for category, found in learners.items()}
    # A fixed order, whatever order the export's files hold them in: the refit's sums then repeat
    # exactly (and a learner's first answer to an item comes first: the guarded refit keeps only
    # that one).
    responses.sort(key=lambda pair: (pair[1].item_id, pair[1].learner, pair[0], pair[1].score))
    exposed = [replace(response, exposure=_exposure(items[response.item_id], counts)) for _, response in responses]
    return _Prepared(exposed, items, counts)


def _exposure(item: CalibrationItem, learner_counts: dict[str, int]) -> float:
    """The share of the category's learners the item was drawn for: how far its key may have gone
    round (person fit's covariate). The item's draws now, not when each answer was given: for an
    honest learner success does not depend on it either way."""
    return min(1.0, float(item.draws) / max(learner_counts.get(_category(item), 1), 1))


def _learner_categories(prepared: _Prepared) -> dict[str, set[str]]:
    """The categories each learner answered in: where their ability records are."""
    found: dict[str, set[str]] = defaultdict(set)
    for response in prepared.responses:
        found[response.learner].add(_category(prepared.items[response.item_id]))
    return found


def _category(item: CalibrationItem) -> str:
    return item.category or DEFAULT_CATEGORY


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def _calibration(statistics: ItemStatistics, exposure: float) -> ItemCalibration:
    return ItemCalibration(
        b=_rounded(statistics.b),
        se=_rounded(statistics.se),
        answers=statistics.answers,
        facility=_rounded(statistics.facility),
        discrimination=_rounded(statistics.discrimination),
        infit=_rounded(statistics.infit),
        outfit=_rounded(statistics.outfit),
        exposure=_rounded(exposure),
        flags=tuple(sorted(statistics.flags)),
    )


def _same(stored: ItemCalibration | None, computed: ItemCalibration) -> bool:
    """Whether the stored calibration holds these values, whenever computed (DynamoDB gives 1.0
    back as 1: == holds)."""
    return stored is not None and replace(computed, calibrated_at=stored.calibrated_at) == stored


def _reasons_to_raise(item: CalibrationItem, statistics: ItemStatistics) -> list[str]:
    """The flags that put the item in the queue now: not for a retired item, and a reason already
    raised only once the item has REFLAG_GROWTH times the answers it had then."""
    if item.status == "retired":
        return []
    raised = item.calibration_flags
    return sorted(
        flag
        for flag in statistics.flags
        if flag in QUEUED_FLAGS and (flag not in raised or statistics.answers >= REFLAG_GROWTH * float(raised[flag]))
    )


@tracer.capture_method
def calibrate_items(remaining_ms: RemainingMs, refit_run: str) -> CalibrationRun:
    """The fit of one refit run, from the answers its reduce steps wrote; `remaining_ms` is the
    Lambda context's get_remaining_time_in_millis."""
    started, at_start = time.monotonic(), remaining_ms()
    read_until = at_start * (1.0 - READ_SHARE)
    answers = attempt_export.reduced_attempts(refit_run, lambda: remaining_ms() > read_until)
    run: dict[str, Any] = {
        "attempts_read": len(answers.attempts),
        "files_read": answers.files,
        "responses": 0,
        "items_calibrated": 0,
        "items_unchanged": 0,
        "items_flagged": 0,
        "learners_excluded": 0,
    }
    if not answers.complete:
        # A refit from part of the answers would overwrite difficulties fitted from all of them.
        return _report(CalibrationRun(complete=False, stopped="read", seconds=_since(started), **run))
    prepared = _prepare(answers.attempts)
    del answers  # the answers as read take more memory than the fit: it needs only the prepared ones
    run["responses"] = len(prepared.responses)
    priors = {
        item_id: ItemDifficulty.from_label(float(item.difficulty or 5.5)) for item_id, item in prepared.items.items()
    }
    guarded = calibrate_guarded(prepared.responses, priors)
    fitted = guarded.items
    run["learners_excluded"] = len(guarded.excluded)
    if guarded.excluded:
        logger.warning(
            "answers left out of the refit: their patterns misfit", extra={"learners": len(guarded.excluded)}
        )
    now = utc_now()
    person_review.mark_for_review(guarded.person_fit, _learner_categories(prepared), now)
    pending = sorted(fitted)
    for number, item_id in enumerate(pending):
        if remaining_ms() < WRITE_RESERVE_MS:
            left = len(pending) - number
            return _report(
                CalibrationRun(complete=False, stopped="write", items_left=left, seconds=_since(started), **run)
            )
        item, statistics = prepared.items[item_id], fitted[item_id]
        exposure = statistics.answers / max(prepared.learners_by_category.get(_category(item), 1), 1)
        computed = _calibration(statistics, exposure)
        reasons = _reasons_to_raise(item, statistics)
        if not reasons and _same(item.calibration, computed):
            run["items_unchanged"] += 1
            continue
        raised = dict(item.calibration_flags) | dict.fromkeys(reasons, statistics.answers)
        precision = round(1.0 / statistics.se**2, DECIMALS)
        calibration = replace(computed, calibrated_at=now)
        written = store.write_calibration(
            item_id,
            difficulty_b=computed.b,
            precision=precision,
            calibration=calibration,
            raised=raised,
            new_reasons=reasons,
            at=now,
        )
        if not written:
            continue  # deleted since it was read
        run["items_calibrated"] += 1
        run["items_flagged"] += bool(reasons)
    return _report(CalibrationRun(complete=True, seconds=_since(started), **run))


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


def _report(run: CalibrationRun) -> CalibrationRun:
    metrics.add_metric(name="CalibrationAttemptsRead", unit=MetricUnit.Count, value=run.attempts_read)
    metrics.add_metric(name="ItemsCalibrated", unit=MetricUnit.Count, value=run.items_calibrated)
    metrics.add_metric(name="ItemsFlaggedByCalibration", unit=MetricUnit.Count, value=run.items_flagged)
    metrics.add_metric(name="LearnersExcludedFromCalibration", unit=MetricUnit.Count, value=run.learners_excluded)
    metrics.add_metric(name="CalibrationIncomplete", unit=MetricUnit.Count, value=0 if run.complete else 1)
    (logger.info if run.complete else logger.warning)("calibration run", extra=run.model_dump(mode="json"))
    return run
