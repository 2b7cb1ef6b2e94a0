"""The calibration refit's fit (a Task of the refit state machine): refit every bank item's
difficulty from the answers of the run's export, store the item statistics reviewers read, and
queue misfitting items (slea.logic.jobs.calibration)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.item_analysis import CalibrateItemsInput
from slea.logic.jobs.calibration import calibrate_items
from slea.platform.observability import logger, metrics, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    request = parse_input(CalibrateItemsInput, event)
    return calibrate_items(context.get_remaining_time_in_millis, request.run).model_dump(mode="json")
