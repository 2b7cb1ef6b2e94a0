"""What a learner is shown after an answer must not give away the key of an item of the same
session they have not answered yet (this happened: the explanation of a comparison item quoted the
definition another item was keyed on).

An item's key material is a set of claims, each a bag of weighted content terms (Snowball stems or
Korean bigrams, weighted by rarity: `slea.grading.terms`) that, found together in one paragraph,
give the key away:
- multiple choice: the keyed choice's text; when the key is a name (a concept, a product), the
  name together with what the stem says about it (the definition or situation it quotes), since
  the name alone is in many texts and only its association with the stem answers the item;
- true/false: the statement (an explanation restating it tells that it is true) and the first
  sentence of the item's stored explanation, the fact that decides it (an explanation stating
  that fact tells whether the statement agrees);
- short answer: each sentence of the reference answer (the stored explanation if none), and the
  keywords together with the item's subject.
Where the stored explanation names the item's concept first ("Name: definition", as the offline
generator writes it), the name is left out of true/false and short-answer claims (and required
with the keywords): names recur in other items' stems and keys and alone reveal nothing.
A paragraph reveals a claim when it holds every required term (the name) and at least
REVEAL_COVERAGE of the claim's weight. Frame words every stem has ("which", "describes", "true or
false") are left out of claims, and a claim too light to be distinctive is dropped.

The check withholds, paragraph by paragraph, the sentence that carries most of a revealed claim
until no claim is revealed. While any other item is open the caller adds one note in the learner's
language in a field of its own (`KeyGuard.note`: ScoreAnswerOutput.held_back_note, which a page says
once per round, never inside the explanation), whether or not text was taken
out (a note only when it was would say this explanation touches a question still to come), never
beside a paragraph: a note there would point at the paragraph that holds an unanswered item's claim.
The learner's own item is always explained: a claim its own key states anyway (two items keyed on
the same fact) is not held back, and if a sentence that stated the own key had to go (it stated
another item's key too), the own key is stated again on its own. What the page shows already (the
learner's own answer, quoted) is never held back: holding it back would tell that it states a key."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING

from slea.constants import Language
from slea.contracts.answers import TRUE_FALSE_CHOICES, choice_index, choice_text
from slea.dal.question_records import StoredQuestion
from slea.language.detect import question_language
from slea.language.item_frames import FRAMES

if TYPE_CHECKING:  # a type only: the round pipeline loads this module, never the scoring contracts
    from slea.contracts.scoring import ReferenceLink

# Measured on generated rounds (bench/key_leaks.py): the share of a claim's weight one paragraph
# must hold to give the key away.
REVEAL_COVERAGE = 0.6
# A claim without a required name that weighs less than this (two or three ordinary words) is in
# any text on the topic and would withhold it all.
MIN_CLAIM_WEIGHT = 1.5
NAME_MAX_WORDS = 4  # a keyed choice this short is a name, which reveals only with the stem's content
SUBJECT_MAX_LENGTH = 80  # a stored explanation's head longer than this is a sentence, not a name
# The withheld text is kept with the attempt and shown in the answer history once the items it
# could give away are answered or can no longer be (logic/sessions/history.py): the note says so.
# It is said after every answer while another item of the round is open, whether or not anything
# was held back: a note shown only when something was would tell the learner that this item's
# explanation touches a question still to come.
NOTE: dict[Language, str] = {
    "en": (
        "(Anything in this explanation that would answer a question still open in this round is held"
        " back until you have answered the rest of the round, or the round is over; your answer history"
        " then shows it in full.)"
    ),
    "ko": (
        "(이 설명 가운데 이번 라운드에서 아직 답하지 않은 문항의 답이 될 만한 부분은 이번 라운드의 나머지"
        " 문항에 답한 뒤에, 또는 라운드가 끝나면 답안 기록에서 모두 보여 드립니다.)"
    ),
}
OWN_KEY: dict[Language, str] = {"en": "The answer to this question: {key}.", "ko": "이 문항의 정답: {key}"}
PARAGRAPH = re.compile(r"\n\s*\n")
# A sentence ends at . ! ? (or a line break) followed by space; "e.g. x" splits too, which only
# makes the withheld unit smaller.
SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n")
PLACEHOLDER = re.compile(r"\{\w+\}")

Units = Mapping[str, float]


@lru_cache(maxsize=65536)  # words recur across stems, choices and explanations
def _word_units(word: str) -> tuple[tuple[str, float], ...]:
    """The content units of one word (its stem, or its Korean bigrams) with their weights. The
    term module (stemmer, word frequencies) loads on the first check, not when grading is
    imported."""
    from slea.grading.terms import Text  # noqa: PLC0415

    return tuple((term.unit, term.weight) for term in Text(word).content_terms)


@lru_cache(maxsize=4096)  # stems and explanation sentences recur across answers
def _units(text: str) -> Units:
    """Content units of `text` with their weight: the terms of `slea.grading.terms` (they are
    worked out word by word, so a word's are cached)."""
    from slea.grading.terms import TOKEN  # noqa: PLC0415

    found: dict[str, float] = {}
    for word in TOKEN.findall(text):
        for unit, weight in _word_units(word):
            found[unit] = max(found.get(unit, 0.0), weight)
    return found


@cache
def frame_units() -> frozenset[str]:
    """Words of the item and explanation frames in both languages (placeholders removed), and
    the true/false answer words: in every stem, so no evidence of any one key."""
    phrasings = " ".join(
        PLACEHOLDER.sub(" ", phrasing)
        for frames in FRAMES.values()
        for options in frames.values()
        for phrasing in options
    )
    words = " ".join(word for choices in TRUE_FALSE_CHOICES.values() for word in choices)
    return frozenset(_units(f"{phrasings} {words}"))


def _without(units: Units, left_out: frozenset[str] | Units) -> dict[str, float]:
    return {unit: weight for unit, weight in units.items() if unit not in left_out}


def _sentences(text: str) -> list[str]:
    return [sentence for sentence in SENTENCE_END.split(text) if sentence.strip()]


@dataclass(frozen=True)
class Claim:
    """Terms whose presence together in one paragraph gives a key away."""

    units: Units
    required: frozenset[str] = frozenset()

    @cached_property
    def weight(self) -> float:
        return sum(self.units.values())

    def covered(self, present: Units | set[str]) -> float:
        return sum(weight for unit, weight in self.units.items() if unit in present)

    def revealed_by(self, present: Units | set[str]) -> bool:
        # Asked of every claim for every paragraph shown: the required units are looked up one by
        # one, not by copying `present` into a set at each question.
        if self.weight <= 0 or not all(unit in present for unit in self.required):
            return False
        return self.covered(present) >= REVEAL_COVERAGE * self.weight


def _claim(units: Units, required: frozenset[str] = frozenset()) -> Claim | None:
    units = _without(units, frame_units())
    if not required and sum(units.values()) < MIN_CLAIM_WEIGHT:
        return None
    return Claim(units, required)


@dataclass(frozen=True)
class KeyedItem:
    """An item with its key, as stored by Tool 5 (`from_stored`) or drafted by a generator."""

    question_type: str
    stem: str
    choices: tuple[str, ...] = ()
    correct_answer: str | None = None
    correct_keywords: tuple[str, ...] = ()
    reference_answer: str | None = None
    explanation: str | None = None
    item_id: str | None = None  # the stored question's id: what withheld text waits for

    @classmethod
    def from_stored(cls, question: StoredQuestion) -> "KeyedItem":
        key = question.answer_schema
        return cls(
            question_type=question.item_type,
            stem=question.stem,
            choices=question.choices or (),
            correct_answer=key.correct_key,
            correct_keywords=key.correct_keywords or (),
            reference_answer=key.reference_answer,
            explanation=key.explanation,
            item_id=question.question_id or None,
        )

    @property
    def key_text(self) -> str:
        """The keyed choice's text (multiple choice), else the key as given."""
        index = choice_index(self.correct_answer or "", list(self.choices)) if self.choices else None
        return choice_text(self.choices[index]) if index is not None else (self.correct_answer or "")

    @cached_property
    def subject(self) -> Units:
        """The concept the item is about, where its stored explanation names it first ("Name
        (ACR): definition ...", as `references.topic_terms` reads it): a name recurs in other
        items' stems and keys, so alone it reveals nothing."""
        head, colon, _ = (self.explanation or "").partition(":")
        return _units(head) if colon and 0 < len(head.strip()) <= SUBJECT_MAX_LENGTH else {}

    @cached_property
    def claims(self) -> tuple[Claim, ...]:
        """What, shown together, would answer this item."""
        stem = _units(self.stem)
        found: list[Claim | None] = []
        if self.question_type == "multiple_choice":
            key = self.key_text
            if len(key.split()) <= NAME_MAX_WORDS:
                name = frozenset(_units(key)) or frozenset({key.casefold()})
                found.append(_claim(_without(stem, name), required=name))
            else:
                found.append(_claim(_units(key)))
        elif self.question_type == "true_false":
            deciding = _sentences(self.explanation or "")[:1]
            found += [_claim(_without(units, self.subject)) for units in (stem, *map(_units, deciding))]
        else:
            model_answer = self.reference_answer or self.explanation or ""
            found += [_claim(_without(_units(sentence), self.subject)) for sentence in _sentences(model_answer)]
            keywords = _units(" ".join(self.correct_keywords))
            if self.subject:
                found.append(_claim(keywords, required=frozenset(self.subject)))
            else:
                found.append(_claim({**stem, **keywords}))
        return tuple(claim for claim in found if claim is not None)

    def shown_texts(self, explained: bool = True) -> list[str]:
        """What a learner reads of this item, each its own paragraph: the stem in the listing;
        once answered, the key (which the check never withholds), and with `explained` the stored
        explanation and the model answer (which it may). Not the choices: another item's key
        among them, as a distractor, gives nothing away."""
        texts = [self.stem, self.key_text if self.question_type == "multiple_choice" else ""]
        if explained:
            texts += [self.explanation or "", self.reference_answer or ""]
        return [text for text in texts if text.strip()]

    @property
    def stated_key(self) -> str:
        """The key as the learner is told it."""
        if self.question_type == "short_answer":
            return ", ".join(self.correct_keywords)
        return self.key_text

    def stated_in(self, text: str) -> bool:
        """Does `text` tell the learner this item's key (the choice, the verdict, the terms)?"""
        if self.question_type == "true_false":
            verdict = self.correct_answer or ""
            return bool(verdict) and re.search(rf"(?<!\w){re.escape(verdict)}(?!\w)", text, re.IGNORECASE) is not None
        units = self.own_key_units()
        return not units or Claim(units).revealed_by(_units(text))

    def own_key_units(self) -> Units:
        """What a sentence states when it states this item's own key."""
        if self.question_type == "short_answer":
            return _units(" ".join(self.correct_keywords))
        if self.question_type == "true_false":
            return _without(_units(self.stem), frame_units())
        return _units(self.key_text)


def gives_away(item: KeyedItem, other: KeyedItem, explained: bool = True) -> bool:
    """Does what a learner reads of `item` (KeyedItem.shown_texts) reveal `other`'s key?"""
    claims = other.claims
    return any(claim.revealed_by(_units(text)) for text in item.shown_texts(explained) for claim in claims)


def stated_by(item: KeyedItem, text: str) -> bool:
    """Does `text` alone (one option, one statement) state what answers `item`?"""
    present = _units(text)
    return any(claim.revealed_by(present) for claim in item.claims)


def language_of(item: KeyedItem) -> Language:
    """The item's language, as the feedback reads it (language/detect.py)."""
    return question_language(item.stem, item.choices, item.reference_answer, item.explanation)


@dataclass
class Withheld:
    """What the check took out of one answer's output (for metrics and the benchmark)."""

    sentences: int = 0
    characters: int = 0
    links: int = 0


@dataclass
class KeyGuard:
    """The keys of a session's unanswered items, kept out of what one answer shows."""

    own: KeyedItem
    unanswered: Sequence[KeyedItem]
    withheld: Withheld = field(default_factory=Withheld)
    # Paragraphs passed as they are: what the page shows already (the learner's own answer).
    on_page: frozenset[str] = frozenset()
    claims: list[Claim] = field(init=False)
    language: Language = field(init=False)
    # The ids of the items something was withheld for: once they are answered (or can no longer
    # be), the withheld text can be shown.
    withheld_for: set[str] = field(default_factory=set)
    _owners: list[str | None] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        own_key = self.own.own_key_units()
        # A fact the learner's own key states is shown with that key anyway: nothing to protect.
        kept = [
            (claim, item.item_id) for item in self.unanswered for claim in item.claims if not claim.revealed_by(own_key)
        ]
        self.claims = [claim for claim, _ in kept]
        self._owners = [owner for _, owner in kept]
        self.language = language_of(self.own)

    def _revealed(self, present: Units | set[str]) -> list[int]:
        return [i for i, claim in enumerate(self.claims) if claim.revealed_by(present)]

    def _note_owners(self, revealed: list[int]) -> None:
        self.withheld_for.update(owner for owner in (self._owners[i] for i in revealed) if owner)

    def revealing(self, text: str) -> bool:
        """Does `text` (as one paragraph) give away an unanswered item's key?"""
        present = _units(text)
        return any(claim.revealed_by(present) for claim in self.claims)

    def _withheld_sentences(self, units: list[Units]) -> set[int]:
        """The sentences of one paragraph to take out, the one carrying most of a revealed claim
        first, until the rest reveals none."""
        withheld: set[int] = set()
        while True:
            present: set[str] = set().union(*(found for i, found in enumerate(units) if i not in withheld))
            revealed = self._revealed(present)
            if not revealed:
                return withheld
            self._note_owners(revealed)
            claim = self.claims[revealed[0]]
            candidates = [i for i in range(len(units)) if i not in withheld]
            withheld.add(max(candidates, key=lambda i: (claim.covered(units[i]), bool(claim.required & set(units[i])))))

    def _paragraph(self, paragraph: str) -> str:
        if " ".join(paragraph.split()) in self.on_page:
            return paragraph
        sentences = _sentences(paragraph)
        units = [_units(sentence) for sentence in sentences]
        withheld = self._withheld_sentences(units)
        if not withheld:
            return paragraph
        self.withheld.sentences += len(withheld)
        self.withheld.characters += sum(len(sentences[i]) for i in withheld)
        return " ".join(sentence for i, sentence in enumerate(sentences) if i not in withheld)

    def text(self, text: str) -> str:
        """`text` with the sentences that give away an unanswered item's key taken out (and the
        paragraphs left empty dropped). No note here: `note` says it once, at the end."""
        if not self.claims or not text:
            return text
        parts = PARAGRAPH.split(text)
        checked = [self._paragraph(part) for part in parts]
        return text if checked == parts else "\n\n".join(part for part in checked if part.strip())

    @property
    def held_back(self) -> bool:
        return bool(self.withheld.sentences or self.withheld.links)

    def note(self) -> str | None:
        """The one note, in the learner's language, that what would answer an open item is held
        back: said whenever another item is open (None: none is), never only when something was
        held back, which would be an oracle. The caller shows it apart from the explanation."""
        return NOTE[self.language] if self.unanswered else None

    def explanation(self, text: str) -> str:
        """The checked explanation, which still states the learner's own key: if the sentences
        that stated it had to go (they stated another item's key too), it is stated on its own."""
        checked = self.text(text)
        if checked != text and not self.own.stated_in(checked):
            checked += "\n\n" + OWN_KEY[self.language].format(key=self.own.stated_key)
        return checked

    def optional_text(self, text: str | None) -> str | None:
        return self.text(text) if text else text

    def naming(self, text: str | None, name: str | None) -> str | None:
        """`text` with every sentence that names `name` held back while any other item of the
        session is unanswered, whatever those items are keyed on. `name` is what the learner's
        wrong pick is (its concept); beside the option's text on the page, the name answers an item
        keyed on it, or on that text. Holding it back only then would be an oracle (the note would
        tell that the option keys an item still to come), so the rule looks at no key: every wrong
        pick's naming waits for the round, and the whole text is delivered with the history once
        those items are answered or can no longer be. Then the usual check."""
        owners = [item.item_id for item in self.unanswered]
        if not text or not name or not owners:
            return self.optional_text(text)
        wanted = " ".join(name.casefold().split())
        paragraphs = []
        for paragraph in PARAGRAPH.split(text):
            sentences = _sentences(paragraph)
            kept = [sentence for sentence in sentences if wanted not in " ".join(sentence.casefold().split())]
            if len(kept) == len(sentences) or " ".join(paragraph.split()) in self.on_page:
                paragraphs.append(paragraph)
                continue
            self.withheld.sentences += len(sentences) - len(kept)
            self.withheld.characters += sum(len(sentence) for sentence in sentences if sentence not in kept)
            self.withheld_for.update(owner for owner in owners if owner)
            if kept:
                paragraphs.append(" ".join(kept))
        return self.text("\n\n".join(paragraphs)) or None

    def links(self, links: "Sequence[ReferenceLink]") -> "list[ReferenceLink]":
        """The links whose title gives nothing away."""
        kept = []
        for link in links:
            revealed = self._revealed(_units(link.title))
            self._note_owners(revealed)
            if not revealed:
                kept.append(link)
        self.withheld.links += len(links) - len(kept)
        return kept


def unanswered_items(session: Sequence[StoredQuestion], answering: str) -> list[KeyedItem]:
    """The session's items other than `answering` with no recorded grading: answered through
    the API (`answered_at`) or counted by any grading (`usage_count`, written with the attempt)."""
    return [
        KeyedItem.from_stored(question)
        for question in session
        if question.question_id != answering
        and not question.answered_at
        and not question.usage_count
        and question.status != "retired"
    ]
