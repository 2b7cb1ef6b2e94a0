"""The demo seed's tables, loaded once per test process and handed to every later test as they were
loaded, without copying every item each time.

A deep copy of the seeded items (templates carry long Korean and English texts) cost each test
about 0.12 s. Each test now gets tables of its own (new dictionaries: what it puts or deletes is its
own) holding the same item objects, and an item is copied the first time a test changes it in
place. moto changes an item in place in one method only, `DynamoDBBackend.update_item`, which
transactions call too; every other write replaces or removes the item in the table's dictionary.
No other copy-on-write library fits: the items live inside moto's own objects.
"""

import copy
from collections import defaultdict
from typing import Any

from moto.dynamodb.models import DynamoDBBackend, Table

# The seeded items of each table (by its logical id), as ops.seed loaded them, never changed.
_LOADED: dict[str, Any] = {}
# Their ids: an item with one of these is shared by every test and is copied before it changes.
_SHARED: set[int] = set()


def loaded() -> bool:
    return bool(_LOADED)


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
