"""What an answer shows, measured against the reference answer, the keywords, the question and
everything else the learner was shown. Pure text statistics; `offline.py` turns it into points.

Measures (0-1):
- `recall`: the weighted share of the reference's terms the answer uses (rare terms count more;
  terms of the question count less; a near-miss spelling counts 0.8);
- `order`: the weighted share of the reference's adjacent term pairs that appear in the answer
  in the same order within a few words: phrases, not just words;
- `alignment`: of the reference terms the answer uses, the share that keep the reference's order
  (longest increasing run); shuffled words score low;
- `on_topic`: the weighted share of the answer's own terms that belong to the reference, the
  keywords or the question: how much of the answer is about the question at all;
- `keyword_coverage`: the share of expected keywords the answer mentions (stem-level, typo- and
  acronym-tolerant: "RAG" matches "retrieval-augmented generation" and back).

Structural findings, each a named flag: a non-answer, a bare list of terms, repetition, the
question copied, two or more of the shown choices copied, the reference's words shuffled or in
alphabetical order, keywords amid unrelated words, and sentences addressed to the grader.
Contradictions (see `contradiction.py`): a key point of the reference negated or turned into its
opposite, statements about something else added to an answer, and one shown text that is not the
reference pasted in.
"""

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise

from rapidfuzz import fuzz, process

from slea.grading import comparison, contradiction, non_answers, word_order
from slea.grading.relatedness import is_unrelated
from slea.grading.terms import KOREAN_SUFFIXES, UNKNOWN_ZIPF, Term, Text, is_inflected

QUESTION_TERM_FACTOR = 0.35  # weight kept by a reference term that the question already states
NEAR_MISS_CREDIT = 0.8
NEAR_MISS_MIN_RATIO = 85  # rapidfuzz ratio (0-100) for "the same word, misspelt"
NEAR_MISS_MIN_LENGTH = 5
PAIR_WINDOW = 3  # words between the two terms of a reference pair
COPY_MIN_RATIO = 90  # rapidfuzz partial_ratio for "this text appears in the answer"
COPY_MIN_LENGTH = 20
# A reference of fewer informative terms than this is no reference (empty, or a single word):
# the keywords alone decide the score, and no verdict is final. A short reference ("At the main
# function.", "Abstraction and reusability.") is a real one: short questions have short answers.
THIN_REFERENCE_UNITS = 2
PROSE_REFERENCE_WORDS = 6
SHUFFLED_MIN_RECALL = 0.6  # a reordering of this much of the reference is flagged, not only held back
ENOUGH_REFERENCE_WEIGHT = 8.0  # about eight informative terms

# Sentences that talk to the grader instead of answering (English and Korean).
ADDRESSED_TO_GRADER = re.compile(
    r"ignore (all |any |the )?(previous|prior|above|earlier)|disregard (the |all |any )?(previous|above|instructions)"
    r"|(give|award|assign|grant)( me| this( answer)?)? (a )?(full|maximum|max|perfect|100|top)"
    r"|(full|maximum|perfect) (marks|score|points)|\b(score|grade|mark) (this|it|me) (as )?(100|correct|full)"
    r"|\bas (the|an?) (grader|evaluator|ai)|\bsystem prompt|\byou (are|must) (now )?(grade|score|mark)"
    r"|채점(자|기|하는)|만점|점수를 (주|부여)|100점|지시(를|사항을)? 무시|정답(으로|이라고) (처리|채점|인정)",
    re.IGNORECASE,
)
NON_ANSWER = re.compile(
    r"^\W*(i (do not|don'?t|dont) know|no idea|not sure|idk|pass|skip|n/?a|\?+"
    r"|없음|모름|모르겠\w*|잘 모르\w*|몰라\w*)\W*$",
    re.IGNORECASE,
)
OPTION_LABEL = re.compile(r"^\s*(?:[A-Ha-h]|[1-9])[.)]\s+")  # "B) ", "2. "
LIST_SEPARATORS = re.compile(r"[,;/|\n·•]+")


@dataclass
class Material:
    """What the grader compares the answer with."""

    answer: str
    reference: str
    keywords: list[str] = field(default_factory=list)
    stem: str = ""
    shown: list[str] = field(default_factory=list)  # choices and other text shown to the learner
    # The item's keywords as written, product names included (`keywords` holds only the ideas): a
    # bare list of them is no answer, whichever they are.
    listed_keywords: list[str] = field(default_factory=list)


def _acronym_of(words: list[str]) -> str:
    return "".join(word[0] for word in words if word)


def keywords_stated(text: str, keywords: list[str]) -> list[str]:
    """The `keywords` that `text`, read as an answer, mentions by the grader's own rule (the
    substring rule, stems and near-miss spellings, acronyms and their expansions): the terms a
    reference answer states, so that an answer restating it is credited with every one."""
    if not keywords:
        return []
    return Evidence(Material(answer=text, reference="", keywords=list(keywords))).keyword_matches


def _longest_increasing_run(candidates: list[list[int]]) -> int:
    """Length of the longest strictly increasing sequence that takes at most one position from
    each entry of `candidates` (patience sorting; an entry's positions go in decreasing order so
    that two of them never extend each other). A term the reference uses twice ("generation ...
    generates") may align with either use."""
    tails: list[int] = []
    for positions in candidates:
        for position in sorted(positions, reverse=True):
            index = bisect_left(tails, position)
            tails[index : index + 1] = [position]
    return len(tails)


class Evidence:
    """The measures and findings for one answer; computed lazily, each once."""

    def __init__(self, material: Material) -> None:
        self.material = material
        self.answer = Text(material.answer)
        self.reference = Text(material.reference)
        self.stem = Text(material.stem)
        self.keyword_texts = [Text(keyword) for keyword in material.keywords]

    # ------------------------------------------------------------------ matching
    @cached_property
    def _answer_units(self) -> set[str]:
        return {term.unit for term in self.answer.terms}

    @cached_property
    def _answer_latin_units(self) -> list[str]:
        return sorted({term.unit for term in self.answer.terms if term.script == "latin"})

    def credit(self, term: Term) -> float:
        """1 if the answer has the term, 0.8 for a near-miss spelling, else 0."""
        if term.unit in self._answer_units:
            return 1.0
        if term.script == "latin" and len(term.unit) >= NEAR_MISS_MIN_LENGTH and self._answer_latin_units:
            near = process.extractOne(term.unit, self._answer_latin_units, scorer=fuzz.ratio)
            if near is not None and near[1] >= NEAR_MISS_MIN_RATIO:
                return NEAR_MISS_CREDIT
        return 0.0

    @cached_property
    def reference_weights(self) -> dict[str, float]:
        """The reference's (and keywords') units with their weights, question terms demoted."""
        stem_units = self.stem.units
        weights: dict[str, float] = {}
        for text in (self.reference, *self.keyword_texts):
            for term in text.content_terms:
                weight = term.weight * (QUESTION_TERM_FACTOR if term.unit in stem_units else 1.0)
                weights[term.unit] = max(weights.get(term.unit, 0.0), weight)
        return weights

    @cached_property
    def _reference_terms(self) -> dict[str, Term]:
        found: dict[str, Term] = {}
        for text in (self.reference, *self.keyword_texts):
            for term in text.content_terms:
                found.setdefault(term.unit, term)
        return found

    @cached_property
    def matched(self) -> dict[str, float]:
        """Reference unit -> credit, for the units the answer has."""
        credits = {unit: self.credit(term) for unit, term in self._reference_terms.items()}
        return {unit: credit for unit, credit in credits.items() if credit > 0}

    @cached_property
    def one_sided_comparison(self) -> bool:
        """A comparison question ("how does X differ from Y?") answered about one side only
        (`comparison.py`): never correct, however well it describes that side."""
        coverage = comparison.side_coverage(
            self.material.stem, self.material.reference, self.reference_weights, self.matched
        )
        return coverage is not None and coverage.one_sided

    @cached_property
    def reference_is_thin(self) -> bool:
        """No reference text to judge meaning (keywords alone, or a single word): the grader then
        scores by the keywords but never finalises a verdict on them."""
        return len({term.unit for term in self.reference.content_terms}) < THIN_REFERENCE_UNITS

    # ------------------------------------------------------------------ measures
    @cached_property
    def matched_weight(self) -> float:
        return sum(self.reference_weights[unit] * credit for unit, credit in self.matched.items())

    @cached_property
    def recall(self) -> float:
        total = sum(self.reference_weights.values())
        return self.matched_weight / total if total else 0.0

    @cached_property
    def bounded_recall(self) -> float:
        """Recall against at most ENOUGH_REFERENCE_WEIGHT of the reference: a long reference
        lists several acceptable points ("name four of ..."), and a full answer covers enough
        of them, not all."""
        total = sum(self.reference_weights.values())
        if not total:
            return 0.0
        # "Terms" are words in English but several bigrams per word in Korean: count in words.
        content = self.reference.content_terms
        units_per_word = max(1.0, len(content) / max(1, len({term.word for term in content})))
        return min(1.0, self.matched_weight / min(total, ENOUGH_REFERENCE_WEIGHT * units_per_word))

    @cached_property
    def order(self) -> float:
        reference_terms = self.reference.content_terms
        positions: dict[str, list[int]] = {}
        for term in self.answer.terms:
            positions.setdefault(term.unit, []).append(term.word)
        found = total = 0.0
        for first, second in pairwise(reference_terms):
            if first.word == second.word:
                continue  # bigrams of one Korean word: their order says nothing
            weight = min(self.reference_weights.get(first.unit, 0.0), self.reference_weights.get(second.unit, 0.0))
            total += weight
            if any(
                0 < later - earlier <= PAIR_WINDOW
                for earlier in positions.get(first.unit, [])
                for later in positions.get(second.unit, [])
            ):
                found += weight
        return found / total if total else 0.0

    @cached_property
    def alignment(self) -> float:
        positions: dict[str, list[int]] = {}
        for index, term in enumerate(self.reference.content_terms):
            positions.setdefault(term.unit, []).append(index)
        candidates: list[list[int]] = []
        seen: set[str] = set()
        for term in self.answer.content_terms:
            if term.unit in positions and term.unit not in seen:
                seen.add(term.unit)
                candidates.append(positions[term.unit])
        return _longest_increasing_run(candidates) / len(candidates) if candidates else 0.0

    @cached_property
    def on_topic(self) -> float:
        related = set(self.reference_weights) | set(self.stem.units)
        total = found = 0.0
        for term in self.answer.content_terms:
            total += term.weight
            if term.unit in related:
                found += term.weight
        return found / total if total else 0.0

    # ------------------------------------------------------------------ keywords
    def _keyword_found(self, keyword: str, text: Text) -> bool:
        answer = self.material.answer.casefold()
        if keyword.casefold().strip() in answer:  # the spec's substring rule
            return True
        units = text.content_terms or text.terms
        if units and sum(self.credit(term) for term in units) / len(units) >= 0.75:
            return True
        return self._acronym_match(keyword)

    def _acronym_match(self, keyword: str) -> bool:
        keyword_words = [word.text for word in Text(keyword).words if word.script == "latin"]
        answer_words = [word.text for word in self.answer.words if word.script == "latin"]
        if len(keyword_words) == 1 and 2 <= len(keyword_words[0]) <= 6:  # "RAG" vs its expansion
            wanted = keyword_words[0]
            return any(
                _acronym_of(answer_words[i : i + len(wanted)]) == wanted
                for i in range(len(answer_words) - len(wanted) + 1)
            )
        if len(keyword_words) >= 2:  # the expansion vs "RAG"
            return _acronym_of(keyword_words) in answer_words
        return False

    @cached_property
    def keyword_matches(self) -> list[str]:
        return [
            keyword
            for keyword, text in zip(self.material.keywords, self.keyword_texts, strict=True)
            if self._keyword_found(keyword, text)
        ]

    @cached_property
    def keyword_coverage(self) -> float:
        keywords = self.material.keywords
        return len(self.keyword_matches) / len(keywords) if keywords else 0.0

    # ------------------------------------------------------------------ form
    @cached_property
    def prose(self) -> bool:
        """Written as sentences: English with function words, Korean with particles or endings."""
        words = self.answer.words
        if len(words) < 3:
            return False
        if self.answer.is_korean:
            # A particle after a Latin word ("LLM이", "API를") is a word of its own here: it marks one.
            inflected = sum(
                1
                for word in words
                if word.script == "hangul" and (is_inflected(word.text) or word.text in KOREAN_SUFFIXES)
            )
            return inflected / len(words) >= 0.25
        terms = self.answer.terms
        if sum(term.zipf > UNKNOWN_ZIPF for term in terms) < 0.5 * len(terms):
            return True  # mostly words the English lists do not know (another language): cannot judge
        function_words = sum(term.is_function_word for term in terms)
        return function_words / len(words) >= 0.15

    @cached_property
    def reference_is_prose(self) -> bool:
        """The reference is written in sentences (not "Abstraction and reusability.")."""
        return len({term.word for term in self.reference.content_terms}) >= PROSE_REFERENCE_WORDS

    @cached_property
    def flags(self) -> list[str]:
        if self.non_answer:
            return []
        checks = {
            "addressed_to_grader": self._addressed_to_grader,
            "term_list": self._term_list,
            "repetition": self._repetition,
            "copied_question": self._copied_question,
            "copied_choices": self._copied_choices,
            "shuffled_reference": self._shuffled,
            "keywords_amid_unrelated_words": self._keywords_amid_unrelated_words,
            "negates_reference": self._negates_reference,
            "unrelated_addition": self._unrelated_addition,
            "copied_shown_text": self._copied_shown_text,
        }
        return [name for name, check in checks.items() if check()]

    @cached_property
    def non_answer_kind(self) -> str | None:
        """Which kind of non-answer this is (`non_answers.py`): "declined" (an explicit "I don't
        know", "?", "pass", "모르겠습니다"), "stem_repeated", "stem_with_term_list", "keyword_list"; None: an answer."""
        if NON_ANSWER.match(self.material.answer.strip()):
            return "declined"
        return non_answers.kind(
            self.material.answer, self.material.stem, self.material.listed_keywords or self.material.keywords
        )

    @cached_property
    def declined(self) -> bool:
        """The learner gave no answer (`non_answer_kind`): finalised as incorrect."""
        return self.non_answer_kind is not None

    @cached_property
    def non_answer(self) -> bool:
        """A declined answer, or nothing but punctuation and function words. A one-word answer is
        not a non-answer: to "Where does a C++ program start?", "main" is correct."""
        return self.declined or not self.answer.content_terms

    @cached_property
    def unrelated(self) -> bool:
        """About something else entirely: see `relatedness.py` (finalised as incorrect)."""
        return is_unrelated(self)

    def _addressed_to_grader(self) -> bool:
        return bool(ADDRESSED_TO_GRADER.search(self.material.answer))

    def _term_list(self) -> bool:
        content = len({term.word for term in self.answer.content_terms})  # words, not bigrams
        pieces = [piece for piece in LIST_SEPARATORS.split(self.material.answer) if piece.strip()]
        listed = len(pieces) >= 3 and max(len(Text(piece).words) for piece in pieces) <= 3
        return content >= 3 and (listed or not self.prose)

    def _repetition(self) -> bool:
        words = [word.text for word in self.answer.words]
        if len(words) < 6:
            return False
        trigrams = list(zip(words, words[1:], words[2:], strict=False))
        repeated = sum(count - 1 for count in Counter(trigrams).values())
        if trigrams and repeated / len(trigrams) >= 0.4:  # much of the text says the same again
            return True
        content = [term.unit for term in self.answer.content_terms]
        return len(content) >= 6 and len(set(content)) / len(content) < 0.4

    def _contains(self, shown: str) -> bool:
        shown = " ".join(shown.split())
        return (
            len(shown) >= COPY_MIN_LENGTH and fuzz.partial_ratio(shown.casefold(), self._answer_flat) >= COPY_MIN_RATIO
        )

    @cached_property
    def _answer_flat(self) -> str:
        return " ".join(self.material.answer.split()).casefold()

    def _copied_question(self) -> bool:
        if self._contains(self.material.stem) and len(self._answer_flat) >= len(self.material.stem) * 0.6:
            return True
        stem_units = set(self.stem.units)
        content = self.answer.content_terms
        from_stem = sum(term.weight for term in content if term.unit in stem_units)
        total = sum(term.weight for term in content)
        return len(content) >= 3 and total > 0 and from_stem / total >= 0.9

    def _copied_choices(self) -> bool:
        return sum(self._contains(text) for text in self.material.shown) >= 2

    def _shuffled(self) -> bool:
        words = [word.text for word in self.answer.words]
        alphabetical = len(words) >= 6 and sum(a <= b for a, b in pairwise(words)) >= 0.85 * (len(words) - 1)
        # Most of the reference's vocabulary, with its phrases broken: a paraphrase that uses
        # that much of the reference keeps some of its word pairs.
        scrambled = len(self.matched) >= 6 and self.recall >= 0.6 and self.alignment < 0.5 and self.order < 0.2
        # The same read word by word (Korean bigrams keep their order inside a shuffled word).
        reordered = self._order.reordered_below(word_order.FLAG_IN_ORDER) and self.recall >= SHUFFLED_MIN_RECALL
        return alphabetical or scrambled or reordered

    @cached_property
    def _order(self) -> word_order.Order:
        return word_order.order(self.material.answer, self.material.reference)

    @cached_property
    def reordered(self) -> bool:
        """Mostly the reference's words, with their order broken (`word_order.py`): never final
        as correct; flagged as shuffled where hardly any of its pairs keep their order."""
        return self._order.reordered

    def _keywords_amid_unrelated_words(self) -> bool:
        return (
            not self.reference_is_thin
            and self.keyword_coverage >= 0.5
            and len(self.answer.content_terms) >= 6
            and self.on_topic < 0.35
        )

    # ------------------------------------------------------------------ contradiction
    @cached_property
    def _answer_clauses(self) -> list[contradiction.Clause]:
        return contradiction.clauses(self.material.answer)

    @cached_property
    def _comparisons(self) -> list[contradiction.Comparison]:
        return contradiction.compare(self._answer_clauses, contradiction.clauses(self.material.reference))

    @cached_property
    def contradictions(self) -> int:
        """Answer clauses that restate a reference clause with the opposite polarity."""
        return sum(comparison.contradicts for comparison in self._comparisons)

    @cached_property
    def negation_mismatch(self) -> float:
        """Share of the restated weight whose negation differs from the reference (0-1)."""
        total = sum(comparison.shared_weight for comparison in self._comparisons)
        mismatched = sum(comparison.negated_weight for comparison in self._comparisons)
        return mismatched / total if total else 0.0

    @cached_property
    def opposites_swapped(self) -> float:
        return float(sum(comparison.opposites_swapped for comparison in self._comparisons))

    @cached_property
    def _support(self) -> contradiction.Support:
        related = set(self.reference_weights) | set(self.stem.units)
        return contradiction.support(self._answer_clauses, related)

    @cached_property
    def unsupported_share(self) -> float:
        """Share of the answer's informative weight in clauses that share no term with the
        reference, keywords or question (0-1)."""
        return self._support.unsupported_share

    def _negates_reference(self) -> bool:
        # A flag where it decides something: an answer covering less of the reference is not
        # finalised as correct anyway, and long answers to multi-point references restate many
        # points in other words, where clause matching errs (the measures stay, as features).
        return self.contradictions > 0 and self.recall >= contradiction.FLAG_MIN_RECALL

    def _copied_shown_text(self) -> bool:
        return bool(self.copied_shown_texts)

    def _unrelated_addition(self) -> bool:
        # Only beside a part that restates much of the reference: an answer wholly about something
        # else is unrelated (a verdict, not a flag), and a human's correct answer that elaborates in
        # its own words ("it is very simple and inexpensive") covers less of the reference's
        # vocabulary than a pasted reference does; words cannot tell such a sentence from "bananas
        # are purple on Tuesdays", so a whole sentence off the reference needs more of it restated.
        support = self._support
        if self.reference_is_thin or self.recall < contradiction.FLAG_MIN_RECALL:
            return False  # keywords alone say nothing about which sentences are off the point
        return support.salad or (support.off_clauses > 0 and self.recall >= contradiction.OFF_CLAUSE_MIN_RECALL)

    @cached_property
    def copied_shown_texts(self) -> list[str]:
        """Shown texts (another item's option or stem, a distractor) pasted into the answer, other
        than the reference itself or a part of it: one is enough, as it is no evidence either."""
        reference = " ".join(self.material.reference.split()).casefold()
        copied = []
        for shown in self.material.shown:
            flat = " ".join(OPTION_LABEL.sub("", shown).split()).casefold()
            if len(Text(flat).content_terms) < 3 or not self._contains(flat):
                continue
            if reference and (
                fuzz.partial_ratio(flat, reference) >= COPY_MIN_RATIO
                or fuzz.token_set_ratio(flat, reference) >= COPY_MIN_RATIO
            ):
                continue  # the reference (or the key) itself: copying it is judged by the rest
            copied.append(shown)
        return copied
