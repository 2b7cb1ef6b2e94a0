"""Writing items: the item-writing rules Tool 4 checks, the signs of a weak question, and the
offline item generator (items from concept records, without a model)."""
