"""Korean particles that depend on the sound before them: 은/는, 이/가, 을/를, 와/과, 아/야,
(으)로, (이)에요/예요, and the optional 이 of (이)란, (이)나, (이)라는 ...

Hand-rolled rather than a library: the PyPI packages that pick particles (tossi, last released
2018; josa; pyjosa; korean-josa and hangeul, 0.x releases of 2026) decide by the Hangul syllable
alone and, after a Latin word ("PyTorch", "API") or a Hanja one, keep the alternation form
("PyTorch은(는)") that the learner should never see. Most of what this project writes before a
particle is Latin: concept names, acronyms and products. The batchim rule itself is a few lines
of Unicode arithmetic; the reading of Latin text is the part no library covers.

Which form follows what (`final_sound`): the last sound of the text before the particle as it is
read aloud in Korean, after closing quotes, punctuation and a trailing parenthesis ("인공지능(AI)"
is read "인공지능") are set aside:
- a Hangul syllable: its final consonant (batchim), from the code point (U+AC00 + 28 per vowel);
- digits: the Sino-Korean reading of the number's end ("3" 삼, "10" 십, "2025" 오, "1000" 천);
- a word ending in a capital letter ("API", "GPU", "DynamoDB", "iOS") is spelled out, so its last
  letter's Korean name counts: L 엘 and R 알 end in ㄹ, M 엠 and N 엔 in another consonant, every
  other letter's name in a vowel ("API" 에이피아이 -> 는, "LLM" 엘엘엠 -> 은, "SQL" 에스큐엘 -> 로);
- another Latin word is read as an English loanword, by its ending (READINGS overrides it for
  words the rule gets wrong): -m, -n, -ng and -me/-ne end in a consonant (알고리즘, 토큰, 타임),
  -l/-le in ㄹ (모델, 테이블), -ck, -ook, -ic, -out and a single short vowel before p, t, b or k
  in a consonant (스택, 노트북, 로직, 레이아웃, 앱, 챗, 웹), anything else in a vowel, as English
  loanwords mostly end (서버, 테스트, 클라우드; "PyTorch" 파이토치 -> 는);
- anything else (Hanja, symbols other than %): a consonant, the form written first in the
  conventional "은(는)": a particle is always chosen, never left as an alternation.
"""

import re
from typing import Literal

FinalSound = Literal["vowel", "rieul", "consonant"]

HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
RIEUL_BATCHIM = 8  # ㄹ's index among the 28 batchim slots (0 is none)
# Compatibility jamo read by their names: 기역 ... 히읗 end in a consonant, ㄹ's 리을 in ㄹ.
JAMO_CONSONANTS, JAMO_VOWELS = (0x3131, 0x314E), (0x314F, 0x3163)
SINO_DIGITS = "영일이삼사오육칠팔구"
# The unit a number ending in zeros is read with: 10 십, 100 백, 1000 천, 10^4..10^7 만, ...
POWERS = ((1, "십"), (2, "백"), (3, "천"), (4, "만"), (8, "억"), (12, "조"), (16, "경"))
LETTER_NAME_FINALS: dict[str, FinalSound] = {"L": "rieul", "R": "rieul", "M": "consonant", "N": "consonant"}
# Words the ending rule reads wrongly, as Korean writes them.
READINGS: dict[str, FinalSound] = {
    "github": "vowel",  # 깃허브
    "hub": "vowel",  # 허브
    "group": "consonant",  # 그룹
    "hadoop": "consonant",  # 하둡
    "template": "consonant",  # 템플릿
    "type": "consonant",  # 타입
    "jpeg": "consonant",  # 제이펙
    "check": "vowel",  # 체크
    "bit": "vowel",  # 비트
}
SYMBOL_FINALS: dict[str, FinalSound] = {"%": "vowel"}  # 퍼센트
# Closing quotes (straight, curly, corner, angle) and punctuation, set aside before the word.
CLOSERS = "\"'\u201d\u2019\u300d\u300f\u300b\u3009>.,;:!?*_`~ \t\n"
BRACKETS = {")": "(", "]": "[", "\uff09": "\uff08"}  # and the full-width parenthesis

# (after a consonant, after a vowel or ㄹ-less vowel): the pairs written as alternations.
PAIRS = (("은", "는"), ("이", "가"), ("을", "를"), ("과", "와"), ("아", "야"))


def syllable_final(char: str) -> FinalSound:
    batchim = (ord(char) - HANGUL_FIRST) % 28
    return "vowel" if batchim == 0 else "rieul" if batchim == RIEUL_BATCHIM else "consonant"


def _number_final(digits: str) -> FinalSound:
    significant = digits.lstrip("0")
    if not significant:
        return "consonant"  # 영
    zeros = len(significant) - len(significant.rstrip("0"))
    if zeros == 0:
        return syllable_final(SINO_DIGITS[int(significant[-1])])
    unit = [name for power, name in POWERS if zeros >= power][-1]
    return syllable_final(unit)


def _english_final(word: str) -> FinalSound:
    lowered = word.casefold()
    if lowered in READINGS:
        return READINGS[lowered]
    if lowered.endswith(("m", "n", "ng", "me", "ne")):
        return "consonant"
    if lowered.endswith(("l", "le")):
        return "rieul"
    if lowered.endswith(("ck", "ook", "ic", "out", "pp", "tt")) or re.search(r"(?:^|[^aeiou])[aeiou][ptbk]$", lowered):
        return "consonant"
    return "vowel"


def _latin_final(word: str) -> FinalSound:
    if word.casefold() in READINGS:
        return READINGS[word.casefold()]
    if word[-1].isupper():  # spelled out: its last letter's Korean name
        return LETTER_NAME_FINALS.get(word[-1], "vowel")
    return _english_final(word)


def _without_trailing_parenthesis(text: str) -> str:
    """`text` without its closing quotes and punctuation and one trailing bracketed part, if
    something is left before it ("인공지능(AI)" -> "인공지능"; "(RAG)" alone -> "RAG")."""
    text = text.rstrip(CLOSERS)
    while text and text[-1] in BRACKETS:
        opening = text.rfind(BRACKETS[text[-1]])
        before = text[:opening].rstrip(CLOSERS) if opening > 0 else ""
        if not before:
            return text[opening + 1 : -1].rstrip(CLOSERS) if opening >= 0 else text[:-1]
        text = before
    return text


def _digits_final(text: str) -> FinalSound:
    number = re.search(r"(?:(\d)\.)?([\d,]+)$", text)
    if number is None:
        return "consonant"
    digits = number.group(2).replace(",", "")
    # After a decimal point digits are read one by one ("2.0" 이 점 영).
    return _number_final(digits[-1] if number.group(1) else digits)


def _jamo_final(char: str) -> FinalSound | None:
    code = ord(char)
    if JAMO_CONSONANTS[0] <= code <= JAMO_CONSONANTS[1]:
        return "rieul" if char == "\u3139" else "consonant"  # ㄹ 리을
    if JAMO_VOWELS[0] <= code <= JAMO_VOWELS[1]:
        return "vowel"
    return None


def final_sound(text: str) -> FinalSound:
    """How the text before a particle ends when read aloud in Korean (see the module's notes)."""
    text = _without_trailing_parenthesis(text)
    last = text[-1:] or " "
    if HANGUL_FIRST <= ord(last) <= HANGUL_LAST:
        return syllable_final(last)
    if last.isascii() and last.isdigit():
        return _digits_final(text)
    if last.isascii() and last.isalpha():
        return _latin_final(re.findall(r"[A-Za-z]+$", text)[0])
    return _jamo_final(last) or SYMBOL_FINALS.get(last, "consonant")


def _alternations() -> dict[str, tuple[str, str, str]]:
    """Each written alternation -> (after a consonant, after a vowel, after ㄹ)."""
    forms: dict[str, tuple[str, str, str]] = {}
    for consonant, vowel in PAIRS:
        for written in (
            f"{consonant}({vowel})",
            f"({consonant}){vowel}",
            f"{vowel}({consonant})",
            f"({vowel}){consonant}",
            f"{consonant}/{vowel}",
            f"{vowel}/{consonant}",
        ):
            forms[written] = (consonant, vowel, consonant)
    for written in ("(으)로", "으로(로)", "로(으로)", "(으)로/로", "으로/로", "로/으로"):
        forms[written] = ("으로", "로", "로")  # ㄹ takes 로: 파일로, 모델로
    for written in ("(이)에요", "이에요(예요)", "예요(이에요)", "이에요/예요", "예요/이에요"):
        forms[written] = ("이에요", "예요", "이에요")
    return forms


ALTERNATIONS = _alternations()
# Longest first, so "이에요(예요)" is not read as "이" + "에요(예요)"; a bare "(이)" before another
# syllable ("(이)란", "(이)나", "(이)라는") is the copula's optional 이, last. Only after a
# character that is not a space: a particle is attached to its word.
PARTICLE = re.compile(
    r"(?<=\S)(?:"
    + "|".join(re.escape(form) for form in sorted(ALTERNATIONS, key=len, reverse=True))
    + r"|\(이\)(?=[\uac00-\ud7a3]))"
)


def pick(text_before: str, alternation: str) -> str:
    """The form of `alternation` (e.g. "은(는)", "(으)로", "(이)") that follows `text_before`."""
    after_consonant, after_vowel, after_rieul = ALTERNATIONS.get(alternation, ("이", "", "이"))
    sound = final_sound(text_before)
    return after_vowel if sound == "vowel" else after_rieul if sound == "rieul" else after_consonant


def with_particle(word: str, particle: str) -> str:
    """`word` followed by the right form of `particle`, given in any of its forms ("은", "는",
    "은(는)", "로", "으로"): with_particle("PyTorch", "을") -> "PyTorch를"."""
    for written in ALTERNATIONS:
        consonant, vowel, _ = ALTERNATIONS[written]
        if particle in (written, consonant, vowel):
            return word + pick(word, written)
    return word + particle


def resolve_particles(text: str) -> str:
    """`text` with every alternation form after a word replaced by the form that word takes:
    "PyTorch은(는) 모델와(과) 파일(으)로" -> "PyTorch는 모델과 파일로". Text without one
    (English, or Korean already resolved) comes back unchanged."""
    if "(" not in text and "/" not in text:
        return text
    return PARTICLE.sub(lambda found: pick(text[: found.start()], found.group(0)), text)


# Particles a word of Korean text may carry ("PyTorch가", "분야의"), with the sounds each may follow:
# a Hangul word whose ending could be such a particle but does not agree with the sound before it
# keeps it ("전문가": 가 after 문's ㄴ is no particle; "게이트웨이", "역효과" likewise).
AFTER_CONSONANT: frozenset[FinalSound] = frozenset({"consonant", "rieul"})
AFTER_VOWEL: frozenset[FinalSound] = frozenset({"vowel"})
ANY_SOUND: frozenset[FinalSound] = frozenset({"vowel", "rieul", "consonant"})
PARTICLE_SOUNDS: dict[str, frozenset[FinalSound]] = {
    **dict.fromkeys(("은", "이", "을", "과", "이나", "이란", "이라는", "이며", "과의"), AFTER_CONSONANT),
    **dict.fromkeys(("는", "가", "를", "와", "나", "란", "라는", "와의"), AFTER_VOWEL),
    **dict.fromkeys(("으로", "으로는", "으로서"), frozenset({"consonant"})),
    **dict.fromkeys(("로", "로는", "로서"), frozenset({"vowel", "rieul"})),
    **dict.fromkeys(("의", "에", "에서", "에게", "까지", "부터", "처럼", "보다", "에는", "에서는", "에도"), ANY_SOUND),
    "에서의": ANY_SOUND,
    # The noun form of 하다/되다 that terse key points end with ("스케줄링함", "사용됨"): the term is
    # what comes before it.
    **dict.fromkeys(("함", "됨"), ANY_SOUND),
    # Nouns end in these too ("정확도", "유사도", "불만"): stripped only when the rest is known.
    **dict.fromkeys(("도", "만"), frozenset[FinalSound]()),
}
TRAILING_PARTICLES = tuple(sorted(PARTICLE_SOUNDS, key=len, reverse=True))
VERB_STEMS = ("하", "되")  # "사용하는", "저장되는": a verb's ending, not a noun's particle
# "답하거나", "저장되거나": the ending -거나 ("or") after a verb's stem, not a noun and the particle 나.
VERB_STEM_ENDS = (*VERB_STEMS, *(stem + "거" for stem in VERB_STEMS))
LATIN_THEN_HANGUL = re.compile(r"(.*[^\uac00-\ud7a3\s])([\uac00-\ud7a3]+)")


def _all_hangul(text: str) -> bool:
    return all(HANGUL_FIRST <= ord(char) <= HANGUL_LAST for char in text)


def bare_term(word: str, known: frozenset[str] | set[str] = frozenset()) -> str:
    """`word` without the particle Korean text attached to it: "PyTorch가" -> "PyTorch",
    "머신러닝은" -> "머신러닝", "분야의" -> "분야". A Hangul word loses an ending only if at least
    two syllables are left and the ending is a particle that agrees with the sound before it, or
    what is left is in `known` (terms of the same text): "전문가", "효과", "정확도" and
    "사용하는" stay whole."""
    latin = LATIN_THEN_HANGUL.fullmatch(word)
    if latin:
        return latin.group(1) if latin.group(2) in PARTICLE_SOUNDS else word
    for particle in TRAILING_PARTICLES:
        rest = word[: -len(particle)]
        if not word.endswith(particle) or len(rest) < 2 or not _all_hangul(rest) or rest.endswith(VERB_STEM_ENDS):
            continue
        if rest.endswith("으"):  # "원으로": the 으 is the particle's own (으로), and 원 is too short
            continue
        if rest in known or syllable_final(rest[-1]) in PARTICLE_SOUNDS[particle]:
            return rest
    return word
