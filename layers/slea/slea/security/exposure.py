"""What a session has shown decides what it may ask next: one rule, used where a round's items are
chosen (the bank draw, the offline generator, the collection of every generation pass).

A learner who has read an item's key, explanation or feedback can answer a later item that tests
the same concept, or eliminate its options that they now recognise as other concepts'. So, for a
new item, judged against every item the session has shown (`SessionExposure.shown`) and those
already chosen for the round:
- never the same question: the same stem (case, spacing and punctuation aside), nor, in a practice
  round, an item of the learner's recent sessions (the same stem, or the same concept with the
  same key: `fingerprints`; a regenerated item has a new id but not a new stem);
- one item per concept per session: its concept is none the session has tested (answered or
  not), nor one an answer's feedback named (the option picked);
- nothing an answered item showed answers it: no stem, key, explanation or model answer gives its
  key away (the claims of security/key_leaks.py, the same matcher as the show-time guard), and
  none of its options (a true/false item: its statement) is a concept told so, by name or by
  definition (a learner picks or eliminates it without knowing the item);
- nothing shown earlier cues it: none of its options' concepts (nor its own) is one an earlier item
  of the session keyed, and none's definition is text the session showed before this round (an
  earlier stem or option, or an answer's explanation): a learner eliminates a distractor, or spots
  the key, whose definition they have read (`_cued`, judged against the items the session held
  before the round, never relaxed);
- preferred while the record allows (`strict`, kept by the offline generator and the bank draw):
  the same for the items not answered yet, whose keys will be told and whose other options their
  feedback may name: neither the new item's concept nor its options are among them.
"""

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from slea.contracts.answers import choice_index, choice_text
from slea.contracts.exposure import Fact, SessionExposure, ShownItem
from slea.dal.question_records import StoredQuestion, stored_question

if TYPE_CHECKING:  # saving a question (Tool 5, the retry worker) needs neither: see SessionContext
    from slea.contracts.generation import DraftQuestion
    from slea.security.key_leaks import KeyedItem

# Fingerprints kept per learner and category (two per item): the items of about the last ten
# sessions of ten items. A practice round avoids them; older ones may come back.
RECENT_MAX = 200
SUBJECT_MAX_LENGTH = 80  # a stored explanation's head longer than this is a sentence, not a name
KEY_FINGERPRINT_MIN_LENGTH = 20  # a key this long (a definition) identifies the item without a concept
WORD = re.compile(r"\w+")
CUE_DEFINITION_WORDS = 4  # a definition this long, found in what the session showed, was shown


def normalised(text: str) -> str:
    """Text compared as a learner reads it: case, width, spacing and punctuation aside."""
    return " ".join(WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def _digest(kind: str, text: str) -> str:
    return f"{kind}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def key_of(item: ShownItem) -> str:
    if item.type == "short_answer":
        return ", ".join(sorted(normalised(keyword) for keyword in item.correct_keywords))
    if item.type == "multiple_choice" and item.choices:
        index = choice_index(item.correct_answer or "", item.choices)
        if index is not None:
            return normalised(choice_text(item.choices[index]))
    return normalised(item.correct_answer or "")


def fingerprints(item: ShownItem) -> list[str]:
    """The item's identity beyond its id: its stem, and its concept with its key (the same concept
    keyed the same way under a new lead-in is the same item)."""
    found = [_digest("stem", normalised(item.stem))]
    key = key_of(item)
    if item.concept:
        found.append(_digest("concept", f"{normalised(item.concept)}|{item.type}|{key}"))
    elif len(key) >= KEY_FINGERPRINT_MIN_LENGTH:
        found.append(_digest("key", f"{item.type}|{key}"))
    return found


def bank_fingerprint(item: ShownItem) -> str:
    """The item's identity in the bank: its stem and its key (with its type), compared as a learner
    reads them. The bank keeps one item per fingerprint (dal/bank.py `join`): a second item with
    the same stem and key, whatever its id, is a copy of the first."""
    return _digest("bank", f"{item.type}|{normalised(item.stem)}|{key_of(item)}")


def recent(earlier: Iterable[str], items: Iterable[ShownItem]) -> list[str]:
    """The learner's recent fingerprints with those of `items` added, newest last, bounded."""
    kept = [fingerprint for fingerprint in earlier if fingerprint]
    for item in items:
        for fingerprint in fingerprints(item):
            if fingerprint in kept:
                kept.remove(fingerprint)
            kept.append(fingerprint)
    return kept[-RECENT_MAX:]


def _explanation_head(explanation: str) -> str | None:
    head, colon, _ = explanation.partition(":")
    head = head.strip()
    return head if colon and 0 < len(head) <= SUBJECT_MAX_LENGTH else None


def stored_item(question: Mapping[str, Any], picked: str | None = None, answered: bool = False) -> ShownItem:
    """`shown_question` of a question item not read from the table (one being saved, an
    operator's scan)."""
    return shown_question(stored_question(question), picked, answered)


def shown_question(question: StoredQuestion, picked: str | None = None, answered: bool = False) -> ShownItem:
    """A stored question (a session's, or a bank item) as the learner meets it. Its concept: the
    keyed option's note, else the name its stored explanation opens with. Its facts: that concept,
    and, once answered, the option picked (what the feedback may name); before, every option's."""
    key = question.answer_schema
    choices = list(question.choices or ())
    notes = {
        normalised(str(note.get("option", ""))): Fact(name=str(note["concept"]), definition=str(note["definition"]))
        for note in key.choice_notes
        if note.get("concept")
    }
    keyed = choice_index(key.correct_key or "", choices) if choices else None
    own = notes.get(normalised(choice_text(choices[keyed]))) if keyed is not None else None
    explanation = key.explanation or ""
    concept = own.name if own else _explanation_head(explanation)
    facts = [own or Fact(name=concept, definition=explanation.partition(":")[2].strip())] if concept else []
    if answered:  # the feedback named the option picked, if it was another concept
        index = choice_index(picked or "", choices) if choices and picked else None
        told = [notes.get(normalised(choice_text(choices[index])))] if index is not None else []
    else:
        told = list(notes.values())
    facts += [fact for fact in told if fact is not None and fact not in facts]
    return ShownItem(
        type=question.item_type or "multiple_choice",
        stem=question.stem,
        choices=choices,
        correct_answer=key.correct_key,
        correct_keywords=list(key.correct_keywords or ()),
        reference_answer=key.reference_answer or "",
        explanation=explanation,
        concept=concept,
        facts=facts,
        answered=answered,
    )


def drafted_item(draft: "DraftQuestion") -> ShownItem:
    """A generated draft as the session will show it: its concept record's name, and every
    option's concept (none is answered yet)."""
    source = draft.source
    facts = [Fact(name=source.name, definition=source.definition)] if source else []
    facts += [Fact(name=note.concept, definition=note.definition) for note in draft.choice_notes]
    return ShownItem(
        type=draft.type,
        stem=draft.stem,
        choices=list(draft.choices),
        correct_answer=draft.correct_answer,
        correct_keywords=list(draft.correct_keywords),
        reference_answer=draft.reference_answer,
        explanation=draft.explanation,
        concept=source.name if source else None,
        facts=list({fact.name: fact for fact in facts}.values()),
    )


class _Matcher:
    """The key-leak matcher's pieces this module uses (security/key_leaks.py)."""

    __slots__ = ("gives_away", "item", "stated_by")

    def __init__(
        self,
        item: "type[KeyedItem]",
        stated_by: "Callable[[KeyedItem, str], bool]",
        gives_away: "Callable[[KeyedItem, KeyedItem], bool]",
    ) -> None:
        self.item = item
        self.stated_by = stated_by
        self.gives_away = gives_away


def _matcher() -> _Matcher:
    """The key-leak matcher, loaded by the first judgement (see SessionContext)."""
    from slea.security import key_leaks  # noqa: PLC0415 - listed in slea.platform.deferred_imports

    return _Matcher(key_leaks.KeyedItem, key_leaks.stated_by, key_leaks.gives_away)


def keyed(item: ShownItem) -> "KeyedItem":
    return _matcher().item(
        question_type=item.type,
        stem=item.stem,
        choices=tuple(item.choices),
        correct_answer=item.correct_answer,
        correct_keywords=tuple(item.correct_keywords),
        reference_answer=item.reference_answer or None,
        explanation=item.explanation or None,
    )


def _fact_item(fact: Fact) -> "KeyedItem":
    """A fact as an item keyed on its definition: the claims that recognise the definition."""
    return _matcher().item(
        question_type="multiple_choice", stem=fact.name, choices=(f"A) {fact.definition}",), correct_answer="A"
    )


@dataclass
class SessionContext:
    """The session's items and what they may have told, and the judgement of a new item. The
    key-leak matcher (security/key_leaks.py) is loaded by the first judgement, not with this
    module: saving a question uses only its fingerprints."""

    exposure: SessionExposure
    stems: set[str] = field(default_factory=set)
    tested: set[str] = field(default_factory=set)  # concepts tested, or named by an answer's feedback
    names: set[str] = field(default_factory=set)  # those and the concepts feedback may still name
    told_names: set[str] = field(default_factory=set)  # what answered items' keys and feedback told
    told: "list[KeyedItem]" = field(default_factory=list)  # their definitions, and their long keys
    definitions: "list[KeyedItem]" = field(default_factory=list)  # those and the ones feedback may still tell
    shown: "list[tuple[KeyedItem, bool]]" = field(default_factory=list)  # with: was it answered
    recent: frozenset[str] = frozenset()
    earlier_keyed: set[str] = field(default_factory=set)  # concepts the items before this round keyed
    earlier_text: list[str] = field(default_factory=list)  # what those showed, normalised

    def __post_init__(self) -> None:
        self.recent = frozenset(self.exposure.recent) if self.exposure.practice else frozenset()
        for item in self.exposure.shown:
            self.add(item)
            if item.concept:
                self.earlier_keyed.add(normalised(item.concept))
            told = [item.explanation, item.reference_answer] if item.answered else []
            self.earlier_text += [normalised(text) for text in (item.stem, *_options(item), *told) if text]

    def add(self, item: ShownItem) -> None:
        """`item` is now in the session (shown, drawn or accepted for the round). Its key is told
        (or will be, once answered); what its feedback named of an answer, too; before an answer,
        any of its options may yet be."""
        self.stems.add(normalised(item.stem))
        facts = list(item.facts)
        if item.concept and all(normalised(fact.name) != normalised(item.concept) for fact in facts):
            facts.append(Fact(name=item.concept))
        key = key_of(item)
        if item.type == "multiple_choice" and len(key) >= KEY_FINGERPRINT_MIN_LENGTH:
            facts.append(Fact(name=item.concept or "", definition=key))
        for fact in facts:
            name = normalised(fact.name)
            if name:
                self.names.add(name)
                if item.answered or name == normalised(item.concept or ""):
                    self.tested.add(name)  # one item per concept: an item's own, answered or not
                if item.answered:
                    self.told_names.add(name)
            if fact.definition.strip():
                self.definitions.append(_fact_item(fact))
                if item.answered:
                    self.told.append(self.definitions[-1])
        self.shown.append((keyed(item), item.answered))

    def recognises(self, text: str, possible: bool = True, statement: bool = False) -> bool:
        """Is `text` a concept the learner has been (`possible`: may be) told about, by name or by
        definition? An option is one when it and the definition state each other (two definitions
        of one domain share many words, and one alone is no cue); a `statement` (true/false:
        "Name is ...") when it states the definition."""
        stated_by = _matcher().stated_by
        names, definitions = (self.names, self.definitions) if possible else (self.told_names, self.told)
        if normalised(text) in names:
            return True
        found = [definition for definition in definitions if stated_by(definition, text)]
        if statement or not found:
            return bool(found)
        option = _fact_item(Fact(name="", definition=text))
        return any(stated_by(option, definition.key_text) for definition in found)

    def conflict(self, item: ShownItem, strict: bool = True) -> str | None:
        """Why `item` may not join the session now, or None."""
        return (
            self._repeat(item)
            or self._answerable(item)
            or self._cued(item)
            or (self._recognisable(item) if strict else None)
        )

    def _cued(self, item: ShownItem) -> str | None:
        """An option (or the item's own concept) an earlier item keyed, or whose definition the
        session showed before this round."""
        if item.type != "multiple_choice":
            return None
        own = normalised(item.concept or "")
        for fact in item.facts:
            name = normalised(fact.name)
            if name and name != own and name in self.earlier_keyed:
                return f"An option is a concept an earlier item of this session keyed: {fact.name}"
            definition = normalised(fact.definition)
            if len(definition.split()) >= CUE_DEFINITION_WORDS and any(
                definition in text for text in self.earlier_text
            ):
                return f"An option's definition was shown earlier in this session: {fact.name}"
        return None

    def _repeat(self, item: ShownItem) -> str | None:
        if normalised(item.stem) in self.stems:
            return "Repeats a question of this session"
        if self.recent and self.recent & set(fingerprints(item)):
            return "Repeats a question the learner met in a recent session"
        if item.concept and normalised(item.concept) in self.tested:
            return f"Tests a concept this session already tested or explained: {item.concept}"
        return None

    def _answerable(self, item: ShownItem) -> str | None:
        gives_away = _matcher().gives_away
        candidate = keyed(item)
        # What an answered item showed. (Items not answered yet are the show-time guard's and the
        # writer's concern: security/key_leaks.py holds back what would answer another, and the
        # offline generator keeps a round's items from giving each other away while it can.)
        if any(gives_away(shown, candidate) for shown, answered in self.shown if answered):
            return "Answerable from what this session has already shown"
        if any(self.recognises(text, False, item.type == "true_false") for text in _options(item)):
            return "An option is a concept this session explained: it is picked or eliminated unseen"
        return None

    def _recognisable(self, item: ShownItem) -> str | None:
        """The preference the generator and the bank draw keep while they can."""
        if item.concept and normalised(item.concept) in self.names:
            return f"Tests a concept an option of this session may have explained: {item.concept}"
        if any(self.recognises(text, True, item.type == "true_false") for text in _options(item)):
            return "An option is a concept an option of this session may have explained"
        return None


def _options(item: ShownItem) -> list[str]:
    """What a learner matches against what they know: the options, or a true/false statement."""
    if item.type == "multiple_choice":
        return [choice_text(choice) for choice in item.choices]
    return [item.stem] if item.type == "true_false" else []
