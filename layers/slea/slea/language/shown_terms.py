"""A key term as a person reads it: a whole word of the text it came from, never the bare stem
the keyword matcher keeps.

Korean keywords are stored bare so that a substring test finds them in any inflection: the item
writer strips what follows a word ("덧붙이는" -> "덧붙이", "PyTorch가" -> "PyTorch"), and
"덧붙이" then matches "덧붙이는", "덧붙이고" and "덧붙이면". Cut from a noun, what is stripped is a
particle and the bare term is a whole word; cut from a verb or an adjective, it is an ending and
the bare term is a stem, which no one writes alone. Shown to a learner ("your answer did not
mention: 덧붙이") or to a reviewer as the key, a stem reads as a typo.

Which it was is read from the texts the keyword came from (the reference answer, the stored
explanation): a keyword written there alone or followed by a particle only a noun takes (를, 의,
에, 에서, 으로, 와, 과, 도, 이다 ...) is a noun, shown as it is; otherwise it is shown as the text
writes it ("덧붙이는"), a whole word. 은 and 을 after a final consonant ("모델은", "먹은") and 는 after
a vowel ("버스는", "덧붙이는") follow a noun (topic, object) and a verb stem (an adnominal ending)
alike: 은 and 을 are read as particles (definitions say what a thing is: nouns), 는 as an ending (a
key point's verb: "덧붙이는"), and 는 after a final consonant, which no noun takes, as an ending.
A keyword followed by 하다, 되다 or 시키다 in any form ("분산하는", "저장된"), or by 적
("평균적으로"), is a noun too: the verb is made from it.

Why not a morphological analyser: kiwipiepy, the one that runs without Java or a system
dictionary, needs its 105 MB model package, a 40 MB native library and numpy (66 MB): 212 MB
unpacked against a layer of 120 MB and Lambda's 250 MB limit for a function and its layers, and
0.5-0.9 s to load its model, 1.0-1.3 s for its first sentence and 528 MB of memory on the
grading path's cold start (measured on kiwipiepy 0.24.1). The texts a keyword came from say
which words are nouns well enough for the terms shown here.
"""

import re

HANGUL = re.compile("[\uac00-\ud7a3]")
# Particles (and the copula) that follow a noun and never a verb stem: after one of these the
# keyword is a noun, a whole word. Longest first, so "에서" is not read as "에" + "서".
NOUN_PARTICLES = tuple(
    sorted(
        {
            *("이", "가", "를", "의", "에", "에서", "에게", "께", "한테", "으로", "로", "와", "과"),
            *("도", "만", "까지", "부터", "보다", "처럼", "마다", "조차", "이나", "나", "이란", "란"),
            *("으로서", "로서", "으로써", "로써", "에는", "에도", "에서는", "으로는", "로는", "과의", "와의"),
            *("이다", "입니다", "이며", "이고", "이에요", "예요", "이라는", "라는", "이라고", "라고"),
            *("에서의", "으로의", "로의", "들", "들이", "들을", "들의", "들은", "들은", "들과", "들에"),
        },
        key=len,
        reverse=True,
    )
)

# The first syllable of 하다, 되다 and their forms, and the suffixes 시키다, 적, 화: made from a noun.
NOUN_VERB_SYLLABLES = frozenset("하한할함합해했되된될됨됩돼됐")
NOUN_SUFFIXES = ("시키", "시킨", "시켜", "시킬", "시킴", "적", "화")


def _has_final_consonant(syllable: str) -> bool:
    return "\uac00" <= syllable <= "\ud7a3" and (ord(syllable) - 0xAC00) % 28 != 0


def _is_noun_tail(keyword: str, tail: str) -> bool:
    if tail in ("은", "을"):
        return _has_final_consonant(keyword[-1])
    return tail == "" or tail in NOUN_PARTICLES or tail[0] in NOUN_VERB_SYLLABLES or tail.startswith(NOUN_SUFFIXES)


def _tails(keyword: str, texts: list[str]) -> list[str]:
    """What follows `keyword` up to the end of the word, at each place the texts use it as the
    start of a word (an empty tail: it stands alone there)."""
    pattern = re.compile(r"(?<![\w])" + re.escape(keyword) + r"([\uac00-\ud7a3]*)")
    return [match.group(1) for text in texts for match in pattern.finditer(text)]


# A word made of a verb from 하다 or 되다 and its ending ("답하거나", "저장되는", "정해진", "사용한"):
# a whole word, but a verb's, which a key term is not. Nouns that end the same way ("제한", "권한")
# have two syllables; a verb form read as one is left to the caller to rank last, never dropped.
VERB_FORM = re.compile(
    r"[\uac00-\ud7a3](?:하|되)(?:거나|고|며|는|여|면|지|기|게|도록|다)$"
    r"|[\uac00-\ud7a3]{2,}(?:한|된|할|될|했|됐|해|돼|해진|진|한다|된다|합니다|됩니다)$"
)


def reads_as_a_verb(word: str) -> bool:
    """Is `word` (a whole Korean word) a verb's form rather than a noun? See VERB_FORM."""
    return bool(VERB_FORM.search(word.strip()))


def whole_term(keyword: str, texts: list[str]) -> str:
    """`keyword` as a whole word of `texts` (the reference answer, the explanation): itself if it
    is Latin, stands alone there, or is a noun there; else the first word of the texts it starts."""
    keyword = keyword.strip()
    if not HANGUL.search(keyword[-1:]):
        return keyword
    tails = _tails(keyword, texts)
    if not tails or any(_is_noun_tail(keyword, tail) for tail in tails):
        return keyword
    return keyword + tails[0]


def whole_terms(keywords: list[str], texts: list[str]) -> list[str]:
    """Each keyword as a whole term, in order, without duplicates."""
    shown = [whole_term(keyword, texts) for keyword in keywords]
    return list(dict.fromkeys(term for term in shown if term))
