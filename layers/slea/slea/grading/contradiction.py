"""Contradiction evidence: an answer that says the reference's point the other way round, adds
statements about something else, or pastes text shown elsewhere in the round. Pure text rules,
English and Korean; `evidence.py` turns them into flags (never finalised as correct) and measures.

Why rules and not embeddings: a negated copy of the reference ("RAG does not retrieve ...") is
closer to it in any bag-of-words or static-embedding space than a correct answer in other
words, so polarity has to be read from the words that carry it.

1. Polarity per clause. The answer and the reference are cut into clauses (sentence ends, semicolons,
   contrast words: "but", "whereas", "지만", "반면"). Each answer clause is compared with the reference
   clause it shares most informative terms with; if they share at least two informative words, their
   polarities must agree. Polarity is the parity of the negation cues in the clause ("not", "n't",
   "never", "without", "않", "없", "못", "아니" ...; a prefix such as un-/in-/비-/무-/불- counts
   where the other clause has the word without it) plus the opposite pairs swapped between the two
   clauses ("increase"/"decrease", "입력"/"출력" ...). Parity, not presence: "works without Y" and
   "does not need Y" agree, so do a double negation and a positive statement.
2. Statements off the reference. A clause with several informative words of which none belongs to
   the reference, the keywords or the question, in an answer whose other clauses do answer, or a run
   of four or more such words with no function word between them (word salad appended to a
   sentence), is an addition the grader cannot vouch for.
3. Copied shown text: see `copied_shown_texts`.
"""

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache, partial

from slea.grading.terms import TOKEN, Term, Text

# ------------------------------------------------------------------------------------ polarity
ENGLISH_NEGATIONS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "neither",
        "nor",
        "cannot",
        "without",
        "nothing",
        "nobody",
        "nowhere",
        "unable",
        "lack",
        "lacks",
        "lacking",
        "impossible",
        "unnecessary",
        "incapable",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "arent",
        "wasnt",
        "werent",
        "cant",
        "couldnt",
        "wouldnt",
        "shouldnt",
        "wont",
        "hasnt",
        "havent",
        "hadnt",
    ]
)
NOT_NEGATING = frozenset({"only", "just", "merely"})  # "not only ... but also" adds, it does not negate
FAIL = frozenset({"fail", "fails", "failed", "failing"})  # "fails to X" negates X
# A negation's reach to the right in English ends at the next clause link or comma.
ENGLISH_SCOPE_ENDS = frozenset(
    [
        "and",
        "but",
        "so",
        "because",
        "which",
        "while",
        "whereas",
        "if",
        "when",
        "since",
        "although",
        "though",
        "then",
        "unless",
        "however",
    ]
)
ENGLISH_SCOPE_WORDS = 4
# Korean negates after the verb ("학습하지 않고", "관리 없이"): the cue word and the two before it,
# except 안/못 written as their own word, which negate the next one. "잘못" (mistake) is no cue.
KOREAN_NEGATION = re.compile(r"않|없|^못|아(?:니|닌|닙|님|냐)|불가")
KOREAN_SCOPE_WORDS = 2
ENGLISH_PREFIXES = ("non", "un", "in", "im", "il", "ir", "dis")
KOREAN_PREFIXES = ("비", "무", "불", "미")
CLAUSE_BREAK = re.compile(
    r"(?<!\b[A-Za-z])(?<!\d)[.!?;:\u3002\uff1f\uff01](?=\s|$)|\n+"
    r"|\s+(?:but|whereas|however|although|though)\s+|,\s+(?:and|so|because|since|which|while)\s+|(?<=[며고서면데]),|\s[-+\u2013](?=[^\W\d_]|\s)|[\u2022\u25cf]|지만[\s,]|반면",
    re.IGNORECASE,
)
MIN_SHARED_WORDS = 2  # informative words two clauses share before their polarities are compared
MIN_SHARED_WEIGHT = 1.0
MIN_CONTRADICTED_WEIGHT = 0.3
NEAR_WORDS = 3
# Negations are compared between clauses that say mostly the same thing: a clause sharing a few
# terms with a long one (a list of several cases) may be about another case.
RESTATED_SHARE = 0.5  # a shared term this informative, said the other way round

# Opposites common in computing and science teaching. Swapping one for the other says the reference's
# point the other way round. English entries are compared as Snowball stems; Korean ones as the
# start of a word (so "높은", "높게" match "높"). Negation words are left out: they count as cues.
ENGLISH_OPPOSITES = (
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("increase", "reduce"),
    ("increases", "reduces"),
    ("more", "less"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("high", "low"),
    ("larger", "smaller"),
    ("large", "small"),
    ("bigger", "smaller"),
    ("faster", "slower"),
    ("fast", "slow"),
    ("before", "after"),
    ("input", "output"),
    ("client", "server"),
    ("sender", "receiver"),
    ("fifo", "lifo"),
    ("first", "last"),
    ("synchronous", "asynchronous"),
    ("static", "dynamic"),
    ("true", "false"),
    ("maximum", "minimum"),
    ("max", "min"),
    ("upper", "lower"),
    ("top", "bottom"),
    ("internal", "external"),
    ("public", "private"),
    ("enable", "disable"),
    ("accept", "reject"),
    ("success", "failure"),
    ("head", "tail"),
    ("add", "remove"),
    ("insert", "delete"),
    ("include", "exclude"),
    ("encrypt", "decrypt"),
    ("encryption", "decryption"),
    ("stateful", "stateless"),
    ("lossy", "lossless"),
    ("strong", "weak"),
    ("positive", "negative"),
    ("local", "global"),
    ("symmetric", "asymmetric"),
    ("ascending", "descending"),
    ("overfitting", "underfitting"),
    ("upstream", "downstream"),
    ("horizontal", "vertical"),
    ("push", "pop"),
    ("open", "close"),
)
KOREAN_OPPOSITES = (
    ("증가", "감소"),
    ("늘", "줄"),
    ("이전", "이후"),
    ("먼저", "나중"),
    ("처음", "마지막"),
    ("입력", "출력"),
    ("높", "낮"),
    ("많", "적은"),
    ("많", "적게"),
    ("많", "적다"),
    ("큰", "작은"),
    ("크게", "작게"),
    ("빠르", "느리"),
    ("빠른", "느린"),
    ("동기", "비동기"),
    ("정적", "동적"),
    ("클라이언트", "서버"),
    ("송신", "수신"),
    ("선입선출", "후입선출"),
    ("참", "거짓"),
    ("최대", "최소"),
    ("상위", "하위"),
    ("내부", "외부"),
    ("공개", "비공개"),
    ("성공", "실패"),
    ("추가", "삭제"),
    ("포함", "제외"),
    ("허용", "차단"),
    ("암호화", "복호화"),
    ("강한", "약한"),
    ("장점", "단점"),
    ("과적합", "과소적합"),
    ("상향", "하향"),
)


@cache
def _english_opposites() -> tuple[tuple[str, str], ...]:
    stemmed = {(Text(a).terms[0].unit, Text(b).terms[0].unit) for a, b in ENGLISH_OPPOSITES}
    return tuple(sorted(stemmed))


@cache
def _longer_entries(start: str) -> tuple[str, ...]:
    return tuple(word for pair in KOREAN_OPPOSITES for word in pair if word != start and start in word)


def _korean_count(words: list[str], start: str) -> int:
    """Words that start with `start` and not with a longer entry that contains it ("비동기" is
    not "동기")."""
    longer = _longer_entries(start)
    return sum(word.startswith(start) and not word.startswith(longer) for word in words)


def _negation_scopes(text: Text) -> list[range]:
    """The word ranges each negation cue of `text` reaches."""
    tokens = list(TOKEN.finditer(text.raw))
    words = text.words
    scopes: list[range] = []
    for index, word in enumerate(words):
        if word.script == "hangul":
            if index and word.text == "아니라" and words[index - 1].text.endswith(("뿐", "뿐만")):
                continue  # "A뿐만 아니라 B": not only A but also B
            if word.text in ("안", "못"):
                scopes.append(range(index, min(len(words), index + 2)))
            elif KOREAN_NEGATION.search(word.text) and index == len(words) - 1:
                scopes.append(range(index + 1))  # the sentence's own predicate negated: all of it
            elif KOREAN_NEGATION.search(word.text):
                first = index
                while first > 0 and index - first < KOREAN_SCOPE_WORDS and not _comma_between(tokens, first - 1, text):
                    first -= 1
                scopes.append(range(first, index + 1))
            continue
        follows = words[index + 1].text if index + 1 < len(words) else ""
        negates = (
            (word.text in ENGLISH_NEGATIONS and follows not in NOT_NEGATING)
            or (word.text == "t" and index > 0 and words[index - 1].text.endswith("n"))  # doesn't, can't
            or (word.text in FAIL and follows == "to")
        )
        if negates:
            last = index
            while (
                last + 1 < len(words)
                and last - index < ENGLISH_SCOPE_WORDS
                and words[last + 1].text not in ENGLISH_SCOPE_ENDS
                and not _comma_between(tokens, last, text)
            ):
                last += 1
            scopes.append(range(index, last + 1))
    return scopes


def _comma_between(tokens: list[re.Match[str]], index: int, text: Text) -> bool:
    """A comma between word `index` and the next."""
    if index + 1 >= len(tokens):
        return True
    return "," in text.raw[tokens[index].end() : tokens[index + 1].start()]


@dataclass
class Clause:
    text: Text

    @cached_property
    def content(self) -> dict[str, tuple[float, int]]:
        """Informative unit -> (weight, index of its word)."""
        return {term.unit: (term.weight, term.word) for term in self.text.content_terms}

    @cached_property
    def scopes(self) -> list[range]:
        return _negation_scopes(self.text)

    @cached_property
    def negated_words(self) -> set[int]:
        """Words under an odd number of negations ("not ... not" is a double negation)."""
        counts: dict[int, int] = {}
        for scope in self.scopes:
            for index in scope:
                counts[index] = counts.get(index, 0) + 1
        return {index for index, count in counts.items() if count % 2}

    def stems(self, negated: bool | None = None) -> list[str]:
        """Latin stems, of the words stated negated or plainly if `negated` is given."""
        return [
            t.unit
            for t in self.text.terms
            if t.script == "latin" and (negated is None or (t.word in self.negated_words) == negated)
        ]

    def hangul_words(self, negated: bool | None = None) -> list[str]:
        return [
            w.text
            for i, w in enumerate(self.text.words)
            if w.script == "hangul" and (negated is None or (i in self.negated_words) == negated)
        ]

    def negations(self, other: "Clause") -> tuple[int, set[str]]:
        """How many negations the clause has, and the units they reach. A word with a negating
        prefix of a word of `other` ("unreliable" where `other` says "reliable", "비동기" where it
        says "동기") is one more, reaching that word."""
        prefixed = self._prefixed_words(other)
        reached = {term.unit for term in self.text.terms if any(term.word in scope for scope in self.scopes)}
        return len(self.scopes) + len(set(prefixed.values())), reached | set(prefixed)

    @cached_property
    def near_negation(self) -> set[str]:
        """Units with an occurrence within NEAR_WORDS of a negation cue, either side: the clause may
        state them negated, whichever way its syntax runs."""
        cues = [
            scope.start if self.text.words[scope.start].script == "latin" else scope.stop - 1 for scope in self.scopes
        ]
        return {t.unit for t in self.text.terms if any(abs(t.word - cue) <= NEAR_WORDS for cue in cues)}

    @cached_property
    def stated_plainly(self) -> set[str]:
        """Units with an occurrence away from any negation cue."""
        cues = [
            scope.start if self.text.words[scope.start].script == "latin" else scope.stop - 1 for scope in self.scopes
        ]
        return {t.unit for t in self.text.terms if all(abs(t.word - cue) > NEAR_WORDS for cue in cues)}

    def _prefixed_words(self, other: "Clause") -> dict[str, int]:
        """Unit of the unprefixed word -> index of the prefixed word (Latin); for Korean, whose
        bigrams already share the unprefixed part, the word index keyed by its own units."""
        found: dict[str, int] = {}
        other_stems = {t.unit for t in other.text.terms if t.script == "latin"}
        other_hangul = [w.text for w in other.text.words if w.script == "hangul"]
        # A clause that uses the plain form as often as `other` contrasts the two ("필요한 권한만 ...
        # 불필요한 권한은" for "필요한 권한만"): the prefixed word negates nothing `other` says.
        own_stems = Counter(t.unit for t in self.text.terms if t.script == "latin")
        other_stem_counts = Counter(t.unit for t in other.text.terms if t.script == "latin")
        own_hangul = [w.text for w in self.text.words if w.script == "hangul"]
        for index, word in enumerate(self.text.words):
            latin = word.script == "latin"
            for prefix in ENGLISH_PREFIXES if latin else KOREAN_PREFIXES:
                rest = word.text[len(prefix) :]
                if not word.text.startswith(prefix) or len(rest) < (4 if latin else 2):
                    continue
                if latin:
                    rest_terms, whole_terms = _text(rest).terms, _text(word.text).terms
                    if (
                        rest_terms
                        and own_stems[rest_terms[0].unit] < other_stem_counts[rest_terms[0].unit]
                        and whole_terms[0].unit not in other_stems
                    ):
                        found[rest_terms[0].unit] = index
                        break
                elif sum(w.startswith(rest) for w in own_hangul) < sum(
                    w.startswith(rest) for w in other_hangul
                ) and not any(w.startswith(word.text) for w in other_hangul):
                    for term in self.text.terms:
                        if term.word == index and not term.unit.startswith(prefix):
                            found[term.unit] = index
                    break
        return found


@lru_cache(maxsize=4096)
def _text(raw: str) -> Text:
    """Texts are read-only here; a reference's clauses recur for every answer to its question."""
    return Text(raw)


def clauses(raw: str) -> list[Clause]:
    pieces = [piece.strip() for piece in CLAUSE_BREAK.split(raw) if piece and piece.strip()]
    return [Clause(_text(piece)) for piece in pieces]


def swapped_opposites(answer: Clause, reference: Clause) -> int:
    """Opposite pairs the answer clause uses one member more often than the reference clause and
    the other less, counted among the words stated plainly and among the negated ones ("no single
    client" for "no single server"; "increases ... increases" for "increases ... decreases")."""
    swaps = 0
    for negated in (False, True):
        mine = Counter(answer.stems(negated))
        theirs = Counter(reference.stems(negated))
        mine_words, their_words = answer.hangul_words(negated), reference.hangul_words(negated)
        for a, b in _english_opposites():
            if (mine[a] - theirs[a]) * (mine[b] - theirs[b]) < 0:
                swaps += _same_context(answer, reference, partial(_latin_spots, pair=(a, b)))
        for a, b in KOREAN_OPPOSITES:
            count_a = _korean_count(mine_words, a) - _korean_count(their_words, a)
            count_b = _korean_count(mine_words, b) - _korean_count(their_words, b)
            if count_a * count_b < 0:
                swaps += _same_context(answer, reference, partial(_hangul_spots, pair=(a, b)))
    return swaps


def _latin_spots(clause: Clause, pair: tuple[str, str]) -> set[int]:
    return {t.word for t in clause.text.terms if t.script == "latin" and t.unit in pair}


def _hangul_spots(clause: Clause, pair: tuple[str, str]) -> set[int]:
    return {i for i, w in enumerate(clause.text.words) if any(_korean_count([w.text], x) for x in pair)}


def _same_context(answer: Clause, reference: Clause, spots_of: Callable[[Clause], set[int]]) -> bool:
    """The opposite words have an informative term in common within NEAR_WORDS in both clauses:
    "reduces hallucinations" / "increases hallucinations", not "the speed increases" /
    "the diameter decreases"."""

    def around(clause: Clause) -> set[str]:
        spots = spots_of(clause)
        return {
            unit
            for unit, (_, index) in clause.content.items()
            if index not in spots and any(abs(index - spot) <= NEAR_WORDS for spot in spots)
        }

    return bool(around(answer) & around(reference))


@dataclass(frozen=True)
class Comparison:
    """One answer clause against the reference clause it restates."""

    shared_weight: float
    negated_weight: float  # shared weight within reach of a negation only one of the two has
    opposites_swapped: int

    @property
    def contradicts(self) -> bool:
        return self.negated_weight >= MIN_CONTRADICTED_WEIGHT or self.opposites_swapped > 0


def _shared(answer: Clause, reference: Clause) -> tuple[float, int]:
    shared = answer.content.keys() & reference.content.keys()
    weight = sum(min(answer.content[unit][0], reference.content[unit][0]) for unit in shared)
    return weight, len({answer.content[unit][1] for unit in shared})


def compare(answer: list[Clause], reference: list[Clause]) -> list[Comparison]:
    """Each answer clause that restates a reference clause, with how their polarities compare:
    the two differ in the parity of their negations, and a negation reaches a term both share."""
    found: list[Comparison] = []
    # A reference that lists several cases ("no flow control" for one service, "flow control" for
    # another) states a term both ways: an answer may say either.
    negated_anywhere = set().union(*(clause.near_negation for clause in reference))
    plain_anywhere = set().union(*(clause.stated_plainly for clause in reference))
    for clause in answer:
        scored = [(_shared(clause, candidate), candidate) for candidate in reference]
        if not scored:
            break
        (weight, words), best = max(scored, key=lambda item: item[0])
        swaps = swapped_opposites(clause, best)
        if words + min(swaps, 1) < MIN_SHARED_WORDS or weight < MIN_SHARED_WEIGHT / 2:
            continue  # an opposite swapped counts as a shared word ("a queue is LIFO" / "FIFO")
        (mine, mine_reached), (theirs, theirs_reached) = clause.negations(best), best.negations(clause)
        negated = 0.0
        larger = max(sum(w for w, _ in clause.content.values()), sum(w for w, _ in best.content.values()))
        if (
            (mine - theirs) % 2 and weight >= RESTATED_SHARE * larger
        ):  # parity: "without Y" agrees with "does not need Y"; "not ... not" is positive
            shared = clause.content.keys() & best.content.keys()
            if mine > theirs:  # the answer negates a term the reference states plainly, and never negates
                said = shared & mine_reached - best.near_negation - negated_anywhere
            else:  # the reference negates a term the answer states plainly, and never states it plainly
                said = shared & theirs_reached - clause.near_negation - plain_anywhere
            negated = sum(min(clause.content[unit][0], best.content[unit][0]) for unit in said)
        found.append(Comparison(weight, negated, swaps))
    return found


# ------------------------------------------------------------------------ off-reference content
OFF_CLAUSE_MIN_WORDS = 3  # informative words in a clause that shares none with the question
OFF_CLAUSE_MIN_WEIGHT = 1.5
SALAD_MIN_WORDS = 4  # informative words, no function word among them, at most one related
GLUED_SALAD_MIN_WORDS = 5  # unrelated informative words closing or opening a sentence
FLAG_MIN_RECALL = 0.35  # share of the reference an answer restates before these findings are flags
OFF_CLAUSE_MIN_RECALL = 0.5  # ... before a whole sentence off the reference is one


@dataclass(frozen=True)
class Support:
    """How much of the answer the reference, keywords and question account for."""

    unsupported_share: float  # of the answer's informative weight, in clauses that share no word
    off_clauses: int  # clauses with enough informative words and none shared
    salad: bool  # informative words with no grammar between them, about something else


def support(answer: list[Clause], related: set[str]) -> Support:
    """`related`: the units of the reference, keywords and question. An elaboration reuses the
    answer's own words ("the maximum distance ... a distance of 112 km"), so the answer's clauses
    that share a word with `related` extend it (one step: a chain of unrelated sentences that
    share words with each other extends nothing)."""
    answering = [clause for clause in answer if _related_words(clause.text, related)]
    total = unsupported = 0.0
    off = 0
    salad = False
    for clause in answer:
        content = clause.text.content_terms
        weight = sum(term.weight for term in content)
        total += weight
        context = related | set().union(*(other.content for other in answering if other is not clause))
        related_words = _related_words(clause.text, context)
        informative = {term.word for term in content}
        if not related_words:
            unsupported += weight
            off += len(informative) >= OFF_CLAUSE_MIN_WORDS and weight >= OFF_CLAUSE_MIN_WEIGHT
        salad = (
            salad
            or _unrelated_edge_run(clause.text, context) >= GLUED_SALAD_MIN_WORDS
            or (
                len(informative) >= SALAD_MIN_WORDS
                and len(related_words) <= 1
                and not any(term.is_function_word or term.weight == 0 for term in clause.text.terms)
                and all(word.script == "latin" for word in clause.text.words)
            )
        )
    return Support(unsupported / total if total else 0.0, off, salad)


def _related_words(text: Text, related: set[str]) -> set[int]:
    """Words of `text` that belong to `related`: a Latin stem, or a Korean word most of whose
    bigrams do (one bigram in common is chance: "바이올린" and "하이퍼바이저")."""
    by_word: dict[int, list[bool]] = {}
    for term in text.content_terms:
        by_word.setdefault(term.word, []).append(term.unit in related)
    return {
        index
        for index, hits in by_word.items()
        if (any(hits) if text.words[index].script == "latin" else sum(hits) * 2 >= len(hits))
    }


def _unrelated_edge_run(text: Text, related: set[str]) -> int:
    """Informative Latin words at the start or the end of `text` that share nothing with `related`
    and have no function word between them: word salad stuck onto a sentence ("... reduces
    hallucinations colorless purple ideas flumph furiously"). Korean is left out: its units are
    bigrams, and without function words any run of nouns would count."""
    by_word: dict[int, list[Term]] = {}
    for term in text.terms:
        by_word.setdefault(term.word, []).append(term)

    def unrelated(index: int) -> bool:
        terms = by_word.get(index, [])
        return bool(terms) and all(
            term.script == "latin" and term.weight > 0 and not term.is_function_word and term.unit not in related
            for term in terms
        )

    indices = range(len(text.words))
    leading = next((n for n, index in enumerate(indices) if not unrelated(index)), len(indices))
    trailing = next((n for n, index in enumerate(reversed(indices)) if not unrelated(index)), len(indices))
    return max(leading, trailing) if leading < len(indices) else 0
