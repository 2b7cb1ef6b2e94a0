"""One child of the calibration refit's map (a Task of the refit state machine): one data file of
the attempts table's export reduced to the compact answers the fit reads
(slea.logic.jobs.calibration_refit)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.item_analysis import ReduceExportFileInput
from slea.logic.jobs.calibration_refit import reduce_export_file
from slea.platform.observability import logger, metrics, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    request = parse_input(ReduceExportFileInput, event)
    return reduce_export_file(request.run, request.key)
