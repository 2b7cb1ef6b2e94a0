"""The SQS retry queue of failed question saves, and its dead-letter queue.

Sending must not fail silently: if the queue cannot be reached the caller gets
`QueueUnavailableError` (Step Functions' Retry/Catch then takes over)."""

import json
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from slea.platform.aws import sqs

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

QUEUE_VARIABLE = "RETRY_QUEUE_URL"
DEAD_LETTER_VARIABLE = "RETRY_DLQ_URL"
TOOL = "save_generated_question"


class QueueUnavailableError(RuntimeError):
    """The retry queue could not take a message: the question exists nowhere but in the caller."""


def send(queue_url: str, body: dict[str, Any]) -> str:
    try:
        response = sqs(TOOL).send_message(QueueUrl=queue_url, MessageBody=json.dumps(body, ensure_ascii=False))
    except (ClientError, BotoCoreError) as error:
        raise QueueUnavailableError(f"retry queue unreachable: {error}") from error
    return response["MessageId"]


def depth(queue_url: str) -> dict[str, int]:
    attributes = sqs(TOOL).get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return {
        "visible": int(attributes["ApproximateNumberOfMessages"]),
        "in_flight": int(attributes["ApproximateNumberOfMessagesNotVisible"]),
        "delayed": int(attributes["ApproximateNumberOfMessagesDelayed"]),
    }


def peek(queue_url: str, limit: int = 10) -> list["MessageTypeDef"]:
    """Up to `limit` messages, left on the queue: they are received with a zero visibility
    timeout, so they stay available (SQS has no true peek: each look counts as a receive)."""
    messages: list[MessageTypeDef] = []
    while len(messages) < limit:
        batch = (
            sqs(TOOL)
            .receive_message(
                QueueUrl=queue_url,
                MaxNumberOfMessages=min(10, limit - len(messages)),
                VisibilityTimeout=0,
                AttributeNames=["ApproximateReceiveCount", "SentTimestamp"],
            )
            .get("Messages", [])
        )
        fresh = [message for message in batch if message["MessageId"] not in {m["MessageId"] for m in messages}]
        if not fresh:
            break
        messages.extend(fresh)
    return messages


def move_all(source_url: str, target_url: str) -> int:
    """Move every message from `source_url` to `target_url` (send first, then delete, so a
    crash duplicates rather than loses; saves are idempotent). Returns how many moved."""
    client = sqs(TOOL)
    moved = 0
    while True:
        batch = client.receive_message(QueueUrl=source_url, MaxNumberOfMessages=10, VisibilityTimeout=60)
        messages = batch.get("Messages", [])
        if not messages:
            return moved
        for message in messages:
            client.send_message(QueueUrl=target_url, MessageBody=message["Body"])
            client.delete_message(QueueUrl=source_url, ReceiptHandle=message["ReceiptHandle"])
            moved += 1
