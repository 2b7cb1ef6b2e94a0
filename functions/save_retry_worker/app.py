"""Retry worker: drains the SQS retry queue of Tool 5. Each message is saved idempotently; a
message that fails is reported back (ReportBatchItemFailures), redelivered, and after the
queue's maxReceiveCount moved to the dead-letter queue. Other messages are never blocked."""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.questions import RetryMessage
from slea.contracts.retry_event import RetryQueueEvent
from slea.logic.generation.saving import save_from_retry_queue
from slea.platform.observability import logger, metrics, tracer

processor = BatchProcessor(event_type=EventType.SQS)


def save_record(record: SQSRecord) -> None:
    save_from_retry_queue(RetryMessage.model_validate_json(record.body))


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    parse_input(RetryQueueEvent, event)  # a malformed envelope is an input error, not a batch of failures
    return process_partial_response(event=event, record_handler=save_record, processor=processor, context=context)


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
