"""Operator commands for Tool 5's retry path; they replace the spec's get_retry_queue() and
clear_retry_queue().

    slea-retry-queue count   [--stack slea-ssem] [--region ap-northeast-2]
    slea-retry-queue peek    [--queue dead-letter|retry] [--limit 10]
    slea-retry-queue redrive                 # dead-letter queue -> retry queue

(`slea-retry-queue` is installed by `pip install -e .`; `python -m ops.retry_queue_admin` is the
same command.) Queue URLs come from a deployed stack's outputs: --stack, else SLEA_STACK, else
samconfig.toml's stack_name; or, without --stack or SLEA_STACK, from RETRY_QUEUE_URL and
RETRY_DLQ_URL when both are set. Peeking leaves messages on the queue, but SQS counts each look
as a receive, and the retry queue dead-letters a message after 5 receives: peek at the retry
queue sparingly.
"""

import json
import os
import sys
from typing import Any

from ops import cli
from slea.dal.retry_queue import DEAD_LETTER_VARIABLE, QUEUE_VARIABLE, depth, move_all, peek
from slea.platform.settings import resource_name

STACK_OUTPUTS = {QUEUE_VARIABLE: "RetryQueueUrl", DEAD_LETTER_VARIABLE: "RetryDeadLetterQueueUrl"}


def queue_urls(stack: str | None = None) -> dict[str, str]:
    if stack:
        return cli.stack_outputs(
            stack, {"retry": STACK_OUTPUTS[QUEUE_VARIABLE], "dead-letter": STACK_OUTPUTS[DEAD_LETTER_VARIABLE]}
        )
    return {"retry": resource_name(QUEUE_VARIABLE), "dead-letter": resource_name(DEAD_LETTER_VARIABLE)}


def _stack(explicit: str | None) -> str | None:
    """The stack to read queue URLs from; None when the environment names both queues."""
    if explicit or os.environ.get("SLEA_STACK"):
        return cli.resolve_stack(explicit)
    if os.environ.get(QUEUE_VARIABLE) and os.environ.get(DEAD_LETTER_VARIABLE):
        return None
    stack = cli.resolve_stack(None)
    if not stack:
        raise cli.CommandError(
            f"no stack: pass --stack, set SLEA_STACK, or set {QUEUE_VARIABLE} and {DEAD_LETTER_VARIABLE}",
            cli.EXIT_CONFIG,
        )
    return stack


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
    parser = cli.argument_parser("slea-retry-queue", __doc__)
    parser.add_argument("command", choices=["count", "peek", "redrive"])
    cli.add_aws_options(parser)
    parser.add_argument("--queue", choices=["dead-letter", "retry"], default="dead-letter", help="for peek")
    parser.add_argument("--limit", type=int, default=10, help="for peek")
    args = parser.parse_args(argv)

    def command() -> int:
        cli.use_region(args.region)
        urls = queue_urls(_stack(args.stack))
        if args.command == "count":
            result: Any = count(urls)
        elif args.command == "peek":
            result = peek_questions(urls, args.queue, args.limit)
        else:
            result = {"moved_to_retry_queue": redrive(urls)}
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
