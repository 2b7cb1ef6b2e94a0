"""How an answer key names a choice — one rule for Tools 4, 5 and 6.

A key matches a choice when it is its label letter ("C", matching a choice labelled "C)", "C." or
"(C)"; letters are read as labels first), its full text ("C) Both") or its text without the
label ("Both").
When no choice carries a label, a letter key A-E names a choice by position (A = first).
Comparison ignores case and surrounding whitespace.
"""

import random
import re

_LABEL = re.compile(r"^\(?([A-Za-z])[).:]\s*")
LABELS = "ABCDE"


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


def _labelled_in_order(choices: list[str]) -> bool:
    """Every choice carries its position's label: "A) ...", "B) ...", ..."""
    labels = [_LABEL.match(choice.strip()) for choice in choices]
    return all(label is not None and label.group(1).upper() == LABELS[index] for index, label in enumerate(labels))


def shuffle_choices(choices: list[str], key: str, rng: random.Random) -> tuple[list[str], str]:
    """The choices in the order `rng` draws and the key naming the same choice as before.

    Labelled choices ("A) x", "B) y", ... in order) are relabelled by their new position and the
    key becomes the new letter (the form drafts use). Otherwise each choice keeps its text: a key
    that is a choice's text or label still names it, a letter naming a choice by position moves
    with it. An item whose key names no choice, or with more than five choices, is returned as it
    is (Tools 4 and 5 reject it)."""
    keyed = choice_index(key, choices)
    if keyed is None or not 2 <= len(choices) <= len(LABELS):
        return choices, key
    order = list(range(len(choices)))
    rng.shuffle(order)
    position = order.index(keyed)
    if _labelled_in_order(choices):
        return [f"{LABELS[new]}) {choice_text(choices[old])}" for new, old in enumerate(order)], LABELS[position]
    reordered = [choices[old] for old in order]
    named_by_position = not any(_LABEL.match(choice.strip()) for choice in choices) and not any(
        _norm(key) in (_norm(choice), _norm(choice_text(choice))) for choice in choices
    )
    return reordered, LABELS[position] if named_by_position else key


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
