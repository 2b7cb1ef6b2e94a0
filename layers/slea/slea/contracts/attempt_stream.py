"""The stream fold's input: a DynamoDB stream event of the attempts table, which Lambda never
sends empty. Only what the fold reads is checked (the change's kind and its images); Powertools'
own DynamoDBStreamModel would do as well but loads every event model it has, a tenth of the
function's cold start."""

from typing import Any, Literal

from pydantic import Field

from slea.contracts.common import Contract


class AttemptChange(Contract):
    OldImage: dict[str, Any] | None = None
    NewImage: dict[str, Any] | None = None


class AttemptStreamRecord(Contract):
    eventName: Literal["INSERT", "MODIFY", "REMOVE"]
    dynamodb: AttemptChange


class AttemptStreamEvent(Contract):
    Records: list[AttemptStreamRecord] = Field(min_length=1)
