"""Automatic item generation without a model: questions built from the keyword record's concepts
(name, acronym, definition, key points), in the language of the few-shot templates.

Item families (each concept yields several, each frame in several phrasings):
- MC "which best describes X": the true definition among definitions of sibling concepts;
- MC "which concept does this describe": X's name among sibling names;
- MC "which is a key aspect of X": one of X's key points among siblings' key points;
- TF "X: <definition>": true with X's own definition, false with a sibling's;
- TF "a key aspect of X is <point>": true with X's point, false with a sibling's;
- SA "explain X": graded by keywords drawn from X's key points;
- SA "explain the role of <keyword>": for records with few concepts.
Distractors are the siblings closest in length to the correct choice and never carry absolute
words, so every item passes Tool 4's rules. The same request always yields the same questions.
"""

import hashlib
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from slea.constants import MIN_CHOICES, STEM_MAX_LENGTH, QuestionType
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput
from slea.contracts.keywords import Concept
from slea.question_quality import ABSOLUTE, CATCH_ALL, lengths_unequal, near_duplicate_of

LABELS = "ABCDE"
HANGUL = re.compile("[\uac00-\ud7a3]")
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
    }
)

# Each frame has several phrasings: questions of one frame about different concepts must not
# read as near-duplicates of each other (Tool 4 flags those).
FRAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "mc_definition": (
            "Which of the following best describes {label}?",
            "What is {label}?",
            "Select the most accurate definition of {label} from the options below.",
        ),
        "mc_identify": ('Which concept does the following describe? "{definition}"',),
        "mc_key_point": (
            "Which of the following is a key aspect of {name}?",
            "Which statement reflects an important principle of {name}?",
            "When applying {name}, which of these points matters most?",
        ),
        "tf_definition": ("True or False: {name} can be described as follows. {definition}",),
        "tf_key_point": ('True or False: "{point}" is a key aspect of {name}.',),
        "sa_explain": (
            "Explain {label} and describe its key aspects.",
            "In your own words, what is {label} and why does it matter in practice?",
            "Describe how {label} works and give one situation where you would use it.",
        ),
        "sa_keyword": (
            "Explain the role of {keyword} in {category} work, with a concrete example.",
            "Why does {keyword} matter at this level? Answer with an example from practice.",
            "Describe a situation in which {keyword} makes a difference, and explain why.",
        ),
        "explain": ("{label}: {definition} Key points: {points}.",),
        "reference": ("{name} is {definition_lower} Its key aspects are: {points}.",),
    },
    "ko": {
        "mc_definition": (
            "다음 중 {label}에 대한 설명으로 가장 적절한 것은?",
            "{label}(이)란 무엇인가?",
            "{label}의 정의로 가장 정확한 것을 고르시오.",
        ),
        "mc_identify": ('다음 설명에 해당하는 개념은 무엇인가? "{definition}"',),
        "mc_key_point": (
            "다음 중 {name}의 핵심 요소로 가장 적절한 것은?",
            "{name}을(를) 적용할 때 가장 중요하게 고려할 점은?",
            "{name}의 원리를 가장 잘 나타내는 설명을 고르시오.",
        ),
        "tf_definition": ("다음은 {name}에 대한 올바른 설명이다. (참/거짓) {definition}",),
        "tf_key_point": ('참/거짓: "{point}"은(는) {name}의 핵심 요소이다.',),
        "sa_explain": (
            "{label}의 개념과 핵심 요소를 설명하시오.",
            "{label}이(가) 실무에서 왜 중요한지 자신의 말로 설명하시오.",
            "{label}의 동작 방식을 설명하고, 이를 적용할 수 있는 상황을 한 가지 제시하시오.",
        ),
        "sa_keyword": (
            "{category} 분야에서 {keyword}의 역할을 구체적인 예를 들어 설명하시오.",
            "{keyword}이(가) 이 수준에서 왜 중요한지 실무 사례와 함께 설명하시오.",
            "{keyword}이(가) 결과를 좌우하는 상황을 하나 들고, 그 이유를 설명하시오.",
        ),
        "explain": ("{label}: {definition} 핵심 요소: {points}.",),
        "reference": ("{name}: {definition} 핵심 요소는 {points}입니다.",),
    },
}


@dataclass(frozen=True)
class Item:
    family: str
    subject: str  # concept name (or keyword) the item is about
    type: QuestionType
    build: Callable[[], DraftQuestion | None]


def _weak(text: str) -> bool:
    return bool(ABSOLUTE.search(text) or CATCH_ALL.search(text))


def _label(concept: Concept) -> str:
    acronym = concept.acronym.strip()
    return f"{concept.name} ({acronym})" if acronym and acronym.casefold() != concept.name.casefold() else concept.name


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))  # noqa: S311 - reproducible variety, not secrecy


def _distinctiveness(word: str) -> tuple[bool, bool, int]:
    # Acronyms, capitalised and hyphenated terms first; inflected verbs ("introduced") last.
    return (word.isupper() or "-" in word or word[:1].isupper(), not word.endswith(("ed", "ing")), len(word))


def _keywords_of(concept: Concept) -> list[str]:
    """Terms a good explanation of the concept mentions: the acronym, and the most distinctive
    word of each key point."""
    found: list[str] = []
    acronym = concept.acronym.strip()
    if 2 <= len(acronym) <= 8 and acronym.casefold() not in concept.name.casefold().split():
        found.append(acronym)
    for point in concept.key_points:
        words = [word.strip("-'") for word in re.findall(r"[\w\-']+", point)]
        candidates = [word for word in words if len(word) >= 4 and word.casefold() not in STOPWORDS]
        if candidates:
            found.append(max(candidates, key=_distinctiveness))
    unique = list({word.casefold(): word for word in found}.values())
    return unique[:5] if len(unique) >= 2 else [*unique, concept.name][:5]


class ItemBank:
    """Every item one keyword record supports, in a deterministic, varied order."""

    def __init__(self, request: GenerateQuestionsInput) -> None:
        self.request = request
        self.concepts = [concept for concept in request.keywords.concepts if not _weak(concept.definition)]
        korean = sum(bool(HANGUL.search(template.stem)) for template in request.templates)
        self.language = "ko" if request.templates and korean * 2 > len(request.templates) else "en"
        self.frames = FRAMES[self.language]
        self.rng = _rng(request.session_id, request.round, request.attempt, request.difficulty, request.category)

    # ------------------------------------------------------------------ helpers
    def _phrase(self, frame: str, variant: int, **values: str) -> str:
        phrasings = self.frames[frame]
        return phrasings[variant % len(phrasings)].format(**values)

    def _siblings(self, concept: Concept) -> list[Concept]:
        return [other for other in self.concepts if other.name != concept.name]

    def _closest(self, correct: str, pool: list[str], count: int) -> list[str] | None:
        """`count` distractors closest in length to the correct choice (length is no cue)."""
        usable = [text for text in dict.fromkeys(pool) if text != correct and not _weak(text)]
        if len(usable) < count:
            return None
        self.rng.shuffle(usable)  # ties broken differently per round
        return sorted(usable, key=lambda text: abs(len(text) - len(correct)))[:count]

    def _multiple_choice(self, stem: str, correct: str, pool: list[str], concept: Concept) -> DraftQuestion | None:
        distractors = self._closest(correct, pool, MIN_CHOICES - 1)
        if distractors is None or len(stem) > STEM_MAX_LENGTH or lengths_unequal([correct, *distractors]):
            return None
        options = [correct, *distractors]
        self.rng.shuffle(options)
        key = LABELS[options.index(correct)]
        return self._draft(
            "multiple_choice",
            stem,
            concept,
            choices=[f"{LABELS[i]}) {text}" for i, text in enumerate(options)],
            correct_answer=key,
        )

    def _true_false(self, stem: str, truth: bool, concept: Concept) -> DraftQuestion | None:
        if len(stem) > STEM_MAX_LENGTH:
            return None
        return self._draft(
            "true_false", stem, concept, choices=["True", "False"], correct_answer="True" if truth else "False"
        )

    def _reference_answer(self, concept: Concept) -> str:
        """The model answer of a short-answer item: the concept's definition and key points, the
        source the item was written from."""
        definition = concept.definition.strip()
        return self._phrase(
            "reference",
            0,
            name=concept.name,
            definition=definition,
            definition_lower=definition[:1].lower() + definition[1:] if definition[1:2].islower() else definition,
            points="; ".join(point.strip().rstrip(".") for point in concept.key_points),
        )

    def _concepts_mentioning(self, keyword: str) -> list[Concept]:
        wanted = keyword.casefold()
        return [
            concept
            for concept in self.concepts
            if wanted in " ".join([concept.name, concept.definition, *concept.key_points]).casefold()
        ]

    def _draft(
        self, question_type: QuestionType, stem: str, concept: Concept | None, **answer: object
    ) -> DraftQuestion:
        explanation = ""
        if concept is not None:
            explanation = self._phrase(
                "explain", 0, label=_label(concept), definition=concept.definition, points="; ".join(concept.key_points)
            )
            if question_type == "short_answer":
                answer.setdefault("reference_answer", self._reference_answer(concept))
        return DraftQuestion.model_validate(
            {
                "type": question_type,
                "stem": stem,
                "explanation": explanation,
                "difficulty": self.request.difficulty,
                "categories": [self.request.category],
                **answer,
            }
        )

    # ------------------------------------------------------------------ item families
    def _concept_items(self, concept: Concept, variant: int) -> Iterator[Item]:
        """Every item about one concept; `variant` (its position in the round) picks phrasings."""
        siblings = self._siblings(concept)
        name, label, phrase = concept.name, _label(concept), self._phrase
        mc, tf = self._multiple_choice, self._true_false
        yield Item(
            "mc_definition",
            name,
            "multiple_choice",
            partial(
                mc,
                phrase("mc_definition", variant, label=label),
                concept.definition,
                [s.definition for s in siblings],
                concept,
            ),
        )
        yield Item(
            "mc_identify",
            name,
            "multiple_choice",
            partial(
                mc,
                phrase("mc_identify", variant, definition=concept.definition),
                name,
                [s.name for s in siblings],
                concept,
            ),
        )
        other_points = [p for s in siblings for p in s.key_points if p not in concept.key_points]
        for index, point in enumerate(concept.key_points):
            stem = phrase("mc_key_point", variant + index, name=name)
            yield Item(
                f"mc_key_point:{index}", name, "multiple_choice", partial(mc, stem, point, other_points, concept)
            )
        yield Item(
            "tf_definition_true",
            name,
            "true_false",
            partial(tf, phrase("tf_definition", variant, name=name, definition=concept.definition), True, concept),
        )
        yield Item(
            "sa_explain",
            name,
            "short_answer",
            partial(
                self._draft,
                "short_answer",
                phrase("sa_explain", variant, label=label),
                concept,
                correct_keywords=_keywords_of(concept),
            ),
        )
        if not siblings:
            return
        wrong = self.rng.choice(siblings)
        point = self.rng.choice(concept.key_points)
        wrong_point = self.rng.choice([p for s in siblings for p in s.key_points])
        for family, stem, truth in (
            ("tf_definition_false", phrase("tf_definition", variant, name=name, definition=wrong.definition), False),
            ("tf_key_point_true", phrase("tf_key_point", variant, point=point, name=name), True),
            ("tf_key_point_false", phrase("tf_key_point", variant, point=wrong_point, name=name), False),
        ):
            yield Item(family, name, "true_false", partial(tf, stem, truth, concept))

    def _keyword_items(self) -> Iterator[Item]:
        concept_names = {concept.name.casefold() for concept in self.concepts}
        keywords = [keyword for keyword in self.request.keywords.keywords if keyword.casefold() not in concept_names]
        for index, keyword in enumerate(keywords):
            # The concepts that mention the keyword are the model answer; a keyword no concept
            # explains has none, and Tool 6 then grades by the keyword alone (and abstains more).
            sources = self._concepts_mentioning(keyword)
            stem = self._phrase("sa_keyword", index, keyword=keyword, category=self.request.category)
            reference = " ".join(self._reference_answer(concept) for concept in sources[:2])
            yield Item(
                "sa_keyword",
                keyword,
                "short_answer",
                partial(
                    self._draft, "short_answer", stem, None, correct_keywords=[keyword], reference_answer=reference
                ),
            )

    def items(self) -> list[Item]:
        """Round-robin over concepts, so a round covers as many concepts as it can."""
        concepts = list(self.concepts)
        self.rng.shuffle(concepts)
        per_concept = [list(self._concept_items(concept, variant)) for variant, concept in enumerate(concepts)]
        for items in per_concept:
            self.rng.shuffle(items)
        ordered = [
            items[i] for i in range(max(map(len, per_concept), default=0)) for items in per_concept if i < len(items)
        ]
        return ordered + list(self._keyword_items())


def generate_offline(request: GenerateQuestionsInput, count: int) -> list[DraftQuestion]:
    """`count` distinct questions following the requested type mix (or the default one), fewer
    only if the record cannot support that many. No question is a near-duplicate of another or
    of the stems to avoid."""
    remaining = ItemBank(request).items()
    taken = list(request.avoid_stems)
    questions: list[DraftQuestion] = []
    for question_type in request.type_sequence(count):
        draft = _take(remaining, question_type, taken) or _take(remaining, None, taken)
        if draft is not None:
            questions.append(draft)
            taken.append(draft.stem)
    return questions


def _take(remaining: list[Item], question_type: QuestionType | None, taken: list[str]) -> DraftQuestion | None:
    for index, item in enumerate(remaining):
        if question_type is not None and item.type != question_type:
            continue
        draft = item.build()
        if draft is None or near_duplicate_of(draft.stem, taken) is not None:
            continue
        del remaining[index]
        return draft
    return None
