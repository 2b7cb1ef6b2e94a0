"""Tool 4's rules are one table, in the lower layer (slea.authoring.item_rules): the use case
that checks them (slea.logic.generation.validation) defines no rule of its own."""

from slea.authoring import item_rules
from slea.logic.generation import validation


def _rules(module: object) -> dict[str, tuple[float, str]]:
    return {
        name: value
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], float)
    }


def test_the_use_case_checks_the_rules_of_the_one_table() -> None:
    used = _rules(validation)
    assert {"STEM_TOO_LONG", "ANSWER_NOT_IN_CHOICES", "NEAR_DUPLICATE", "ABSOLUTE_WORDING"} <= set(used)
    assert all(getattr(item_rules, name, None) is rule for name, rule in used.items())


def test_every_rule_deducts_between_nothing_and_everything_and_says_why() -> None:
    table = _rules(item_rules)
    assert len(table) == 18
    assert all(0.0 <= deduction < 1.0 and issue for deduction, issue in table.values())
