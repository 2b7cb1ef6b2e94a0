"""How an answer key names a choice — one rule for Tools 4, 5 and 6.

A key matches a choice when it is its label letter ("C", matching a choice labelled "C)", "C." or
"(C)"; letters are read as labels first), its full text ("C) Both") or its text without the
label ("Both").
When no choice carries a label, a letter key A-E names a choice by position (A = first).
Comparison ignores case and surrounding whitespace.
"""

import re

_LABEL = re.compile(r"^\(?([A-Za-z])[).:]\s*")


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def choice_text(choice: str) -> str:
    """The choice without its label: "C) Both" -> "Both"."""
    label = _LABEL.match(choice.strip())
    return choice.strip()[label.end() :] if label else choice.strip()


def choice_index(key: str, choices: list[str]) -> int | None:
    """Index of the choice `key` names, or None. A single letter is a label first ("C" is the
    choice labelled C even if another choice's text is "C"), then text is compared."""
    wanted = _norm(key)
    if not wanted:
        return None
    labels = [_LABEL.match(choice.strip()) for choice in choices]
    if len(wanted) == 1 and wanted.isalpha():
        for index, label in enumerate(labels):
            if label and wanted == label.group(1).casefold():
                return index
    for index, choice in enumerate(choices):
        if wanted in (_norm(choice), _norm(choice_text(choice))):
            return index
    if not any(labels) and len(wanted) == 1 and "a" <= wanted <= "e":
        position = ord(wanted) - ord("a")
        return position if position < len(choices) else None
    return None


# A true/false answer or key in either language: Korean items are answered 참/거짓, and O/X is
# how Korean tests commonly mark them.
TRUE_WORDS = frozenset({"true", "참", "o", "○", "⭕"})
FALSE_WORDS = frozenset({"false", "거짓", "x", "\u00d7", "\u2715", "\u274c"})  # x, multiplication sign, crosses
TRUE_FALSE_CHOICES = {"en": ["True", "False"], "ko": ["참", "거짓"]}


def truth_value(text: str) -> bool | None:
    """True for True/참/O, False for False/거짓/X (any case, surrounding spaces ignored), else None."""
    word = text.strip().casefold()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def is_true_false_key(key: str) -> bool:
    return truth_value(key) is not None
