"""The stream fold's input: a DynamoDB stream event of the attempts table (Powertools'
DynamoDBStreamModel), which Lambda never sends empty."""

from aws_lambda_powertools.utilities.parser.models import DynamoDBStreamModel, DynamoDBStreamRecordModel
from pydantic import Field


class AttemptStreamEvent(DynamoDBStreamModel):
    Records: list[DynamoDBStreamRecordModel] = Field(min_length=1)
