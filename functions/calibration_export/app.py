"""The calibration refit's export steps (Tasks of the refit state machine): start the attempts
table's point-in-time export to S3, or describe it again (slea.logic.jobs.calibration_refit)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.item_analysis import CalibrationExportInput
from slea.logic.jobs.calibration_refit import follow_export, start_export
from slea.platform.observability import logger, metrics, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    request = parse_input(CalibrationExportInput, event)
    if request.action == "start":
        if request.run is None:
            raise ValueError("run: required to start an export")
        return start_export(request.run, request.options.poll_seconds).model_dump(mode="json")
    if request.export is None:
        raise ValueError("export: required to describe an export")
    return follow_export(request.export).model_dump(mode="json")
