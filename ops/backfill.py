"""Give the records written by earlier releases the attributes that later indexes key on, derived
from each record by the same data-access functions that set them on records written now.

    python -m ops.backfill [--dry-run] [--only NAME] [--page-size 200] [--stack NAME] [--region R]

(`make backfill ARGS=--dry-run` is the same command.) What it fills in:

  attempts-review-queue  answers graded `needs_review` before the review queue existed, not
                         reviewed since: `review_state` and `queued_at` (their graded_at), as
                         slea.dal.attempts.queue_fields gives a provisional grade now
  templates-stem-digest  templates seeded before the template-stems index: `stem_digest`, from
                         their stem by slea.dal.templates.with_search_key
  review-audit-feed      review records from before the recent-reviews index: `feed`, as
                         slea.dal.review.feed_fields gives every audit record now

Each table is scanned a page at a time (only the records lacking the attribute come back, but
the Scan reads, and is billed for, the whole table); each record is updated on condition that it
still lacks the attribute and still reads as it was read, so a write made meanwhile is never
overwritten and running it again changes nothing. A line per page goes to stderr, the counts as
JSON to stdout: read, to_fill, filled, and changed_meanwhile (a condition failed: the record was
written meanwhile, by the functions or by another run). A failure stops with one line; the
updates made stay, and a rerun finishes the rest. --dry-run counts what it would fill and writes
nothing. Table names come from the stack's outputs (--stack, else SLEA_STACK, else
samconfig.toml's stack_name), or from ATTEMPTS_TABLE, TEMPLATES_TABLE and REVIEW_AUDIT_TABLE
when all three are set.
"""

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ops import cli
from slea.dal import attempts, review, templates
from slea.dal.conditional import applied
from slea.dal.wire_format import from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.errors import DataAccessError
from slea.platform.settings import resource_name

TOOL = "backfill"
PAGE_SIZE = 200
STACK_OUTPUTS = {
    attempts.TABLE_VARIABLE: "AttemptsTableName",
    templates.TABLE_VARIABLE: "TemplatesTableName",
    review.AUDIT_TABLE: "ReviewAuditTableName",
}


@dataclass(frozen=True)
class Rule:
    """One attribute set (`fields`, derived from the record by the data-access layer) on the
    records of a table that `select` finds lacking it; `guard` is the update's condition (the
    record still lacks it and reads as it was read), with its values from the record."""

    name: str
    table_variable: str
    key: tuple[str, ...]
    select: str
    select_values: dict[str, Any]
    fields: Callable[[dict[str, Any]], dict[str, Any]]
    guard: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]


# A provisional grade (slea.logic.review.grades.provisional) outside the queue.
_PROVISIONAL = (
    "needs_review = :true AND attribute_not_exists(review_state) AND attribute_not_exists(queued_at)"
    " AND (attribute_not_exists(reviewed) OR reviewed = :false)"
)


def _attempt_fields(record: dict[str, Any]) -> dict[str, Any]:
    graded_at = record.get("graded_at")
    return attempts.queue_fields(graded_at) if isinstance(graded_at, str) and graded_at else {}


def _template_fields(record: dict[str, Any]) -> dict[str, Any]:
    digest = templates.with_search_key(record).get("stem_digest")
    return {"stem_digest": digest} if digest else {}


RULES = (
    Rule(
        "attempts-review-queue",
        attempts.TABLE_VARIABLE,
        ("session_id", "attempt_key"),
        _PROVISIONAL,
        {":true": True, ":false": False},
        _attempt_fields,
        lambda record: (
            f"{_PROVISIONAL} AND graded_at = :graded_at",
            {":true": True, ":false": False, ":graded_at": record["graded_at"]},
        ),
    ),
    Rule(
        "templates-stem-digest",
        templates.TABLE_VARIABLE,
        ("id",),
        "attribute_not_exists(stem_digest) AND attribute_type(stem, :string)",
        {":string": "S"},
        _template_fields,
        lambda record: ("attribute_not_exists(stem_digest) AND stem = :stem", {":stem": record["stem"]}),
    ),
    Rule(
        "review-audit-feed",
        review.AUDIT_TABLE,
        ("target_id", "audit_key"),
        "attribute_not_exists(feed) AND NOT begins_with(target_id, :counters)",
        {":counters": "#"},
        lambda record: review.feed_fields(),
        lambda record: ("attribute_not_exists(feed) AND attribute_exists(audit_key)", {}),
    ),
)


@dataclass
class Counts:
    pages: int = 0
    read: int = 0
    to_fill: int = 0
    filled: int = 0
    changed_meanwhile: int = 0

    def report(self) -> dict[str, int]:
        return dataclasses.asdict(self)


def _pages(rule: Rule, page_size: int) -> Iterator[tuple[list[dict[str, Any]], int]]:
    """The records `rule` selects, a page at a time, with how many the page read."""
    request: dict[str, Any] = {
        "TableName": resource_name(rule.table_variable),
        "FilterExpression": rule.select,
        "ExpressionAttributeValues": to_item(rule.select_values),
        "Limit": page_size,
    }
    while True:
        response = dynamodb(TOOL).scan(**request)
        yield [from_item(item) for item in response.get("Items", [])], int(response.get("ScannedCount", 0))
        if not response.get("LastEvaluatedKey"):
            return
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def fill(rule: Rule, record: dict[str, Any]) -> bool:
    """Set `rule`'s fields on `record` unless it changed since it was read: True if written."""
    fields = rule.fields(record)
    condition, values = rule.guard(record)
    names = {f"#f{n}": name for n, name in enumerate(fields)}
    values = {**values, **{f":f{n}": value for n, value in enumerate(fields.values())}}
    return applied(
        dynamodb(TOOL).update_item,
        TableName=resource_name(rule.table_variable),
        Key=to_item({name: record[name] for name in rule.key}),
        UpdateExpression="SET " + ", ".join(f"#f{n} = :f{n}" for n in range(len(fields))),
        ConditionExpression=condition,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=to_item(values),
    )


def backfill(
    rule: Rule,
    page_size: int = PAGE_SIZE,
    dry_run: bool = False,
    progress: Callable[[Rule, Counts], None] | None = None,
) -> Counts:
    counts = Counts()
    try:
        for records, read in _pages(rule, page_size):
            counts.pages += 1
            counts.read += read
            for record in records:
                if not rule.fields(record):
                    continue  # nothing the data-access layer would set (no stem, no graded_at)
                counts.to_fill += 1
                if dry_run:
                    continue
                if fill(rule, record):
                    counts.filled += 1
                else:
                    counts.changed_meanwhile += 1
            if progress:
                progress(rule, counts)
    except (DataAccessError, ClientError, BotoCoreError) as error:
        raise cli.CommandError(f"{rule.name}: {error}; the updates made stay: run again to finish") from error
    return counts


def _progress(rule: Rule, counts: Counts) -> None:
    print(
        f"{rule.name} page {counts.pages}: {counts.read} read, {counts.to_fill} to fill, {counts.filled} filled, "
        f"{counts.changed_meanwhile} changed meanwhile",
        file=sys.stderr,
    )


def main(argv: list[str] | None = None) -> int:
    parser = cli.argument_parser("python -m ops.backfill", __doc__)
    cli.add_aws_options(parser)
    parser.add_argument("--dry-run", action="store_true", help="count what would be filled; write nothing")
    parser.add_argument("--only", choices=[rule.name for rule in RULES], action="append", help="this backfill only")
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE, help="records read per Scan page")
    args = parser.parse_args(argv)

    def command() -> int:
        if args.page_size < 1:
            raise cli.CommandError("--page-size must be at least 1", cli.EXIT_CONFIG)
        cli.use_region(args.region)
        if args.stack or os.environ.get("SLEA_STACK") or not all(os.environ.get(v) for v in STACK_OUTPUTS):
            stack = cli.resolve_stack(args.stack)
            if not stack:
                raise cli.CommandError(
                    f"no stack: pass --stack, set SLEA_STACK, or set {', '.join(STACK_OUTPUTS)}", cli.EXIT_CONFIG
                )
            os.environ.update(cli.stack_outputs(stack, STACK_OUTPUTS))
        report = {
            rule.name: backfill(rule, args.page_size, args.dry_run, _progress).report()
            for rule in RULES
            if not args.only or rule.name in args.only
        }
        print(json.dumps({**report, "dry_run": args.dry_run}, indent=2))
        return 0

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
