"""The steps of the calibration refit before its fit (statemachine/calibration_refit.asl.json,
docs/measurement.md): export the attempts table at a point in time, follow the export until it
is done (a bounded number of polls), and reduce each of the export's data files to the compact
answers the fit reads (slea.logic.jobs.calibration). The export replaces a Scan of the table:
DynamoDB reads it from its backups, consuming none of the table's capacity, and bills per GB.
"""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from slea.contracts.item_analysis import ExportState
from slea.dal import attempt_export
from slea.platform.observability import logger, metrics, tracer

POLL_SECONDS = 60
# Exports of large tables take tens of minutes (AWS documents no bound): four hours of polls, then
# the run gives up (the state machine's ExportTimedOut) and the next scheduled run starts afresh.
MAX_POLLS = 240


def _state(run: str, described: attempt_export.ExportDescription, polls: int, poll_seconds: int) -> ExportState:
    status = described.status if described.status in ("COMPLETED", "FAILED") else "IN_PROGRESS"
    return ExportState(
        run=run,
        export_arn=described.arn,
        status=status,
        failure=described.failure,
        bucket=described.bucket,
        files_prefix=attempt_export.files_prefix(run),
        polls=polls,
        max_polls=MAX_POLLS,
        poll_seconds=poll_seconds,
    )


@tracer.capture_method
def start_export(run: str, poll_seconds: int | None = None) -> ExportState:
    state = _state(run, attempt_export.start_export(run), 0, POLL_SECONDS if poll_seconds is None else poll_seconds)
    logger.info("attempts export started", extra={"run": run, "export_arn": state.export_arn})
    return state


@tracer.capture_method
def follow_export(state: ExportState) -> ExportState:
    """The export's status now, with one more poll counted."""
    described = attempt_export.describe_export(state.export_arn)
    followed = _state(state.run, described, state.polls + 1, state.poll_seconds)
    if followed.status == "FAILED":
        logger.error("attempts export failed", extra={"run": state.run, "failure": followed.failure})
        metrics.add_metric(name="CalibrationExportFailed", unit=MetricUnit.Count, value=1)
    return followed


@tracer.capture_method
def reduce_export_file(run: str, key: str) -> dict[str, Any]:
    """One file of the run's export reduced to compact answers (a manifest or marker file: nothing
    to reduce). Only the run's own export is read: the key names the file, the run bounds it."""
    if not key.startswith(attempt_export.files_prefix(run)):
        raise ValueError("key: not a file of this run's export")
    if not attempt_export.is_data_file(key):
        return {"attempts": 0}
    written = attempt_export.write_reduced(run, key, attempt_export.export_file_attempts(key))
    metrics.add_metric(name="CalibrationAnswersReduced", unit=MetricUnit.Count, value=written)
    # Small on purpose: a distributed map without a ResultWriter gathers every child's result, and
    # Step Functions caps a state's data at 256 KiB (about 10,000 files at this size).
    return {"attempts": written}
