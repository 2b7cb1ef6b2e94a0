"""Text to weighted terms, the unit of evidence of the offline grader.

- English (and any Latin-script text): lower-cased Snowball stems, so "retrieves", "retrieval"
  and "retrieving" are one term.
- Korean: character bigrams of each word (eojeol) after one trailing particle is dropped. Korean
  attaches particles and endings to the word ("문서를", "문서에서"), so whole words rarely match
  while their bigrams ("문서") do; bigrams also survive the spacing variations of real answers.
- Weights: how rare a term is in general language, from wordfreq's frequency lists (see
  `term_frequencies.json.gz` and its LICENCE): "the" and "이" weigh 0, "data" about 0.5,
  "pointer" and "벡터" about 1. A term of the reference that is also in the question's stem
  weighs less (question demoting): restating the question shows no knowledge.
"""

import gzip
import json
import re
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Literal

import snowballstemmer

HANGUL_RUN = re.compile("[\uac00-\ud7a3]+")
# Letters and digits of any script but Hangul; hyphens and apostrophes split words.
TOKEN = re.compile(r"[\uac00-\ud7a3]+|[^\W_\uac00-\ud7a3]+")
FUNCTION_WORD_ZIPF = 6.0  # "the" 7.7, "is" 7.1, "can" 6.5, "use" 6.2; "data" 5.3 is content
COMMON_ZIPF, RARE_ZIPF = 7.0, 3.5  # weight 0 at or above COMMON, 1 at or below RARE
UNKNOWN_ZIPF = 3.0  # a word missing from the lists is rarer than any listed one
KOREAN_PARTICLE_ZIPF = 6.3  # a trailing 1-2 syllable token at least this common is a particle/ending
KOREAN_ENDING_ZIPF = 6.0  # a last syllable this common marks an inflected word (particle or verb ending)


@cache
def frequencies() -> dict[str, dict[str, float]]:
    """Loaded on first use: only short-answer grading needs it (about 190 kB compressed)."""
    packed = resources.files("slea.grading").joinpath("term_frequencies.json.gz").read_bytes()
    document: dict[str, dict[str, float]] = json.loads(gzip.decompress(packed))
    return document


@cache
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Snowball is pure Python and most of the grader's time: the same words recur in every answer."""
    stem: str = _stemmer().stemWord(word)
    return stem


def weight_of_zipf(zipf: float) -> float:
    return min(1.0, max(0.0, (COMMON_ZIPF - zipf) / (COMMON_ZIPF - RARE_ZIPF)))


def _korean_zipf(gram: str) -> float:
    bigrams = frequencies()["ko_bigrams"]
    if gram in bigrams:
        return bigrams[gram]
    # An unseen bigram that spans a word and its ending ("색한") is as common as its parts.
    return sum(bigrams.get(char, UNKNOWN_ZIPF) for char in gram) / len(gram)


def _strip_particle(word: str) -> str:
    bigrams = frequencies()["ko_bigrams"]
    for size in (2, 1):
        if len(word) - size >= 2 and bigrams.get(word[-size:], 0.0) >= KOREAN_PARTICLE_ZIPF:
            return word[:-size]
    return word


def is_inflected(word: str) -> bool:
    """A Korean word ending in a particle or a verb ending (its last syllable is that common)."""
    return len(word) >= 2 and frequencies()["ko_bigrams"].get(word[-1], 0.0) >= KOREAN_ENDING_ZIPF


Script = Literal["latin", "hangul"]


@dataclass(frozen=True)
class Term:
    unit: str  # a stem or a character bigram
    word: int  # index of the word it came from, for order evidence
    script: Script
    zipf: float

    @property
    def weight(self) -> float:
        return weight_of_zipf(self.zipf)

    @property
    def is_function_word(self) -> bool:
        return self.script == "latin" and self.zipf >= FUNCTION_WORD_ZIPF


@dataclass(frozen=True)
class Word:
    text: str  # as written, lower-cased
    script: Script


def words(text: str) -> list[Word]:
    return [
        Word(token.casefold(), "hangul" if HANGUL_RUN.fullmatch(token) else "latin") for token in TOKEN.findall(text)
    ]


def terms(text: str) -> list[Term]:
    """The terms of `text` in reading order (a Korean word yields several bigrams)."""
    found: list[Term] = []
    stems = frequencies()["en_stems"]
    for index, word in enumerate(words(text)):
        if word.script == "latin":
            stem = _stem(word.text)
            found.append(Term(stem, index, "latin", stems.get(stem, UNKNOWN_ZIPF)))
            continue
        core = _strip_particle(word.text)
        grams = [core[i : i + 2] for i in range(len(core) - 1)] or [core]
        found.extend(Term(gram, index, "hangul", _korean_zipf(gram)) for gram in grams)
    return found


@dataclass
class Text:
    """A text with its terms and per-unit weights computed once."""

    raw: str

    @cached_property
    def words(self) -> list[Word]:
        return words(self.raw)

    @cached_property
    def terms(self) -> list[Term]:
        return terms(self.raw)

    @cached_property
    def units(self) -> dict[str, float]:
        """Each distinct unit with its weight."""
        return {term.unit: term.weight for term in self.terms}

    @cached_property
    def content_terms(self) -> list[Term]:
        return [term for term in self.terms if term.weight > 0 and not term.is_function_word]

    @cached_property
    def word_count(self) -> int:
        """Words counted as English writes them: a Korean word carrying a particle or an ending
        ("키에", "적용합니다") is two, as its English twin writes the function word apart ("to the
        key", "applies"). Length features then mean the same in both languages: the fitted model
        learnt them on English answers, and counted in eojeol a Korean answer looked about a third
        shorter than its English twin and scored lower for it."""
        return sum(1 + (word.script == "hangul" and is_inflected(word.text)) for word in self.words)

    @cached_property
    def is_korean(self) -> bool:
        hangul = sum(word.script == "hangul" for word in self.words)
        return hangul * 2 >= max(1, len(self.words))
