"""Give every bank item its claim on its stem and key (the bank keeps one item per stem and key:
slea.dal.bank). Items saved before the claim existed have none, so a later item with the same
stem and key joins the bank beside them. This claims one for each, a page of the questions
table at a time.

    slea-bank-fingerprints [--page-size 200] [--pages N] [--start-after QUESTION_ID] [--dry-run]
                           [--stack slea-ssem] [--region ap-northeast-2]
    slea-bank-fingerprints --stale [--release] [--page-size 200] [--pages N] [--start-after CLAIM]

(`python -m ops.bank_fingerprints` is the same command.) It scans the questions table (bank
items are those that are their own item, retired ones included: their stem and key never rejoin)
and puts each item's claim on condition that none exists, so running it again changes nothing.
It prints a line per page on stderr, ending with the --start-after that resumes after that page,
and the counts as JSON on stdout: claimed, already held (by the item itself), and duplicates
found: two items with one stem and key, each listed with the item holding the claim. Nothing is
deleted: a duplicate is for a reviewer to retire or edit. --dry-run reads the claims and writes
nothing (its "claimed" counts the claims a run would write). It also leaves each short-answer
item's reference print in its category's record (slea.dal.reference_prints; "reference_prints"
counts them), as Tool 5 does for items saved since, so an answer pasting an older item's
reference is recognised too.

With --stale it reads the claims instead, a page at a time (--start-after then takes the claim
last read), and lists those whose item no longer has that stem and key (an edit made before edits
moved claims, or an item deleted): such a claim makes a new item with that stem and key a copy of
an item that reads otherwise. --release deletes them, each on condition that its item still holds
it and still reads as it was read. Table names come from the stack's
outputs (--stack, else SLEA_STACK, else samconfig.toml's stack_name), or from QUESTIONS_TABLE and
ABILITIES_TABLE when both are set.
"""

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ops import cli
from slea.dal import bank
from slea.dal.abilities import TABLE_VARIABLE as ABILITIES_VARIABLE
from slea.dal.conditional import applied
from slea.dal.questions import TABLE_VARIABLE as QUESTIONS_VARIABLE
from slea.dal.wire_format import batch_get, from_item, to_item
from slea.platform.aws import dynamodb
from slea.platform.clock import utc_now
from slea.platform.errors import DataAccessError, storage_errors
from slea.platform.settings import resource_name
from slea.security.exposure import bank_fingerprint, stored_item

TOOL = "bank_fingerprints"
STACK_OUTPUTS = {QUESTIONS_VARIABLE: "QuestionsTableName", ABILITIES_VARIABLE: "AbilitiesTableName"}
PAGE_SIZE = 200  # questions read per Scan page (copies included: most of a busy table)
# What a claim is computed from, and the item's id: a page reads no more of each question.
PROJECTION = "question_id, item_id, item_type, stem, choices, answer_schema, created_at, #status, category"


@dataclass
class Backfill:
    """The counts of a run. `resume`: the --start-after that continues after the last page read
    (None once the whole table was read)."""

    pages: int = 0
    questions: int = 0
    bank_items: int = 0
    claimed: int = 0
    already_held: int = 0
    prints: int = 0
    duplicates: list[dict[str, str]] = field(default_factory=list)
    resume: str | None = None

    def report(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "questions_read": self.questions,
            "bank_items": self.bank_items,
            "claimed": self.claimed,
            "already_held": self.already_held,
            "reference_prints": self.prints,
            "duplicates_found": len(self.duplicates),
            "duplicates": self.duplicates,
            "complete": self.resume is None,
            "resume_after": self.resume,
        }


def _pages(page_size: int, start_after: str | None) -> Iterator[tuple[list[dict[str, Any]], str | None]]:
    """The questions table a page at a time, from after `start_after`: (questions, last key read
    or None at the end)."""
    request: dict[str, Any] = {
        "TableName": resource_name(QUESTIONS_VARIABLE),
        "ProjectionExpression": PROJECTION,
        "ExpressionAttributeNames": {"#status": "status"},
        "Limit": page_size,
    }
    if start_after:
        request["ExclusiveStartKey"] = {"question_id": {"S": start_after}}
    while True:
        response = dynamodb(TOOL).scan(**request)
        last = response.get("LastEvaluatedKey")
        yield [from_item(item) for item in response.get("Items", [])], (str(last["question_id"]["S"]) if last else None)
        if not last:
            return
        request["ExclusiveStartKey"] = last


def _walked[Run: (Backfill, Stale)](
    pages: Iterator[tuple[list[dict[str, Any]], str | None]],
    done: Run,
    progress: Callable[[Run], None] | None,
    max_pages: int | None,
) -> Iterator[list[dict[str, Any]]]:
    """Each page's records, counted in `done`; once the caller has handled a page, `done.resume`
    moves past it and `progress` is told, so a failure mid-page resumes at that page."""
    for records, last in pages:
        done.pages += 1
        yield records
        done.resume = last
        if progress:
            progress(done)
        if max_pages is not None and done.pages >= max_pages:
            return


def is_bank_item(question: dict[str, Any]) -> bool:
    """A question that is its own bank item (a copy carries the id of the item it copies; a record
    that is no question, an item's exemplars or a category's reference prints, has "#" in its id,
    which a question id never holds)."""
    question_id = str(question["question_id"])
    return "#" not in question_id and str(question.get("item_id") or question_id) == question_id


def backfill(
    page_size: int = PAGE_SIZE,
    start_after: str | None = None,
    max_pages: int | None = None,
    dry_run: bool = False,
    progress: Callable[[Backfill], None] | None = None,
) -> Backfill:
    """Claim the stem and key of every bank item that holds none (see the module's docstring)."""
    done = Backfill(resume=start_after)
    seen: dict[str, str] = {}  # a dry run's claims, as if written: a later duplicate finds them
    try:
        for questions in _walked(_pages(page_size, start_after), done, progress, max_pages):
            done.questions += len(questions)
            for question in filter(is_bank_item, questions):
                done.bank_items += 1
                _claim(question, seen if dry_run else None, done)
                done.prints += _leave_print(question, dry_run)
    except (DataAccessError, ClientError, BotoCoreError) as error:
        where = f"--start-after {done.resume}" if done.resume else "no --start-after (from the start)"
        raise cli.CommandError(f"{error}; the claims written stay: run again with {where}") from error
    return done


def _leave_print(question: dict[str, Any], dry_run: bool) -> int:
    """A short-answer item's reference print in its category's record (slea.dal.reference_prints),
    as Tool 5 leaves it for items saved since: 1 if written (or, dry, if it would be)."""
    from slea.dal import reference_prints  # noqa: PLC0415
    from slea.grading.reference_prints import sketch  # noqa: PLC0415

    reference = (question.get("answer_schema") or {}).get("reference_answer")
    if question.get("item_type") != "short_answer" or not reference or not question.get("category"):
        return 0
    hashes = sketch(str(reference))
    if not hashes:
        return 0
    return int(dry_run or reference_prints.add(str(question["category"]), str(question["question_id"]), hashes))


def _claim(question: dict[str, Any], dry_run: dict[str, str] | None, done: Backfill) -> None:
    """Claim the item's stem and key (`dry_run`: only read who holds them, and note the claims a
    run would write there) and count what was found."""
    item_id = str(question["question_id"])
    fingerprint = bank_fingerprint(stored_item(question))
    if dry_run is not None:
        holder = bank.holder(fingerprint, TOOL) or dry_run.get(fingerprint)
        claimed = holder is None
        dry_run.setdefault(fingerprint, item_id)
    else:
        found = bank.claim(fingerprint, item_id, str(question.get("created_at") or utc_now()), TOOL)
        holder, claimed = found.holder, found.written
    if claimed:
        done.claimed += 1
    elif holder == item_id:
        done.already_held += 1
    else:
        done.duplicates.append({"item_id": item_id, "held_by": str(holder)})


@dataclass
class Stale:
    """The claims a --stale run read: held (their item has that stem and key) and stale, and how
    many of those it released."""

    pages: int = 0
    claims: int = 0
    held: int = 0
    stale: list[dict[str, str]] = field(default_factory=list)
    released: int = 0
    resume: str | None = None

    def report(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "claims_read": self.claims,
            "held": self.held,
            "stale_found": len(self.stale),
            "stale": self.stale,
            "released": self.released,
            "complete": self.resume is None,
            "resume_after": self.resume,
        }


def _claim_pages(page_size: int, start_after: str | None) -> Iterator[tuple[list[dict[str, Any]], str | None]]:
    """The bank's claims a page at a time, from after the claim `start_after`."""
    request: dict[str, Any] = {
        "TableName": resource_name(ABILITIES_VARIABLE),
        "KeyConditionExpression": "user_id = :bank AND begins_with(entry, :claim)",
        "ExpressionAttributeValues": {":bank": {"S": bank.COUNTER_PARTITION}, ":claim": {"S": bank.FINGERPRINT_ENTRY}},
        "Limit": page_size,
    }
    if start_after:
        request["ExclusiveStartKey"] = {"user_id": {"S": bank.COUNTER_PARTITION}, "entry": {"S": start_after}}
    while True:
        response = dynamodb(TOOL).query(**request)
        last = response.get("LastEvaluatedKey")
        yield [from_item(item) for item in response.get("Items", [])], (str(last["entry"]["S"]) if last else None)
        if not last:
            return
        request["ExclusiveStartKey"] = last


def _items(item_ids: set[str]) -> dict[str, dict[str, Any]]:
    """The questions of `item_ids` that exist, by id (100 keys a BatchGetItem)."""
    table, found = resource_name(QUESTIONS_VARIABLE), dict[str, dict[str, Any]]()
    ids = sorted(item_ids)
    for start in range(0, len(ids), 100):
        keys = [{"question_id": {"S": item_id}} for item_id in ids[start : start + 100]]
        request = {
            table: {
                "Keys": keys,
                "ProjectionExpression": PROJECTION,
                "ExpressionAttributeNames": {"#status": "status"},
                "ConsistentRead": True,
            }
        }
        items, _ = batch_get(dynamodb(TOOL), request, "bank items batch get")
        found |= {str(item["question_id"]): item for item in map(from_item, items.get(table, []))}
    return found


def _release(entry: str, item: dict[str, Any]) -> bool:
    """Delete the claim `entry` if `item` still holds it and still has the text it was read with
    (an edit since may have given it that stem and key back). False if either changed."""
    fingerprint = entry.removeprefix(bank.FINGERPRINT_ENTRY)
    check: dict[str, Any] = {
        "ConditionCheck": {
            "TableName": resource_name(QUESTIONS_VARIABLE),
            "Key": {"question_id": {"S": str(item["question_id"])}},
            "ConditionExpression": "stem = :stem AND answer_schema = :answer",
            "ExpressionAttributeValues": to_item({":stem": item.get("stem"), ":answer": item.get("answer_schema")}),
        }
    }
    writes = [bank.release(fingerprint, str(item["question_id"])), check]
    with storage_errors("bank claim release"):
        return applied(
            dynamodb(TOOL).transact_write_items, refusal="TransactionCanceledException", TransactItems=writes
        )


def stale_claims(
    page_size: int = PAGE_SIZE,
    start_after: str | None = None,
    max_pages: int | None = None,
    release: bool = False,
    progress: Callable[[Stale], None] | None = None,
) -> Stale:
    """The claims whose item no longer has their stem and key (see the module's docstring),
    released if `release`. A claim whose item is gone is listed, never released (nothing reads as
    it was read)."""
    done = Stale(resume=start_after)
    try:
        for claims in _walked(_claim_pages(page_size, start_after), done, progress, max_pages):
            done.claims += len(claims)
            items = _items({str(claim.get("item_id")) for claim in claims})
            for claim in claims:
                entry, item = str(claim["entry"]), items.get(str(claim.get("item_id")))
                if item is not None and bank.FINGERPRINT_ENTRY + bank_fingerprint(stored_item(item)) == entry:
                    done.held += 1
                    continue
                done.stale.append({"claim": entry, "item_id": str(claim.get("item_id")), "item": _state(item)})
                if release and item is not None and _release(entry, item):
                    done.released += 1
    except (DataAccessError, ClientError, BotoCoreError) as error:
        where = f"--start-after {done.resume}" if done.resume else "no --start-after (from the start)"
        raise cli.CommandError(f"{error}; run again with --stale and {where}") from error
    return done


def _state(item: dict[str, Any] | None) -> str:
    if item is None:
        return "missing"
    return "retired" if item.get("status") == "retired" else "active"


def _stale_progress(done: Stale) -> None:
    resume = f"; resume with --stale --start-after {done.resume}" if done.resume else "; done"
    print(
        f"page {done.pages}: {done.claims} claims, {done.held} held, {len(done.stale)} stale, "
        f"{done.released} released{resume}",
        file=sys.stderr,
    )


def _progress(done: Backfill) -> None:
    resume = f"; resume with --start-after {done.resume}" if done.resume else "; done"
    print(
        f"page {done.pages}: {done.questions} questions, {done.bank_items} bank items, {done.claimed} claimed, "
        f"{done.already_held} already held, {len(done.duplicates)} duplicates{resume}",
        file=sys.stderr,
    )


def _stack(explicit: str | None) -> str | None:
    """The stack to read table names from; None when the environment names both tables."""
    if explicit or os.environ.get("SLEA_STACK"):
        return cli.resolve_stack(explicit)
    if all(os.environ.get(variable) for variable in STACK_OUTPUTS):
        return None
    stack = cli.resolve_stack(None)
    if not stack:
        raise cli.CommandError(
            f"no stack: pass --stack, set SLEA_STACK, or set {' and '.join(STACK_OUTPUTS)}", cli.EXIT_CONFIG
        )
    return stack


def main(argv: list[str] | None = None) -> int:
    parser = cli.argument_parser("slea-bank-fingerprints", __doc__)
    cli.add_aws_options(parser)
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE, help="questions read per page")
    parser.add_argument("--pages", type=int, default=None, help="stop after this many pages (default: all)")
    parser.add_argument("--start-after", default=None, help="the question id a previous run said to resume after")
    parser.add_argument("--dry-run", action="store_true", help="count what would be claimed; write nothing")
    parser.add_argument("--stale", action="store_true", help="list the claims whose item reads otherwise")
    parser.add_argument("--release", action="store_true", help="with --stale: delete those claims")
    args = parser.parse_args(argv)

    def command() -> int:
        if args.page_size < 1 or (args.pages is not None and args.pages < 1):
            raise cli.CommandError("--page-size and --pages must be at least 1", cli.EXIT_CONFIG)
        if args.release and not args.stale:
            raise cli.CommandError("--release goes with --stale", cli.EXIT_CONFIG)
        cli.use_region(args.region)
        stack = _stack(args.stack)
        if stack:
            os.environ.update(cli.stack_outputs(stack, STACK_OUTPUTS))
        if args.stale:
            stale = stale_claims(args.page_size, args.start_after, args.pages, args.release, _stale_progress)
            print(json.dumps(stale.report(), indent=2))
            return 0
        done = backfill(args.page_size, args.start_after, args.pages, args.dry_run, _progress)
        print(json.dumps(done.report() | {"dry_run": args.dry_run}, indent=2))
        return 0

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
