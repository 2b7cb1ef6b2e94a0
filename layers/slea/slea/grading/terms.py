"""Text to weighted terms, the unit of evidence of the offline grader.

- English (and any Latin-script text): lower-cased Snowball stems, so "retrieves", "retrieval"
  and "retrieving" are one term.
- Korean: character bigrams of each word (eojeol) after its particle or ending is dropped. Korean
  attaches particles and endings to the word ("문서를", "문서에서"), so whole words rarely match
  while their bigrams ("문서") do; bigrams also survive the spacing variations of real answers.
  The particles and the endings of 하다/되다/시키다 verbs and of the copula are listed
  (`KOREAN_SUFFIXES`), as Snowball lists English suffixes: "검색해서", "검색한", "검색함" and
  "검색" are one term, as "searching", "searched" and "search" are. Left in, an ending made a
  bigram across the word's end ("적용합니다" gave "용합", "해결함" gave "결함") that matched
  only an answer using the same ending, so a Korean answer worded with other endings than its
  reference lost recall and looked off topic where its English twin, stemmed, did not.
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


# Korean particles, and the endings a noun takes as a verb (하다, 되다, 시키다) or with the copula
# (이다), longest first: what follows the word's stem the way "-ing", "-ed" and "the" follow or
# precede an English one. Nominal endings (함, 됨, 임) are the note style of Korean answers and of
# the generator's reference answers ("충돌은 체이닝으로 해결함").
_PARTICLE_TEXT = (
    "에서부터 에게서 에서는 에서도 에서의 으로부터 으로서 으로써 으로는 으로도 이라는 이라고 이라면 이라도 "
    "에게는 에게도 까지는 부터는 처럼 보다는 에서 에게 께서 으로 로서 로써 로는 로도 부터 까지 처럼 보다 "
    "마다 이나 이란 라는 라고 에는 에도 와의 과의 와는 과는 만의 조차 마저 밖에 은 는 이 가 을 를 에 로 와 과 "
    "의 도 만 나 란"
)
_ENDING_TEXT = (
    "했습니다 하였습니다 합니다만 하였으며 하였다 하였고 했으며 했지만 했는데 했어요 하려면 하도록 하므로 하니까 "
    "하는데 하지만 하기에 하면서 합니다 한다면 했다 했고 하고 하며 하면 하는 하게 하지 하기 하여 해서 해야 해요 "
    "하던 한다 하다 함을 함이 한 할 함 해 하 "
    "되었습니다 되었다 되었고 됐습니다 됩니다 되므로 되도록 되는데 되지만 되면서 됐다 된다 되다 되고 되며 되면 "
    "되는 되게 되지 되기 되어 돼서 돼요 된 될 됨 돼 되 "
    "시켰습니다 시킵니다 시켰다 시킨다 시키다 시키고 시키는 시키지 시키기 시켜서 시켜 시킨 시킬 시킴 시키 "
    "이었습니다 였습니다 입니다 이었다 였다 이다 이며 이고 이라서 이므로 이지만 이에요 예요 이라 임 인 "
    "습니다 니다 "
    # endings of other verbs, two syllables or more (one-syllable ones are the frequency rule's)
    "었습니다 았습니다 었으며 았으며 거나 지만 면서 는데 니까 므로 도록 려고 려면 어서 아서 어요 아요 어야 아야 "
    "었다 았다 었고 았고 겠다 는다 다가"
)
KOREAN_SUFFIXES: tuple[str, ...] = tuple(
    sorted(set(_PARTICLE_TEXT.split()) | set(_ENDING_TEXT.split()), key=len, reverse=True)
)
KOREAN_STEM_MIN = 2  # syllables a stem keeps: "차이", "부하", "권한" are never cut to one syllable


def _known_suffix(word: str) -> str:
    """The longest listed particle or ending `word` ends in that leaves a stem of two syllables,
    or of one when the suffix has two or more ("쌍으로", "씁니다"): a one-syllable ending cut
    from a two-syllable word would take the noun apart ("차이", "부하", "권한")."""
    for suffix in KOREAN_SUFFIXES:
        least = 1 if len(suffix) > 1 else KOREAN_STEM_MIN
        if word.endswith(suffix) and len(word) - len(suffix) >= least:
            return suffix
    return ""


@lru_cache(maxsize=65536)
def _strip_particle(word: str) -> str:
    """The stem of a Korean word: its listed particle and ending dropped ("검색하기를" -> "검색"),
    else one trailing syllable or two as common as a particle (the frequency lists' rule)."""
    stem = word
    for _ in range(2):  # a particle after an ending: "검색하기" + "를"
        suffix = _known_suffix(stem)
        if not suffix:
            break
        stem = stem[: -len(suffix)]
    if stem != word:
        return stem
    bigrams = frequencies()["ko_bigrams"]
    for size in (2, 1):
        if len(word) - size >= 2 and bigrams.get(word[-size:], 0.0) >= KOREAN_PARTICLE_ZIPF:
            return word[:-size]
    return word


def is_inflected(word: str) -> bool:
    """A Korean word ending in a particle or an ending: a listed one, or a last syllable that common."""
    if len(word) < 2:
        return False
    listed = any(word.endswith(suffix) and len(word) > len(suffix) for suffix in KOREAN_SUFFIXES)
    return listed or frequencies()["ko_bigrams"].get(word[-1], 0.0) >= KOREAN_ENDING_ZIPF


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
