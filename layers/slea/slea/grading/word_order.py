"""Whether an answer says what a text says in the order that means it: word order, in English and
Korean, for the rules that decide a grade without a reviewer.

The grader's closeness measures count words (stems, Korean bigrams, character n-grams within
words), so the reference's words shuffled into nonsense are as close as the reference itself. This
measure reads the order of words: of the answer's consecutive pairs of content words that both
occur in the other text, the share that occur there in the same order within `WINDOW` content
words. A restatement or a paraphrase that keeps some of the text's phrases keeps most of its pairs
in order, a clause moved elsewhere breaks one pair at its seam, and a shuffle keeps about
`WINDOW / n` of them by chance.

A content word is a word with a content term (an English stem, or the bigrams of a Korean word
without its particle); two words are the same word when they share a stem, or half the bigrams of
the shorter (Korean endings differ: "검색한" and "검색해서" are one word).
"""

from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from slea.grading.terms import terms

WINDOW = 3  # content words between the two words of a pair in the other text
# An answer whose shared words keep fewer of their pairs in order than this does not say what the
# other text says, whatever words it shares (propagation and finalisation as correct need it).
MIN_IN_ORDER = 0.5
# A near copy of a reviewed answer (what propagation compares) keeps nearly all of its pairs; the
# reference's words shuffled keep about half where the reference says a word several times.
NEAR_COPY_IN_ORDER = 0.8
# Below this share an answer of the reference's words is flagged (capped below the pass mark), not
# only kept from being final: no answer the humans called correct in the five corpora's held-out
# splits kept so few of its pairs (at 0.5, 40 of 5,483 did: active turned passive, lists reordered).
FLAG_IN_ORDER = 0.25
MIN_SHARED_WORDS = 4
MIN_OVERLAP = 0.7  # of the answer's content words, the share the other text has: "its words"
MIN_PAIRS = 2  # fewer pairs of shared words say nothing about order (a one- or two-word answer)


@dataclass(frozen=True)
class Order:
    """How the answer's shared words follow the other text."""

    pairs: int  # consecutive pairs of the answer's words that the other text also has
    in_order: int  # ... of which the other text has in the same order, close together
    shared_words: int  # the answer's content words the other text has
    words: int  # the answer's content words

    @property
    def overlap(self) -> float:
        """The share of the answer's content words that the other text has."""
        return self.shared_words / self.words if self.words else 0.0

    @property
    def share(self) -> float:
        return self.in_order / self.pairs if self.pairs else 1.0

    @property
    def scrambled(self) -> bool:
        """Enough shared pairs to judge, and many of them out of the other text's order."""
        return self.out_of_order(MIN_IN_ORDER)

    def out_of_order(self, least: float) -> bool:
        return self.pairs >= MIN_PAIRS and self.share < least

    @property
    def reordered(self) -> bool:
        """The other text's words, mostly, with their order broken: a shuffle, not a paraphrase
        (a paraphrase says it in words of its own, and keeps the phrases it borrows)."""
        return self.reordered_below(MIN_IN_ORDER)

    def reordered_below(self, least: float) -> bool:
        return self.out_of_order(least) and self.shared_words >= MIN_SHARED_WORDS and self.overlap >= MIN_OVERLAP


@lru_cache(maxsize=16384)
def content_words(text: str) -> tuple[frozenset[str], ...]:
    """The text's content words in reading order, each as the set of its content units."""
    found: dict[int, set[str]] = {}
    for term in terms(text):
        if term.weight > 0 and not term.is_function_word:
            found.setdefault(term.word, set()).add(term.unit)
    return tuple(frozenset(units) for _, units in sorted(found.items()))


def _same_word(first: frozenset[str], second: frozenset[str]) -> bool:
    shared = len(first & second)
    return shared > 0 and 2 * shared >= min(len(first), len(second))


@lru_cache(maxsize=65536)
def order(answer: str, other: str) -> Order:
    """How the answer's words shared with `other` keep the order they have in `other`."""
    theirs = content_words(other)
    positions: list[list[int]] = []
    mine = content_words(answer)
    for word in mine:
        found = [index for index, candidate in enumerate(theirs) if _same_word(word, candidate)]
        if found:
            positions.append(found)
    pairs = in_order = 0
    for earlier, later in pairwise(positions):
        if earlier == later:
            continue  # the same word twice ("bulb bulb"): no order to keep
        pairs += 1
        in_order += any(0 < q - p <= WINDOW for p in earlier for q in later)
    return Order(pairs=pairs, in_order=in_order, shared_words=len(positions), words=len(mine))
