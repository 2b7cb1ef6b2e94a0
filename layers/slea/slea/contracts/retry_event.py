"""The retry worker's input: an SQS event from the retry queue, which Lambda never sends empty.

The fields, types and required ones of Powertools' SqsModel, declared here rather than imported:
importing Powertools' parser models loads every event model it ships (about 30 ms, a fifth of the
worker's cold import: bench/cold_import.py). A test checks these models against Powertools' field
by field."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class SqsAttributes(BaseModel):
    ApproximateReceiveCount: str
    ApproximateFirstReceiveTimestamp: datetime
    MessageDeduplicationId: str | None = None
    MessageGroupId: str | None = None
    SenderId: str
    SentTimestamp: datetime
    SequenceNumber: str | None = None
    AWSTraceHeader: str | None = None
    DeadLetterQueueSourceArn: str | None = None


class SqsMessageAttribute(BaseModel):
    stringValue: str | None = None
    binaryValue: str | None = None
    stringListValues: list[str] = Field(default_factory=list)
    binaryListValues: list[str] = Field(default_factory=list)
    dataType: str


class SqsRecord(BaseModel):
    messageId: str
    receiptHandle: str
    body: str
    attributes: SqsAttributes
    messageAttributes: dict[str, SqsMessageAttribute]
    md5OfBody: str
    md5OfMessageAttributes: str | None = None
    eventSource: Literal["aws:sqs"]
    eventSourceARN: str
    awsRegion: str


class RetryQueueEvent(BaseModel):
    Records: list[SqsRecord] = Field(min_length=1)
