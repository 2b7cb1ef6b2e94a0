"""The retry worker's input: an SQS event from the retry queue (Powertools' SqsModel), which
Lambda never sends empty."""

from collections.abc import Sequence

from aws_lambda_powertools.utilities.parser.models import SqsModel, SqsRecordModel
from pydantic import Field


class RetryQueueEvent(SqsModel):
    Records: Sequence[SqsRecordModel] = Field(min_length=1)
