"""Operator commands for Tool 5's retry path (they replace the spec's get_retry_queue() and
clear_retry_queue()):

    python -m slea.retry_queue_admin count   [--stack slea-ssem]
    python -m slea.retry_queue_admin peek    [--queue dead-letter|retry] [--limit 10]
    python -m slea.retry_queue_admin redrive                 # dead-letter queue -> retry queue

Queue URLs come from a deployed stack's outputs (--stack) or from RETRY_QUEUE_URL and
RETRY_DLQ_URL. Peeking leaves messages on the queue, but SQS counts each look as a receive, and
the retry queue dead-letters a message after 5 receives: peek at the retry queue sparingly.
"""

import argparse
import json
import os
import sys
from typing import Any

from slea.dal.retry_queue import DEAD_LETTER_VARIABLE, QUEUE_VARIABLE, depth, move_all, peek
from slea.settings import resource_name, stack_outputs

STACK_OUTPUTS = {QUEUE_VARIABLE: "RetryQueueUrl", DEAD_LETTER_VARIABLE: "RetryDeadLetterQueueUrl"}


def queue_urls(stack: str | None = None) -> dict[str, str]:
    if stack:
        outputs = stack_outputs(stack)
        return {
            "retry": outputs[STACK_OUTPUTS[QUEUE_VARIABLE]],
            "dead-letter": outputs[STACK_OUTPUTS[DEAD_LETTER_VARIABLE]],
        }
    return {"retry": resource_name(QUEUE_VARIABLE), "dead-letter": resource_name(DEAD_LETTER_VARIABLE)}


def count(urls: dict[str, str]) -> dict[str, dict[str, int]]:
    return {name: depth(url) for name, url in urls.items()}


def peek_questions(urls: dict[str, str], queue: str, limit: int) -> list[dict[str, Any]]:
    """The queued saves, readable: question id, the error that queued it, receives so far, stem."""
    shown = []
    for message in peek(urls[queue], limit):
        try:
            body = json.loads(message["Body"])
        except json.JSONDecodeError:
            body = {"unparseable_body": message["Body"][:200]}
        shown.append(
            {
                "message_id": message["MessageId"],
                "receive_count": int(message.get("Attributes", {}).get("ApproximateReceiveCount", "0")),
                "question_id": body.get("question_id"),
                "error": body.get("error"),
                "stem": (body.get("question") or {}).get("stem"),
                **({"unparseable_body": body["unparseable_body"]} if "unparseable_body" in body else {}),
            }
        )
    return shown


def redrive(urls: dict[str, str]) -> int:
    return move_all(urls["dead-letter"], urls["retry"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slea.retry_queue_admin", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["count", "peek", "redrive"])
    parser.add_argument("--stack", default=os.environ.get("SLEA_STACK"), help="CloudFormation stack name")
    parser.add_argument("--queue", choices=["dead-letter", "retry"], default="dead-letter", help="for peek")
    parser.add_argument("--limit", type=int, default=10, help="for peek")
    args = parser.parse_args(argv)
    urls = queue_urls(args.stack)
    if args.command == "count":
        result: Any = count(urls)
    elif args.command == "peek":
        result = peek_questions(urls, args.queue, args.limit)
    else:
        result = {"moved_to_retry_queue": redrive(urls)}
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
