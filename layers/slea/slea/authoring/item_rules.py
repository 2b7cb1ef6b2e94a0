"""Tool 4's item-writing rules (single best answer, no cues, the learner's language) and its check of
an item against the concept record it was written from. The offline generator follows the same
rules (`slea.authoring.offline_generator`); these functions report where an item breaks them, as
(deduction, issue message) pairs.

Cue rules (every multiple-choice item):
- the key is the only option sharing content words with the stem;
- the key is by far the longest option.

Key-term rule (a short answer with a model answer): every expected key term is one the model
answer states, as the grader finds a key term in an answer (`slea.grading.evidence.keywords_stated`:
the term itself, a spelling or inflection of it, an acronym for its expansion; Korean by the bare
term, so "PyTorch" is stated by "PyTorch는"). A term it does not state is one an answer restating
the model answer is told it lacks, and scored down for.

Language rule (when the learner's language is known): an English item has no Hangul; a Korean item
has Hangul in its stem and in most of its options (true/false labels are not counted: Tool 6
accepts True/False as well as 참/거짓).

Grounding (an item with a `source` concept), by fuzzy matching (rapidfuzz) against the record:
- multiple choice: the key must be the concept's name, acronym, definition or one of its key
  points; no distractor may be one of them (a second right answer);
- true/false: a statement keyed true must state the definition or a key point; one keyed false
  must state neither, and must be checkably false: a record lists what holds for its concept, never
  what does not, so a statement that some characteristic "holds for" the concept (the key-point
  frame) cannot be keyed false from it ("'redundant power supplies and cooling systems' holds for
  cloud computing": a data center's key point, true of cloud computing as well). Keyed false, a
  statement must claim what the records settle: that a text is the concept's definition, or a
  characteristic that sets it apart (a sibling's key point, which sets the sibling apart);
- short answer: every keyword must be a term of the concept's text (as the grader finds a key
  term in an answer);
- an acronym shown in the stem must be one the record defines.
Without a source, the offline provider cannot tell whether the key is right ("What is the capital
of France?" keyed "Berlin"): the item is unverifiable and goes to revision (`UNVERIFIABLE`).
"""

import re

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from slea.authoring.question_quality import lengths_unequal
from slea.constants import HANGUL, Language, QuestionType
from slea.contracts.answers import choice_index, choice_text, truth_value
from slea.contracts.keywords import Concept

Problem = tuple[float, str]

SAME_TEXT_RATIO = 85  # rapidfuzz ratio: the option says what the record says
STATES_RATIO = 90  # rapidfuzz partial_ratio: the statement contains that text
# Shorter facts ("Yes") match inside anything; Korean packs a fact into fewer characters ("낮을수록 좋음").
FACT_MIN_LENGTH = {"en": 8, "ko": 4}

# Tool 4's one table of rules, (deduction, issue message) per rule: the spec's table, then checks
# of our own (these two checked by slea.logic.generation.validation.rule_check), then the rules
# described above (checked by the functions below; grounding by the offline semantic review).
STEM_TOO_LONG = (0.2, "Stem length exceeds maximum")
WRONG_CHOICE_COUNT = (0.2, "Invalid number of choices")
ANSWER_NOT_IN_CHOICES = (0.3, "Correct answer not found in choices")
DUPLICATE_CHOICES = (0.15, "Duplicate choices detected")
NEAR_DUPLICATE = (0.2, "Near-duplicate of {other}")
CATCH_ALL_CHOICE = (0.1, "Avoid 'all of the above' / 'none of the above' choices")
UNEQUAL_LENGTHS = (0.0, "Choice lengths are very unequal; length can cue the answer")
ABSOLUTE_WORDING = (0.0, "Absolute words (always/never) in choices can cue the answer")
ONLY_KEY_SHARES_STEM_WORDS = (0.15, "Only the key shares content words with the stem; it cues the answer")
KEY_IS_LONGEST = (0.1, "The key is by far the longest option; its length cues the answer")
WRONG_LANGUAGE = (0.3, "Not written in the learner's language ({language}); no mixed-language items")
KEY_NOT_FROM_SOURCE = (0.4, "The key does not match the source concept")
DISTRACTOR_TRUE_OF_SOURCE = (0.3, "Option {label} is also true of the source concept: two right answers")
STATEMENT_CONTRADICTS_SOURCE = (0.4, "The true/false key contradicts the source concept")
STATEMENT_NOT_CHECKABLY_FALSE = (
    0.4,
    "The statement is keyed false, but the source concept's record cannot show it false: a characteristic"
    ' ("... holds for ...") may be true of the concept without being one of its key points',
)
# Enough that one such term keeps the item from passing (revise) and two reject it: each costs a
# learner who restates the model answer its share of the key-concept points and names a term the
# item's own model answer never uses.
KEY_TERM_NOT_IN_REFERENCE = (0.2, "Key term '{keyword}' is not stated by the reference answer")
KEYWORD_NOT_IN_SOURCE = (0.1, "Keyword '{keyword}' is not a term of the source concept")
UNDEFINED_ACRONYM = (0.1, "Acronym '{acronym}' is not defined by the source concept")
UNVERIFIABLE = "Unverifiable offline: no source concept to check the answer key against"


def _units(text: str) -> set[str]:
    from slea.grading.terms import Text  # noqa: PLC0415 - its word lists load on first use

    return {term.unit for term in Text(text).content_terms}


def _label(choice: str, position: int) -> str:
    return choice.strip()[:1] if re.match(r"^[A-Za-z][).]", choice.strip()) else str(position + 1)


def cue_problems(stem: str, choices: list[str], key: str | None) -> list[Problem]:
    """Surface cues a test-wise learner uses to pick the key without knowing the answer."""
    index = choice_index(key or "", choices) if choices else None
    if index is None:
        return []
    found = []
    texts = [choice_text(choice) for choice in choices]
    stem_units = _units(stem)
    options = [_units(text) for text in texts]
    others = [units for position, units in enumerate(options) if position != index]
    if stem_units & options[index] and not any(stem_units & units for units in others):
        found.append(ONLY_KEY_SHARES_STEM_WORDS)
    longest_other = max((len(text) for position, text in enumerate(texts) if position != index), default=0)
    if len(texts[index]) > longest_other and lengths_unequal(texts):
        found.append(KEY_IS_LONGEST)
    return found


def key_term_problems(question_type: QuestionType, keywords: list[str], reference: str | None) -> list[Problem]:
    """A short answer's key terms that its model answer does not state (none to check without a
    model answer: the grader then scores by the key terms alone)."""
    if question_type != "short_answer" or not keywords or not (reference or "").strip():
        return []
    from slea.grading.evidence import keywords_stated  # noqa: PLC0415 - its word lists load on first use

    stated = set(keywords_stated(reference or "", keywords))
    deduction, issue = KEY_TERM_NOT_IN_REFERENCE
    return [(deduction, issue.format(keyword=keyword)) for keyword in keywords if keyword not in stated]


def language_problems(language: Language | None, stem: str, choices: list[str], keywords: list[str]) -> list[Problem]:
    if language is None:
        return []
    # True/false labels are answers, not text: Tool 6 accepts True/False in either language.
    options = [choice_text(choice) for choice in choices if truth_value(choice_text(choice)) is None]
    if language == "en":
        written_in_it = not any(HANGUL.search(text) for text in [stem, *options, *keywords])
    else:
        in_korean = sum(bool(HANGUL.search(text)) for text in options)
        written_in_it = bool(HANGUL.search(stem)) and in_korean * 2 >= len(options)
    if written_in_it:
        return []
    return [(WRONG_LANGUAGE[0], WRONG_LANGUAGE[1].format(language=language))]


def _facts(source: Concept) -> list[str]:
    return [source.definition, *source.key_points]


def _says(text: str, source: Concept) -> bool:
    """The option is the concept's name or acronym (exactly: "QLoRA" is not "LoRA"), or says what
    its definition or a key point says (nearly the same text as a whole; a subset of its words, as
    token-set matching would accept, is not enough: "Fine-tuning" is no key point of LoRA)."""
    option = default_process(text)
    if option in {default_process(name) for name in (source.name, source.acronym) if name.strip()}:
        return True
    return any(fuzz.ratio(option, default_process(fact)) >= SAME_TEXT_RATIO for fact in _facts(source))


def _states(statement: str, facts: list[str]) -> bool:
    flat = statement.casefold()
    return any(
        fuzz.partial_ratio(fact.casefold().strip().rstrip("."), flat) >= STATES_RATIO
        for fact in facts
        if len(fact.strip()) >= FACT_MIN_LENGTH["ko" if HANGUL.search(fact) else "en"]
    )


def _frame_pattern(phrasing: str) -> re.Pattern[str]:
    """A frame's phrasing as a pattern: its placeholders match any text."""
    parts = re.split(r"\{\w+\}", phrasing)
    return re.compile("^" + "(.+?)".join(re.escape(part.strip()) for part in parts) + "$", re.DOTALL)


# Statements that a characteristic merely "holds for" the concept (as generators phrase them):
# the record can confirm one but never refute it. The offline generator's own key-point frame
# claims a characteristic sets the concept apart, which a sibling's record settles.
HOLDS_FOR_PHRASINGS = ('True or False: "{point}" holds for {name}.', '참/거짓: "{point}"은(는) {name}에 해당한다.')
CHARACTERISTIC_FRAMES = tuple(_frame_pattern(phrasing) for phrasing in HOLDS_FOR_PHRASINGS)


def claims_a_characteristic(stem: str) -> bool:
    """The statement says that something holds for the concept (the key-point frame, either
    language): a claim its record can confirm (a key point) but never refute."""
    return any(pattern.match(stem.strip()) for pattern in CHARACTERISTIC_FRAMES)


def true_false_problems(stem: str, key: str | None, source: Concept) -> list[Problem]:
    """A true/false key checked against the record: keyed true, the statement states the concept's
    definition or a key point; keyed false, it states neither and is checkably false (no
    characteristic claim, which the record can confirm but never refute)."""
    truth = truth_value(key or "")
    if truth is None:
        return []
    states = _states(stem, _facts(source))
    if truth != states:
        return [STATEMENT_CONTRADICTS_SOURCE]
    if not truth and claims_a_characteristic(stem):
        return [STATEMENT_NOT_CHECKABLY_FALSE]
    return []


def grounding_problems(  # noqa: PLR0917 - the item's own fields, as Tool 4 receives them
    question_type: QuestionType,
    stem: str,
    choices: list[str],
    key: str | None,
    keywords: list[str],
    source: Concept,
) -> list[Problem]:
    """Where the item disagrees with the concept record it was written from."""
    found: list[Problem] = []
    if question_type == "multiple_choice":
        index = choice_index(key or "", choices)
        if index is not None:
            if not _says(choice_text(choices[index]), source):
                found.append(KEY_NOT_FROM_SOURCE)
            for position, choice in enumerate(choices):
                if position != index and _says(choice_text(choice), source):
                    label = _label(choice, position)
                    found.append((DISTRACTOR_TRUE_OF_SOURCE[0], DISTRACTOR_TRUE_OF_SOURCE[1].format(label=label)))
    elif question_type == "true_false":
        found.extend(true_false_problems(stem, key, source))
    else:
        found.extend(_keywords_not_in_source(keywords, source))
    found.extend(_acronym_problems(stem, source))
    return found


def _keywords_not_in_source(keywords: list[str], source: Concept) -> list[Problem]:
    """Keywords the concept's text does not mention, as the grader finds a keyword in an answer
    ("Problem Solving" is a term of "Problem-Solving Approach")."""
    from slea.grading.evidence import keywords_stated  # noqa: PLC0415 - its word lists load on first use

    stated = set(keywords_stated(" ".join([source.name, source.acronym, *_facts(source)]), keywords))
    deduction, issue = KEYWORD_NOT_IN_SOURCE
    return [(deduction, issue.format(keyword=keyword)) for keyword in keywords if keyword not in stated]


def defined_acronym(concept: Concept) -> str:
    """The concept's acronym if the concept's own text uses it (its name, definition or key
    points), the source Tool 4 checks an item against. An acronym the record merely asserts
    ("Quantization (QNT)", "Cloud Computing (CC)") is not shown: initials alone do not make a term
    people use."""
    acronym = concept.acronym.strip()
    if not acronym or acronym.casefold() == concept.name.strip().casefold():
        return ""
    text = " ".join([concept.name, concept.definition, *concept.key_points])
    if re.search(rf"(?<!\w){re.escape(acronym)}(?!\w)", text):
        return acronym
    return ""


def _acronym_problems(stem: str, source: Concept) -> list[Problem]:
    acronym = source.acronym.strip()
    shown = acronym and re.search(rf"\({re.escape(acronym)}\)", stem)
    if shown and not defined_acronym(source):
        return [(UNDEFINED_ACRONYM[0], UNDEFINED_ACRONYM[1].format(acronym=acronym))]
    return []
