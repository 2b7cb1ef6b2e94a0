"""Automatic item generation without a model: questions built from the keyword record's concepts
(name, acronym, definition, key points), for one learner.

Which concepts: those in the learner's language (the round's `language`, else the profile's, else
English; a concept's `language`, else read from its text), those whose `domain` matches one of
the learner's interests first (case and surrounding spaces ignored, as Tool 2 matches template
domains), then the rest of the record. One item per concept per session (security/exposure.py:
the session's earlier items and the round's are `request.exposure`); when the concepts run out,
keyword items. No option is a concept the session has told the learner about, and, while the
record allows, none is another pending item's option.

Which items (frames in `frames.py`): recall frames at low difficulty (definition <-> name, true or
false definition), application and comparison at high difficulty (which concept a situation
described by its key points is about, is this key point true of it, how does it differ from a
sibling).

Item-writing rules (single best answer, no cues), enforced here and checked again by Tool 4:
- distractors are sibling concepts' definitions or names, never another true property of the
  item's own concept; they come from the concept's own domain (the record's `domain`), nearest
  first, and from other domains only where the domain has too few concepts for a full set of
  options;
- a false statement is a plausible confusion: a sibling of the same domain's definition or key
  point (the nearest sibling first), never one of another domain ("'next-token prediction' holds
  for JSON" reads as nonsense and is rejected on the domain alone); a concept with no sibling of
  its domain gets no false statement and no comparison item, only other forms (concepts without
  a domain are one group, the record's general ones);
- English names read as in a sentence: "What is a multimodal model?", "What are guardrails?",
  "What is Kubernetes?" (slea/language/english_articles.py: the article, the case, the verb's
  number);
- no surface cue: options close in length; an item whose key is the only option sharing content
  words with the stem is not used;
- an acronym is shown only where the concept's own text uses it (not merely its `acronym` field);
  short-answer keywords are words of the record that the item's own model answer states, as the
  grader finds a keyword in an answer (an explanation's: of the key points; a comparison's: of
  the concept's definition, the model answer being the two definitions), so that a learner who
  restates the model answer is never told it lacks one;
- no item states another item's answer (its stem contains the key of another item of the round);
  and as far as the record allows (slea/security/key_leaks.py, the check explanations pass before
  they are shown, judges it), none gives another's key away: first by neither its stem, its key,
  its explanation nor its model answer (a comparison item's sibling, a false statement's borrowed
  definition, are ones no other item is keyed on); else by neither its stem nor its key (the
  check then withholds part of the explanation); only a record with fewer concepts than the round
  has items (whose concepts must repeat) gets items that do;
- true/false items in Korean are answered 참/거짓; Korean particles take the form the word before
  them needs ("PyTorch는", not the frame's "은(는)"), and a keyword is the bare term ("PyTorch",
  not the key point's "PyTorch가").
The same request and the same random generator state always yield the same questions. The caller
seeds the generator (the offline provider: with a keyed digest under the deployment's secret), so
a learner who knows the request cannot replay the draws: which concepts, distractors, choice order
and true/false statements a round gets.
"""

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache, partial

from rapidfuzz import fuzz

from slea.authoring.item_rules import defined_acronym
from slea.authoring.question_quality import ABSOLUTE, CATCH_ALL, lengths_unequal, near_duplicate_of
from slea.constants import HANGUL, MIN_CHOICES, STEM_MAX_LENGTH, Language, QuestionType
from slea.contracts.answers import TRUE_FALSE_CHOICES, truth_value
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput
from slea.contracts.keywords import CHOICE_NOTE_DEFINITION_MAX, ChoiceNote, Concept
from slea.grading.evidence import keywords_stated
from slea.grading.terms import Text, terms
from slea.language.english_articles import NounPhrase, noun_phrase, sentence_start
from slea.language.item_frames import FRAMES, category_name, families_for
from slea.language.korean_particles import bare_term, resolve_particles
from slea.language.shown_terms import reads_as_a_verb, whole_term
from slea.security import exposure, key_leaks

LABELS = "ABCDE"
COMPARE_SIBLINGS = 3  # a comparison item is offered with each of this many siblings, nearest first
COMPARE_TERMS = 3  # a comparison's key terms: this many words of the concept's definition (and its acronym)
MAX_KEY_TERMS = 5
STRICTNESS = ("explained", "listed")
TRUE_FALSE_FAMILIES = ("tf_definition", "tf_key_point")  # RoundBuilder._acceptable, strictest first
REVEAL_MIN_LENGTH = 20  # an answer shorter than this (a name) is no giveaway when it recurs
LENGTH_BAND = 1.6  # distractors within 1/1.6 to 1.6 times the key's length
REVEAL_RATIO = 90  # rapidfuzz partial_ratio: "this stem states that answer"
# How Korean verbs and adjectives end in a key point ("높으면", "복잡할수록", "식별된", "정확한").
KOREAN_VERB_ENDINGS = (
    "면",
    "록",
    "고",
    "며",
    "서",
    "게",
    "한",
    "된",
    "는",
    "던",
    "운",
    "해",
    "여",
    "어",
    "아",
    "은",
    "을",
)
STOPWORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "by",
        "from",
        "into",
        "that",
        "this",
        "these",
        "those",
        "is",
        "are",
        "be",
        "as",
        "at",
        "its",
        "their",
        "your",
        "each",
        "every",
        "both",
        "more",
        "most",
        "less",
        "than",
        "then",
        "when",
        "which",
        "what",
        "how",
        "why",
        "over",
        "under",
        "between",
        "across",
        "per",
        "via",
        "using",
        "use",
        "used",
        "uses",
        "without",
        "within",
        "while",
        "after",
        "before",
        "about",
        # Korean words a definition uses around its terms: adverbs, determiners and the nouns
        # that only relate others ("several", "in advance", "each other", "among", "through")
        *("여러", "미리", "서로", "가운데", "다른", "모든", "각각", "같은", "위해", "통해", "대한", "따라"),
        *("또는", "그리고", "매우", "가장", "주로", "함께", "스스로", "직접", "사이", "경우", "하나", "가지"),
    }
)


@dataclass(frozen=True)
class Item:
    family: str
    subject: str  # concept name (or keyword) the item is about
    type: QuestionType
    build: Callable[[], DraftQuestion | None]


def concept_language(concept: Concept) -> Language:
    if concept.language:
        return concept.language
    return "ko" if HANGUL.search(concept.name + concept.definition) else "en"


def matches_interest(domain: str | None, interests: list[str]) -> bool:
    """Tool 2's rule for template domains: case and surrounding spaces ignored."""
    wanted = {interest.strip().casefold() for interest in interests}
    return bool(domain) and str(domain).strip().casefold() in wanted


def _weak(text: str) -> bool:
    return bool(ABSOLUTE.search(text) or CATCH_ALL.search(text))


def _sentence_inside(definition: str) -> str:
    """A definition continued after "X is ...": its first letter lowered unless it starts an acronym
    or a name ("A control point ..." -> "a control point ..."; "LLM-based ..." stays)."""
    first_word = definition.split(" ", 1)[0]
    if first_word in {"A", "An", "The"} or (first_word[1:2].islower() and not any(c.isupper() for c in first_word[1:])):
        return definition[:1].lower() + definition[1:]
    return definition


def _distinctiveness(word: str, opens_point: bool = False) -> tuple[bool, bool, float, int]:
    # Acronyms, capitalised and hyphenated terms first; verbs last: past forms ("introduced") and
    # the one a terse key point opens with ("resolves example.com to ...", "supports exact phrase
    # queries"; an -ing word elsewhere is usually a noun: "posting list"); then the rarer word, by
    # how often its stem occurs in English text ("kernel" over "host"); then the longer.
    # A Korean word (its particle already dropped) ending as a verb or adjective does is no term.
    verb = word.endswith("ed") or (opens_point and word.islower() and word.endswith(("s", "ing")))
    verb = verb or bool(HANGUL.search(word) and word.endswith(KOREAN_VERB_ENDINGS))
    found = terms(word)
    rarity = -found[0].zipf if found and found[0].script == "latin" else 0.0
    return (word.isupper() or "-" in word or word[:1].isupper(), not verb, rarity, len(word))


def content_units(text: str) -> set[str]:
    """Informative stems (English) or character bigrams (Korean) of a text."""
    return {term.unit for term in Text(text).content_terms}


def cued(stem: str, key: str, distractors: list[str], generic: frozenset[str] = frozenset()) -> bool:
    """A test-wise learner could pick the key by word overlap with the stem: it is the only option
    sharing any of the stem's content words (Tool 4's rule, frame words included: "A team
    observes ..." cues "Team Topologies"), or, leaving out the frame's own `generic` words, it
    shares more of them than any distractor (a distractor containing the frame's "system" must not
    hide a key that echoes the stem's "datagrams")."""
    all_units = content_units(stem)
    options = [content_units(text) for text in (key, *distractors)]
    if all_units & options[0] and not any(all_units & units for units in options[1:]):
        return True
    specific = all_units - generic
    key_overlap = len(specific & options[0])
    return key_overlap > 0 and all(len(specific & units) < key_overlap for units in options[1:])


@cache
def frame_units(language: Language) -> frozenset[str]:
    """The content words of every frame's own text in `language` (placeholders removed); worked
    out once per execution environment, not for every round."""
    phrasings = FRAMES[language]
    text = " ".join(re.sub(r"\{\w+\}", " ", phrasing) for options in phrasings.values() for phrasing in options)
    return frozenset(content_units(text))


def domain_key(domain: str | None) -> str | None:
    """A concept's domain as records are matched (case and surrounding spaces ignored); None for
    none."""
    return domain.strip().casefold() if domain and domain.strip() else None


def concept_units(concept: Concept) -> frozenset[str]:
    """The content words of a concept's name, definition and key points."""
    return _text_units(" ".join([concept.name, concept.definition, *concept.key_points]))


@lru_cache(maxsize=1024)
def _text_units(text: str) -> frozenset[str]:
    # Cached: every item builder of a round ranks the same siblings.
    return frozenset(content_units(text))


def agreement(phrase: NounPhrase) -> dict[str, str]:
    """The words of an English frame that agree with its subject: "What {be} {label}?", "How
    {does} {name} differ ...", "{Its} key aspects"."""
    plural = phrase.plural
    return {
        "be": phrase.be,
        "does": "do" if plural else "does",
        "it": "they" if plural else "it",
        "its": "their" if plural else "its",
        "Its": "Their" if plural else "Its",
        "s": "" if plural else "s",
    }


class ItemBank:
    """Every item one keyword record supports for one learner, concepts in priority order."""

    def __init__(self, request: GenerateQuestionsInput, rng: random.Random) -> None:
        self.request = request
        self.rng = rng
        usable = [concept for concept in request.keywords.concepts if not _weak(concept.definition)]
        self.language: Language = request.resolved_language()
        in_language = [concept for concept in usable if concept_language(concept) == self.language]
        if not in_language and usable:
            # The record has nothing in the learner's language: whole items in the record's own
            # language are better than mixed ones.
            self.language = concept_language(usable[0])
            in_language = [concept for concept in usable if concept_language(concept) == self.language]
        self.frames = FRAMES[self.language]
        self.generic_units = frame_units(self.language)
        # Set by the round builder: an option text the session has told the learner about, which a
        # distractor may not be (security/exposure.py).
        self.avoid: Callable[[str], bool] = lambda text: False
        shuffled = list(in_language)
        self.rng.shuffle(shuffled)
        interests = request.profile.interests
        self.concepts = [c for c in shuffled if matches_interest(c.domain, interests)] + [
            c for c in shuffled if not matches_interest(c.domain, interests)
        ]

    # ------------------------------------------------------------------ helpers
    def _phrase(self, frame: str, variant: int, **values: str) -> str:
        """The frame's phrasing filled in; a Korean frame's particles ("{name}은(는)") then take
        the form their word needs ("PyTorch는", "모델은")."""
        phrasings = self.frames[frame]
        return resolve_particles(phrasings[variant % len(phrasings)].format(**values))

    def _label(self, concept: Concept) -> str:
        acronym = defined_acronym(concept)
        return (
            f"{concept.name} ({acronym})"
            if acronym and acronym.casefold() not in concept.name.casefold()
            else concept.name
        )

    def _noun(self, concept: Concept, labelled: bool = False) -> tuple[str, dict[str, str]]:
        """The concept's name (with its acronym where `labelled`, as `_label`) as it reads inside
        a sentence of the round's language, and the words that agree with it in English frames
        ("What {be} {label}?"). English: "a multimodal model", "guardrails" (plural: "are"), a
        proper name or an acronym as it is; Korean names need no article (particles follow them)."""
        if self.language != "en":
            return (self._label(concept) if labelled else concept.name), {}
        phrase = noun_phrase(concept.name)
        text = phrase.text
        if labelled:
            acronym = defined_acronym(concept)
            if acronym and acronym.casefold() not in concept.name.casefold():
                text = f"{text} ({acronym})"
        return text, agreement(phrase)

    def _partners(self, concept: Concept) -> list[Concept]:
        """The concepts of the record a statement about `concept` may pair it with: those of its
        own domain, the nearest first (most content words in common: the sibling a learner is
        likeliest to confuse it with); another domain's concept is no plausible confusion. The
        concepts a record gives no domain are one group: the record's general concepts of its
        category (the spec's default record has only such)."""
        key = domain_key(concept.domain)
        own = concept_units(concept)
        same = [other for other in self.concepts if other.name != concept.name and domain_key(other.domain) == key]
        return sorted(same, key=lambda other: -len(own & concept_units(other)))

    def _option_pool(self, concept: Concept) -> list[Concept]:
        """Whose names or definitions a multiple-choice item's distractors are drawn from: the
        concept's domain when it has enough siblings for a full set of options, else those
        followed by the record's other concepts (a four-option item needs three)."""
        partners = self._partners(concept)
        if len(partners) >= MIN_CHOICES - 1:
            return partners
        return partners + [other for other in self._siblings(concept) if other not in partners]

    def _siblings(self, concept: Concept) -> list[Concept]:
        """Other concepts of the record, those of the same domain first (distractors from an
        unrelated topic are a cue)."""
        others = [other for other in self.concepts if other.name != concept.name]
        same = [other for other in others if concept.domain and other.domain == concept.domain]
        return same + [other for other in others if other not in same]

    def _distractors(self, correct: str, pool: list[str], count: int) -> list[str] | None:
        """`count` distractors of comparable length, picked at random among those in the length
        band, from the front of `pool` (same domain) where it has enough. Random within the band,
        not the closest in length: the closest make the key the middle-length option, itself a
        cue (a test-wise learner picking the second-longest option would beat chance)."""
        usable = [text for text in dict.fromkeys(pool) if text != correct and not _weak(text) and not self.avoid(text)]
        if len(usable) < count:
            return None
        comparable = [text for text in usable if not lengths_unequal([correct, text], LENGTH_BAND)]
        front = [text for text in comparable if text in usable[: count * 2]]
        for candidates in (front, comparable):
            if len(candidates) >= count:
                return self.rng.sample(candidates, count)
        return sorted(usable, key=lambda text: abs(len(text) - len(correct)))[:count]

    def _multiple_choice(self, stem: str, correct: str, pool: list[str], concept: Concept) -> DraftQuestion | None:
        distractors = self._distractors(correct, pool, MIN_CHOICES - 1)
        if distractors is None or len(stem) > STEM_MAX_LENGTH or lengths_unequal([correct, *distractors]):
            return None
        if cued(stem, correct, distractors, self.generic_units):
            return None
        options = [correct, *distractors]
        self.rng.shuffle(options)
        key = LABELS[options.index(correct)]
        return self._draft(
            "multiple_choice",
            stem,
            concept,
            choices=[f"{LABELS[i]}) {resolve_particles(text)}" for i, text in enumerate(options)],
            correct_answer=key,
            choice_notes=self._choice_notes(options, concept),
        )

    def _choice_notes(self, options: list[str], concept: Concept) -> list[ChoiceNote]:
        """The concept each option is the name or definition of (the key's: the item's own), so
        the explanation of a wrong pick can say which other concept that option describes."""
        notes = []
        for option in options:
            described = next(
                (c for c in (concept, *self.concepts) if option.strip() in (c.name.strip(), c.definition.strip())),
                None,
            )
            if described is not None and len(described.definition) <= CHOICE_NOTE_DEFINITION_MAX:
                notes.append(ChoiceNote(option=option, concept=described.name, definition=described.definition))
        return notes

    def _true_false(self, stem: str, truth: bool, concept: Concept) -> DraftQuestion | None:
        if len(stem) > STEM_MAX_LENGTH:
            return None
        choices = TRUE_FALSE_CHOICES[self.language]
        return self._draft("true_false", stem, concept, choices=choices, correct_answer=choices[0 if truth else 1])

    def _reference_answer(self, concept: Concept) -> str:
        """The model answer of a short-answer item: the concept's definition and key points, the
        source the item was written from."""
        definition = concept.definition.strip()
        name, agree = self._noun(concept)
        return self._phrase(
            "reference",
            0,
            **agree,
            name=sentence_start(name) if self.language == "en" else name,
            definition=definition,
            definition_lower=_sentence_inside(definition),
            points="; ".join(point.strip().rstrip(".") for point in concept.key_points),
        )

    def _keywords_of(
        self, concept: Concept, sources: list[str], per_source: int = 1, names: tuple[str, ...] = ()
    ) -> list[str]:
        """Terms a good answer may mention: the acronym the record defines, and the `per_source` most
        distinctive words of each of `sources` (the texts of the record the model answer is
        written from: real terms of the source), without the particle Korean attaches to it
        ("PyTorch가" -> "PyTorch": an answer writes "PyTorch는", and a keyword is matched as a
        substring). With `names` (the concepts a comparison's stem names), `sources` are
        definitions: sentences, whose first capital ("Learning conditions that ...") is no sign
        of a term, and the names' own words, which the stem shows, are no key terms."""
        found: list[str] = []
        acronym = defined_acronym(concept)
        if 2 <= len(acronym) <= 8 and acronym.casefold() not in concept.name.casefold().split():
            found.append(acronym)
        record = [concept.name, concept.definition, *concept.key_points, *sources, *self.request.keywords.keywords]
        words_of_record = set(re.findall(r"[\w\-']+", " ".join(record)))
        known = words_of_record | {bare_term(word) for word in words_of_record}  # "영향력과" -> "영향력"
        shown = {word.casefold() for word in re.findall(r"[\w\-']+", " ".join(names))}
        for source in sources:
            words = [word.strip("-'") for word in re.findall(r"[\w\-']+", source)]
            candidates = [
                (bare_term(word, known - {word}), position == 0)
                for position, word in enumerate(words)
                if len(word) >= (2 if HANGUL.search(word) else 4) and word.casefold() not in STOPWORDS | shown
            ]

            def rank(candidate: tuple[str, bool], source: str = source) -> tuple[bool, bool, bool, float, int]:
                word, first = candidate
                sentence_case = bool(names) and first and word[1:].islower()
                # A Korean noun before a verb: stored bare, a verb's stem ("찾아내" of "찾아내는") is
                # no word a reviewer or a learner reads as a term, and its whole form is no term.
                noun = not HANGUL.search(word) or (whole_term(word, [source]) == word and not reads_as_a_verb(word))
                return (noun, *_distinctiveness(word.lower() if sentence_case else word, first))

            ranked = sorted(candidates, key=rank, reverse=True)
            found.extend(list({word.casefold(): word for word, _ in ranked}.values())[:per_source])
        return list({word.casefold(): word for word in found}.values())

    def _concepts_mentioning(self, keyword: str) -> list[Concept]:
        # Letter for letter, not as the grader reads a mention ("Problem Solving" in "Problem-Solving
        # Approach"): a keyword item with a source is refused once its concept has had an item in
        # the session, and the fallback record's rounds need their keyword items.
        wanted = keyword.casefold()
        return [
            concept
            for concept in self.concepts
            if wanted in " ".join([concept.name, concept.definition, *concept.key_points]).casefold()
        ]

    def _short_answer(  # noqa: PLR0917 - the item's parts
        self,
        stem: str,
        concept: Concept,
        reference: str,
        sources: list[str],
        per_source: int,
        names: tuple[str, ...] = (),
        keywords: list[str] | None = None,
    ) -> DraftQuestion | None:
        """A short answer whose key terms (`keywords`, else taken from `sources`) are all terms
        its model answer states, as the grader matches a key term in an answer: a learner who
        restates the model answer is never told it lacks one. A term the model answer does not
        state is left out; an item left with none is not built."""
        if keywords is None:
            candidates = keywords_stated(reference, self._keywords_of(concept, sources, per_source, names))
            # A term the stem itself states ("HyDE" of "… 임베딩(HyDE)을 설명하시오") is no sign of
            # knowing the answer: an answer that only repeats the question would be credited with
            # it. Left out while two others remain.
            in_stem = set(keywords_stated(stem, candidates))
            beyond_stem = [term for term in candidates if term not in in_stem]
            stated = (beyond_stem if len(beyond_stem) >= 2 else candidates)[:MAX_KEY_TERMS]
            if len(stated) < 2:  # too few to grade by: the concept's name too, as the model answer states it
                stated = keywords_stated(reference, [*stated, concept.name])
        else:
            stated = keywords_stated(reference, keywords)
        if not stated:
            return None
        return self._draft("short_answer", stem, concept, correct_keywords=stated, reference_answer=reference)

    def _draft(
        self, question_type: QuestionType, stem: str, concept: Concept | None, **answer: object
    ) -> DraftQuestion:
        explanation = ""
        if concept is not None:
            explanation = self._phrase(
                "explain",
                0,
                label=self._label(concept),
                definition=concept.definition,
                points="; ".join(concept.key_points),
            )
        return DraftQuestion.model_validate(
            {
                "type": question_type,
                "stem": stem,
                "explanation": explanation,
                "difficulty": self.request.difficulty,
                "categories": [self.request.category],
                "language": self.language,
                "source": concept.model_dump() if concept is not None else None,
                **answer,
            }
        )

    # ------------------------------------------------------------------ item families
    def concept_items(self, concept: Concept, variant: int) -> Iterator[Item]:
        """The items about one concept that suit the round's difficulty, best first; `variant`
        (its position in the round) picks phrasings."""
        builders = {
            "mc_definition": self._mc_definition,
            "mc_identify": self._mc_identify,
            "mc_scenario": self._mc_scenario,
            "tf_definition": self._tf_definition,
            "tf_key_point": self._tf_key_point,
            "sa_explain": self._sa_explain,
            "sa_compare": self._sa_compare,
        }
        for family in families_for(self.request.difficulty):
            yield from builders[family](concept, variant)

    def _mc_definition(self, concept: Concept, variant: int) -> Iterator[Item]:
        label, agree = self._noun(concept, labelled=True)
        stem = self._phrase("mc_definition", variant, label=label, **agree)
        pool = [s.definition for s in self._option_pool(concept)]
        build = partial(self._multiple_choice, stem, concept.definition, pool, concept)
        yield Item("mc_definition", concept.name, "multiple_choice", build)

    def _mc_identify(self, concept: Concept, variant: int) -> Iterator[Item]:
        stem = self._phrase("mc_identify", variant, definition=concept.definition)
        pool = [s.name for s in self._option_pool(concept)]
        yield Item(
            "mc_identify",
            concept.name,
            "multiple_choice",
            partial(self._multiple_choice, stem, concept.name, pool, concept),
        )

    def _mc_scenario(self, concept: Concept, variant: int) -> Iterator[Item]:
        """Which concept a situation is about, the situation told by two of its key points at a time."""
        points = [point.strip().rstrip(".") for point in concept.key_points]
        pool = [s.name for s in self._option_pool(concept)]
        for index in range(0, max(1, len(points) - 1), 2):
            stem = self._phrase("mc_scenario", variant + index, needs="; ".join(points[index : index + 2]))
            build = partial(self._multiple_choice, stem, concept.name, pool, concept)
            yield Item("mc_scenario", concept.name, "multiple_choice", build)

    def _tf_definition(self, concept: Concept, variant: int) -> Iterator[Item]:
        """The concept's definition (true) or a sibling's (false), in random order. A false one is
        offered with each of a few siblings: the nearest may be keyed elsewhere in the round, which
        would make it give that key away (and a round whose false statements all failed so would
        key this frame True)."""
        stated = [(True, concept.definition)] + [
            (False, s.definition) for s in self._partners(concept)[:COMPARE_SIBLINGS]
        ]
        if self.rng.random() < 0.5:
            stated = stated[1:] + stated[:1]
        name, agree = self._noun(concept)
        for truth, definition in stated:
            stem = self._phrase("tf_definition", variant, name=name, definition=definition, **agree)
            yield Item("tf_definition", concept.name, "true_false", partial(self._true_false, stem, truth, concept))

    def _tf_key_point(self, concept: Concept, variant: int) -> Iterator[Item]:
        """One statement per key point (a concept's later items, once concepts run out), in a frame
        the records can settle either way: that a characteristic is one of those that set the
        concept apart. True: the concept's own point. As often false: a sibling's point sharing no
        content word with anything the concept's record says; it sets the sibling apart, not this
        concept. (A frame claiming only that a characteristic "holds for" the concept cannot be
        keyed false from a record: a data center's "redundant power supplies" hold for cloud
        computing too; Tool 4 rejects that: item_rules.true_false_problems.) Always true would be a
        pattern a learner who reads this code answers without knowing anything."""
        points = (
            concept.key_points[variant % len(concept.key_points) :]
            + concept.key_points[: variant % len(concept.key_points)]
        )
        foreign = self._foreign_points(concept)
        name, agree = self._noun(concept)
        for index, point in enumerate(points):
            truth = not foreign or self.rng.random() < 0.5
            stated = point if truth else foreign[index % len(foreign)]
            stem = self._phrase("tf_key_point", variant + index, point=stated.strip().rstrip("."), name=name, **agree)
            yield Item("tf_key_point", concept.name, "true_false", partial(self._true_false, stem, truth, concept))

    def _foreign_points(self, concept: Concept) -> list[str]:
        """Key points of siblings of the concept's domain (`_partners`, nearest first) sharing no
        content word with the concept's own name, definition and key points."""
        own = " ".join([concept.name, concept.definition, *concept.key_points])
        own_units = {term.unit for term in Text(own).content_terms}
        return [
            point
            for sibling in self._partners(concept)
            for point in sibling.key_points
            if not own_units & {term.unit for term in Text(point).content_terms}
        ]

    def _sa_explain(self, concept: Concept, variant: int) -> Iterator[Item]:
        """Explain the concept: the model answer is its definition and key points, the key terms
        the most distinctive word of each key point."""
        label, agree = self._noun(concept, labelled=True)
        stem = self._phrase("sa_explain", variant, label=label, **agree)
        build = partial(self._explain_item, stem, concept)
        yield Item("sa_explain", concept.name, "short_answer", build)

    def _explain_item(self, stem: str, concept: Concept) -> DraftQuestion | None:
        return self._short_answer(stem, concept, self._reference_answer(concept), concept.key_points, 1)

    def _sa_compare(self, concept: Concept, variant: int) -> Iterator[Item]:
        """How the concept differs from a sibling of its domain: the nearest sibling first, the
        next ones for a round where another item is keyed on the nearest (its model answer would
        state that key). The model answer gives the two definitions, so the key terms are taken
        from the concept's own (its key points, which the model answer does not state, would be
        terms an answer restating it is told it lacks; the sibling's are no terms of the item's
        source, against which Tool 4 checks them)."""
        name, agree = self._noun(concept)
        for other in self._partners(concept)[:COMPARE_SIBLINGS]:
            other_name, _ = self._noun(other)
            stem = self._phrase("sa_compare", variant, name=name, other=other_name, **agree)
            reference = self._phrase(
                "compare_reference",
                0,
                name=concept.name,
                definition=concept.definition,
                other=other.name,
                other_definition=other.definition,
            )
            names = (concept.name, other.name)
            build = partial(self._short_answer, stem, concept, reference, [concept.definition], COMPARE_TERMS, names)
            yield Item("sa_compare", concept.name, "short_answer", build)

    def keyword_items(self) -> list[Item]:
        """Last resort when the concepts run out: explain one of the record's keywords."""
        concept_names = {concept.name.casefold() for concept in self.concepts}
        keywords = [keyword for keyword in self.request.keywords.keywords if keyword.casefold() not in concept_names]
        if self.language == "ko":
            keywords = [keyword for keyword in keywords if HANGUL.search(keyword)] or keywords
        items = []
        for index, keyword in enumerate(keywords):
            category = category_name(self.request.category, self.language)
            stem = self._phrase("sa_keyword", index, keyword=keyword, category=category)
            items.append(Item("sa_keyword", keyword, "short_answer", partial(self._keyword_item, stem, keyword)))
        return items

    def _keyword_item(self, stem: str, keyword: str) -> DraftQuestion | None:
        """The concepts that mention the keyword are the model answer, which so states it; a keyword
        no concept explains has none, and Tool 6 then grades by the keyword alone (and abstains
        more)."""
        sources = self._concepts_mentioning(keyword)
        if not sources:
            return self._draft("short_answer", stem, None, correct_keywords=[keyword], reference_answer="")
        reference = " ".join(self._reference_answer(concept) for concept in sources[:2])
        return self._short_answer(stem, sources[0], reference, [], 0, keywords=[keyword])


def _answer_text(draft: DraftQuestion) -> str:
    """What answering the item reveals, when it is long enough to recognise elsewhere."""
    if draft.type == "multiple_choice" and draft.correct_answer:
        index = LABELS.find(draft.correct_answer)
        if 0 <= index < len(draft.choices):
            return draft.choices[index].split(") ", 1)[-1]
    return ""


def reveals(draft: DraftQuestion, others: list[DraftQuestion]) -> bool:
    """`draft`'s stem states another item's answer, or another stem states `draft`'s."""
    mine = _answer_text(draft)
    for other in others:
        theirs = _answer_text(other)
        for answer, stem in ((theirs, draft.stem), (mine, other.stem)):
            if (
                len(answer) >= REVEAL_MIN_LENGTH
                and fuzz.partial_ratio(answer.casefold(), stem.casefold()) >= REVEAL_RATIO
            ):
                return True
    return False


def keyed(draft: DraftQuestion) -> key_leaks.KeyedItem:
    return key_leaks.KeyedItem(
        question_type=draft.type,
        stem=draft.stem,
        choices=tuple(draft.choices),
        correct_answer=draft.correct_answer,
        correct_keywords=tuple(draft.correct_keywords),
        reference_answer=draft.reference_answer,
        explanation=draft.explanation,
    )


def gives_away(item: key_leaks.KeyedItem, others: list[key_leaks.KeyedItem], explained: bool = True) -> bool:
    """What a learner reads of `item` (its stem; once answered, its key, and with `explained` its
    explanation and model answer) reveals another item's key, or the other way round. The stem
    and the key are always shown; an explanation would be held back by the show-time check."""
    return any(
        key_leaks.gives_away(item, other, explained) or key_leaks.gives_away(other, item, explained) for other in others
    )


class RoundBuilder:
    """Picks a round's items: for each slot, the least-used concept (in priority order) with an
    item of the wanted type that builds, is no near-duplicate and gives no other item away."""

    def __init__(self, request: GenerateQuestionsInput, rng: random.Random) -> None:
        self.bank = ItemBank(request, rng)
        self.items = {
            concept.name: list(self.bank.concept_items(concept, v)) for v, concept in enumerate(self.bank.concepts)
        }
        self.keyword_items = self.bank.keyword_items()
        self.uses: Counter[str] = Counter()
        self.taken_stems = list(request.avoid_stems)
        self.drafts: list[DraftQuestion] = []
        self.keyed: list[key_leaks.KeyedItem] = []
        # The session's items and this round's: a concept once per session, nothing shown answers
        # an item, and (while the record allows) no option the session may have explained.
        self.session = exposure.SessionContext(request.exposure)
        self.apart = True
        self.bank.avoid = partial(self.session.recognises, possible=False)

    def _acceptable(self, draft: DraftQuestion | None, strictness: str = "explained") -> bool:
        """`strictness`: what of the item and the others must give no key away, "explained" (what
        a learner reads of both, explanations included), "listed" (stems and keys), or nothing.
        Whatever it is, the session's rules hold (security/exposure.py; `apart`: the strict one)."""
        return (
            draft is not None
            and near_duplicate_of(draft.stem, self.taken_stems) is None
            and not reveals(draft, self.drafts)
            and (strictness not in STRICTNESS or not gives_away(keyed(draft), self.keyed, strictness == "explained"))
            and self.session.conflict(exposure.drafted_item(draft), strict=self.apart) is None
        )

    def _from_concepts(
        self,
        question_type: QuestionType | None,
        names: list[str],
        strictness: str,
        prefer: tuple[bool, str] | None = None,
    ) -> DraftQuestion | None:
        """The first acceptable item of `question_type` (any, if None) among `names`' concepts.
        `prefer` (a true/false key and frame): within each concept, an item keyed and framed so
        comes first, then one keyed so, then the others."""
        for name in names:
            candidates = [
                (item, item.build()) for item in self.items[name] if question_type is None or item.type == question_type
            ]
            if prefer is not None:
                truth, family = prefer

                def rank(
                    candidate: tuple[Item, DraftQuestion | None], truth: bool = truth, family: str = family
                ) -> int:
                    item, draft = candidate
                    keyed_so = draft is not None and truth_value(draft.correct_answer or "") is truth
                    return 0 if keyed_so and item.family == family else 1 if keyed_so else 2

                candidates.sort(key=rank)
            for item, draft in candidates:
                if self._acceptable(draft, strictness):
                    self.items[name].remove(item)
                    self.uses[name] += 1
                    return draft
        return None

    def _from_keywords(self) -> DraftQuestion | None:
        self.apart = False  # a short answer has no options to eliminate
        try:
            for item in list(self.keyword_items):
                draft = item.build()
                if self._acceptable(draft, "listed"):
                    self.keyword_items.remove(item)
                    return draft
            return None
        finally:
            self.apart = True

    def take(self, question_type: QuestionType) -> DraftQuestion | None:
        """Unused concepts first (the wanted type, else any), in priority order (the session's rules
        refuse a concept twice, so the least-used passes only matter to their other checks).
        Within each, an item that gives no other item away (STRICTNESS), and only when there is
        none (a record with few concepts), one that does, before a keyword item."""
        unused = [name for name in self.items if self.uses[name] == 0]
        by_use = sorted(self.items, key=lambda name: self.uses[name])
        passes = ((unused, question_type), (unused, None), (by_use, question_type), (by_use, None))
        # Within each pass and strictness, options apart from the round's other items (`apart`)
        # first, then not, the learner's interest concepts before the others either way (keeping
        # options apart must not cost a round its interests).
        interest = {
            c.name for c in self.bank.concepts if matches_interest(c.domain, self.bank.request.profile.interests)
        }
        tries = [
            (apart, wanted, group, strictness)
            for names, wanted in passes
            for strictness in STRICTNESS
            for group in ([n for n in names if n in interest], [n for n in names if n not in interest])
            for apart in (True, False)
        ]
        tries += [(False, wanted, names, "unchecked") for names, wanted in passes]
        # A true/false key and frame are drawn and preferred within each concept: false statements
        # borrow a sibling's text and so fail the give-away checks more often; taking whichever
        # passes first would key most items True, a pattern a learner answers without knowing
        # anything.
        prefer = None
        if question_type == "true_false":
            prefer = (self.bank.rng.random() < 0.5, self.bank.rng.choice(TRUE_FALSE_FAMILIES))
        found = (self._apart(apart, wanted, names, strictness, prefer) for apart, wanted, names, strictness in tries)
        draft = next(filter(None, found), None)
        draft = draft or self._from_keywords()
        if draft is not None:
            self.drafts.append(draft)
            self.keyed.append(keyed(draft))
            self.taken_stems.append(draft.stem)
            self.session.add(exposure.drafted_item(draft))
        return draft

    def _apart(
        self,
        apart: bool,
        question_type: QuestionType | None,
        names: list[str],
        strictness: str,
        prefer: tuple[bool, str] | None,
    ) -> DraftQuestion | None:
        """An item from `names`' concepts whose options the session has not explained (not drawn as
        distractors); with `apart`, nor may yet explain (another pending item's option)."""
        self.apart = apart
        self.bank.avoid = partial(self.session.recognises, possible=apart)
        try:
            return self._from_concepts(question_type, names, strictness, prefer)
        finally:
            self.apart, self.bank.avoid = True, partial(self.session.recognises, possible=False)


def generate_offline(request: GenerateQuestionsInput, count: int, rng: random.Random) -> list[DraftQuestion]:
    """`count` distinct questions following the requested type mix (or the default one), fewer
    only if the record cannot support that many. No question is a near-duplicate of another or
    of the stems to avoid, and none gives another away. `rng` makes every random choice."""
    builder = RoundBuilder(request, rng)
    drafts = [builder.take(question_type) for question_type in request.type_sequence(count)]
    return [draft for draft in drafts if draft is not None]
