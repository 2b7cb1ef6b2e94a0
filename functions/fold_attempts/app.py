"""Stream-fed calibration: folds each new or changed graded answer of the attempts table's stream
into per-item and per-learner sums and rewrites the statistics of the items the batch touched
(slea.logic.jobs.incremental_calibration). A record that fails is reported back
(ReportBatchItemFailures) and retried from there; the fold is idempotent, so what a retry
delivers again folds nothing twice."""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.attempt_stream import AttemptStreamEvent
from slea.contracts.common import parse_input
from slea.logic.jobs.incremental_calibration import Folding
from slea.platform.observability import logger, metrics, tracer

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def _images(record: dict[str, Any]) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
    change = record["dynamodb"]  # DynamoDB's own format, converted once by the layer
    return record["eventName"], change.get("OldImage"), change.get("NewImage")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    parse_input(AttemptStreamEvent, event)  # a malformed envelope is an input error, not a batch of failures
    folding = Folding()
    folding.prepare([_images(record) for record in event["Records"]])

    def fold_record(record: DynamoDBRecord) -> None:
        folding.fold_record(*_images(record.raw_event))

    response = process_partial_response(event=event, record_handler=fold_record, processor=processor, context=context)
    folding.recompute()
    return response


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
