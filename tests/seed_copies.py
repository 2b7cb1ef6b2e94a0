"""The demo seed's tables, loaded once per test process and handed to every later test as they were
loaded, without copying every item each time.

A deep copy of the seeded items (templates carry long Korean and English texts) cost each test
about 0.12 s. Each test now gets tables of its own (new dictionaries: what it puts or deletes is its
own) holding the same item objects, and an item is copied the first time a test changes it in
place. moto changes an item in place in one method only, `DynamoDBBackend.update_item`, which
transactions call too; every other write replaces or removes the item in the table's dictionary.
No other copy-on-write library fits: the items live inside moto's own objects.

A test's fixtures may write to the tables before the seed is put in (`seed`): what they wrote is
the test's own. It is set aside while the seed is loaded or handed out and put back after, under
the seed's items, as loading the seed over it would leave it: it never becomes part of what every
later test is handed, and handing out the seed never takes it away.
"""

import copy
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from moto.dynamodb.models import DynamoDBBackend, Table

# The seeded items of each table (by its logical id), as ops.seed loaded them, never changed.
_LOADED: dict[str, Any] = {}
# Their ids: an item with one of these is shared by every test and is copied before it changes.
_SHARED: set[int] = set()


def loaded() -> bool:
    return bool(_LOADED)


def seed(tables: dict[str, Table], load: Callable[[], object]) -> None:
    """The seed in a test's tables, over what the test wrote there before: `load` puts the seed in
    (the first time in the process; the items it loads are kept), later the kept items are handed out."""
    own = {name: table.items for name, table in tables.items()}
    for table in tables.values():
        table.items = defaultdict(dict)
    try:
        if loaded():
            hand_out(tables)
        else:
            load()
            keep(tables)
    finally:
        for name, table in tables.items():
            _put_back(table, own[name])


def _put_back(table: Table, own: dict[Any, Any]) -> None:
    """The test's own items back in the table; the seed's item wins where both have a key (a put
    of the seed would have replaced the test's)."""
    for hash_value, entry in own.items():
        if table.has_range_key:
            table.items[hash_value] = {**entry, **table.items.get(hash_value, {})}
        elif hash_value not in table.items:
            table.items[hash_value] = entry


def keep(tables: dict[str, Table]) -> None:
    """Remember the tables' items as loaded; the tables themselves get fresh dictionaries, so
    the test that loaded them writes to its own as every later test does."""
    for name, table in tables.items():
        if table.items:
            _LOADED[name] = table.items
            _SHARED.update(id(item) for item in _items_of(table))
    hand_out(tables)


def hand_out(tables: dict[str, Table]) -> None:
    """Give each table its own dictionaries holding the shared seeded items."""
    for name, items in _LOADED.items():
        table = tables[name]
        if table.has_range_key:
            table.items = defaultdict(dict, {key: dict(inner) for key, inner in items.items()})
        else:
            table.items = defaultdict(dict, items)


def _items_of(table: Table) -> list[Any]:
    if table.has_range_key:
        return [item for inner in table.items.values() for item in inner.values()]
    return list(table.items.values())


def _install_copy_on_update() -> None:
    """Once, when this module is imported: before any local cloud starts, so the patches a cloud
    makes for its own life (slea_local.cloud) wrap this one and put it back when they stop."""
    if getattr(DynamoDBBackend.update_item, "copies_shared_items", False):
        return
    update_item = DynamoDBBackend.update_item

    def copying_update_item(
        self: DynamoDBBackend, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any
    ) -> Any:
        _own_copy(self, table_name, key)
        return update_item(self, table_name, key, *args, **kwargs)

    copying_update_item.copies_shared_items = True  # type: ignore[attr-defined]
    DynamoDBBackend.update_item = copying_update_item  # type: ignore[method-assign]


def _own_copy(backend: DynamoDBBackend, table_name: str, key: dict[str, Any]) -> None:
    """Put a copy of a shared seeded item in the table before update_item changes it in place."""
    try:
        table = backend.get_table(table_name)
        hash_value, range_value = backend.get_keys_value(table, key)
        item = table.get_item(hash_value, range_value)
    except Exception:  # an invalid request: update_item raises moto's own error for it
        return
    if item is None or id(item) not in _SHARED:
        return
    if range_value is not None:
        table.items[hash_value][range_value] = copy.deepcopy(item)
    else:
        table.items[hash_value] = copy.deepcopy(item)


_install_copy_on_update()
