"""The use cases, one subpackage per area: each reads what it needs once (dal/), decides with
the pure packages and writes once. Domain refusals are raised as slea.platform.errors classes;
the entry points map them."""
