"""TransactWriteItems on the local DynamoDB at a cost that does not grow with the tables.

moto's `DynamoDBBackend.transact_write_items` deep-copies every table a transaction names before
it starts, so it can put the copies back if an item fails. Every answer the local stack records is
one transaction over the attempts table, so recording the n-th answer copied the n-1 before it:
time and memory grew with everything stored (a few thousand answers took minutes and gigabytes).

Rather than rewrite moto's transaction (its validation, the order it applies items in, its
per-item conditions and CancellationReasons would then be ours to keep in step with moto), moto's
own method runs unchanged, with two differences:
- before it runs, each item the transaction writes is copied (one item, not its table), and if
  the transaction raises, those items are put back as they were;
- inside it, "copying" one of the transaction's tables yields the live table, so moto's own
  rollback (putting its copies back in place) changes nothing and ours restores the items.

The semantics stay moto's, with one difference on purpose: where moto raises without rolling back
(an entry with two operations found after earlier entries were applied), nothing stays written,
as in DynamoDB. moto 5.2.5 does not implement ClientRequestToken (it is ignored), and neither
does this.

Production never runs this: it only wraps moto, for slea_local and the tests built on it.
"""

import copy
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any
from unittest import mock

from slea_local.patches import Patches, moto_is_reviewed

# The moto release whose transact_write_items this was read against: copying is replaced only
# there (another release may copy or roll back differently; it then keeps its own behaviour,
# with a warning, until someone reads it again and updates this).
REVIEWED_MOTO_VERSION = "5.2.5"
WRITES = ("Put", "Update", "Delete")  # ConditionCheck reads only


@dataclass
class _ItemBefore:
    """One item as it was before the transaction (`item` None: it did not exist)."""

    table: Any  # moto.dynamodb.models.table.Table
    hash_value: Any  # DynamoType
    range_value: Any  # DynamoType | None
    item: Any  # Item | None

    def restore(self) -> None:
        items = self.table.items
        if self.range_value is None:
            if self.item is None:
                items.pop(self.hash_value, None)
            else:
                items[self.hash_value] = self.item
        elif self.item is None:
            items.get(self.hash_value, {}).pop(self.range_value, None)
        else:
            items[self.hash_value][self.range_value] = self.item


@dataclass
class _StreamBefore:
    """A table's stream length before the transaction: moto records a stream event per write,
    and its rollback (a table copy) took them back too."""

    table: Any
    length: int

    def restore(self) -> None:
        shard = self.table.stream_shard
        if shard is not None and len(shard.items) > self.length:
            del shard.items[self.length :]


class FastTransactions:
    """Replaces moto's table copies in TransactWriteItems by copies of the items written.
    `items_copied` and `tables_copied` count what was copied, so tests can assert that the
    cost follows the transaction's size, not the tables'."""

    def __init__(self) -> None:
        self.items_copied = 0
        self.tables_copied = 0
        self._live_tables = threading.local()  # tables moto's copy passes through, per thread
        self._patches = Patches()

    def start(self) -> None:
        from moto.dynamodb import models

        if not moto_is_reviewed(
            "fast_transactions",
            REVIEWED_MOTO_VERSION,
            "local transactions copy whole tables (slow) until it is checked",
        ):
            return
        original = models.DynamoDBBackend.transact_write_items

        def transact_write_items(backend: Any, transact_items: list[dict[str, Any]]) -> None:
            return self._transact(original, backend, transact_items)

        # moto.dynamodb.models calls `copy.deepcopy` for the table copies (and for one item in
        # update_item); its name `copy` is pointed at a namespace that passes the live tables through.
        copy_module = SimpleNamespace(deepcopy=self._deepcopy)
        for patch in (
            mock.patch.object(models.DynamoDBBackend, "transact_write_items", transact_write_items),
            mock.patch.object(models, "copy", copy_module),
        ):
            self._patches.start(patch)

    def stop(self) -> None:
        self._patches.stop()

    @property
    def active(self) -> bool:
        return bool(self._patches)

    # ------------------------------------------------------------------ the transaction
    def _transact(self, original: Callable[..., None], backend: Any, transact_items: list[dict[str, Any]]) -> None:
        before = self._items_before(backend, transact_items)
        if before is None:  # keys we cannot read: moto's own copies keep it correct
            return original(backend, transact_items)
        # every table it names, ConditionCheck's too: moto copies those as well
        named = (request.get("TableName") for entry in transact_items for request in entry.values())
        tables = {id(table): table for table in (backend.tables.get(name) for name in named) if table is not None}
        streams = [
            _StreamBefore(table, len(table.stream_shard.items))
            for table in tables.values()
            if table.stream_shard is not None
        ]
        try:
            with self._passing_through(tables):
                return original(backend, transact_items)
        except BaseException:
            for entry in reversed(before):
                entry.restore()
            for stream in streams:
                stream.restore()
            raise

    def _items_before(self, backend: Any, transact_items: list[dict[str, Any]]) -> list[_ItemBefore] | None:
        """A copy of each item the transaction writes, as it is now; None when an entry's key
        cannot be read (malformed input, which moto then handles with its own table copies)."""
        before: list[_ItemBefore] = []
        for entry in transact_items:
            for operation, request in entry.items():
                if operation not in WRITES:
                    continue
                table = backend.tables.get(request.get("TableName"))
                if table is None:  # moto fails the entry; it writes nothing
                    continue
                try:
                    key = request["Item"] if operation == "Put" else request["Key"]
                    hash_value, range_value = _key_of(table, key)
                    current = table.get_item(hash_value, range_value)
                except Exception:
                    return None
                if current is not None:
                    current = copy.deepcopy(current)  # update_item changes the item in place
                    self.items_copied += 1
                before.append(_ItemBefore(table, hash_value, range_value, current))
        return before

    # ------------------------------------------------------------------ moto's table copies
    @contextmanager
    def _passing_through(self, tables: dict[int, Any]) -> Iterator[None]:
        self._live_tables.ids = set(tables)
        try:
            yield
        finally:
            self._live_tables.ids = set()

    def _deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        if id(value) in getattr(self._live_tables, "ids", ()):
            return value  # the items it writes were copied beforehand
        if type(value).__name__ == "Table":
            self.tables_copied += 1
        return copy.deepcopy(value, memo)


def _key_of(table: Any, attributes: dict[str, Any]) -> tuple[Any, Any]:
    """The item's key as moto's table stores it (a DynamoType per key attribute)."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    hash_value = DynamoType(attributes[table.hash_key_attr])
    range_value = DynamoType(attributes[table.range_key_attr]) if table.range_key_attr is not None else None
    return hash_value, range_value
