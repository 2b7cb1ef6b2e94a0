"""Tool 4's item-writing rules (single best answer, no cues), and its check of an item against the
concept record it was written from. The offline generator follows the same rules
(`slea.llm.offline.generator`); these functions report where an item breaks them.

Cue rule (every item): the key is the only option that shares content words with the stem.

Grounding (an item with a `source` concept), by fuzzy matching (rapidfuzz) against the record:
- multiple choice: the key must be the concept's name, acronym, definition or one of its key
  points; no distractor may be one of them (a second true option);
- true/false: a statement keyed true must state the definition or a key point; one keyed false
  must state neither;
- short answer: every keyword must be a term of the concept's text;
- an acronym shown in the stem must be one the record defines.
Without a source, the offline provider cannot tell whether the key is right ("What is the
capital of France?" keyed "Berlin"): the item is marked unverifiable and goes to revision.
"""

import re

from rapidfuzz import fuzz

from slea.contracts.answers import choice_index, choice_text, truth_value
from slea.contracts.keywords import Concept

SAME_TEXT_RATIO = 85  # rapidfuzz token_set_ratio: the option says what the record says
STATES_RATIO = 90  # rapidfuzz partial_ratio: the statement contains that text

ONLY_KEY_SHARES_STEM_WORDS = (0.15, "Only the key shares content words with the stem; it cues the answer")
KEY_NOT_FROM_SOURCE = (0.4, "The key does not match the source concept")
DISTRACTOR_TRUE_OF_SOURCE = (0.3, "Option {label} is also true of the source concept: two right answers")
STATEMENT_CONTRADICTS_SOURCE = (0.4, "The true/false key contradicts the source concept")
KEYWORD_NOT_IN_SOURCE = (0.1, "Keyword '{keyword}' is not a term of the source concept")
UNDEFINED_ACRONYM = (0.1, "Acronym '{acronym}' is not defined by the source concept")
UNVERIFIABLE = (0.3, "Unverifiable offline: no source concept to check the answer key against")


def _units(text: str) -> set[str]:
    from slea.grading.terms import Text  # noqa: PLC0415 - the word lists load on first use

    return {term.unit for term in Text(text).content_terms}


def cue_problems(stem: str, choices: list[str], key: str | None) -> list[tuple[float, str]]:
    index = choice_index(key or "", choices) if choices else None
    if index is None:
        return []
    stem_units = _units(stem)
    options = [_units(choice_text(choice)) for choice in choices]
    others = [units for position, units in enumerate(options) if position != index]
    if stem_units & options[index] and not any(stem_units & units for units in others):
        return [ONLY_KEY_SHARES_STEM_WORDS]
    return []


def _facts(source: Concept) -> list[str]:
    return [source.definition, *source.key_points]


def _says(text: str, candidates: list[str]) -> bool:
    flat = text.casefold().strip()
    return any(
        fuzz.token_set_ratio(flat, candidate.casefold()) >= SAME_TEXT_RATIO for candidate in candidates if candidate
    )


def _states(statement: str, facts: list[str]) -> bool:
    flat = statement.casefold()
    return any(
        fuzz.partial_ratio(fact.casefold().rstrip("."), flat) >= STATES_RATIO for fact in facts if len(fact) >= 8
    )


def grounding_problems(  # noqa: PLR0917 - the item's own fields, as Tool 4 receives them
    question_type: str, stem: str, choices: list[str], key: str | None, keywords: list[str], source: Concept
) -> list[tuple[float, str]]:
    """Where the item disagrees with the concept record it was written from."""
    found: list[tuple[float, str]] = []
    names = [source.name, source.acronym]
    if question_type == "multiple_choice":
        index = choice_index(key or "", choices)
        if index is not None:
            if not _says(choice_text(choices[index]), [*names, *_facts(source)]):
                found.append(KEY_NOT_FROM_SOURCE)
            for position, choice in enumerate(choices):
                if position != index and _says(choice_text(choice), [*names, *_facts(source)]):
                    label = choice.strip()[:1] if re.match(r"^[A-Za-z][).]", choice.strip()) else str(position + 1)
                    found.append((DISTRACTOR_TRUE_OF_SOURCE[0], DISTRACTOR_TRUE_OF_SOURCE[1].format(label=label)))
    elif question_type == "true_false":
        truth = truth_value(key or "")
        if truth is not None and truth != _states(stem, _facts(source)):
            found.append(STATEMENT_CONTRADICTS_SOURCE)
    elif question_type == "short_answer":
        text = " ".join([source.name, source.acronym, *_facts(source)]).casefold()
        for keyword in keywords:
            if keyword.casefold() not in text:
                found.append((KEYWORD_NOT_IN_SOURCE[0], KEYWORD_NOT_IN_SOURCE[1].format(keyword=keyword)))
    found.extend(_acronym_problems(stem, source))
    return found


def _acronym_problems(stem: str, source: Concept) -> list[tuple[float, str]]:
    from slea.llm.offline.generator import defined_acronym  # noqa: PLC0415 - one rule, one home

    acronym = source.acronym.strip()
    shown = acronym and re.search(rf"\({re.escape(acronym)}\)", stem)
    if shown and not defined_acronym(source):
        return [(UNDEFINED_ACRONYM[0], UNDEFINED_ACRONYM[1].format(acronym=acronym))]
    return []
