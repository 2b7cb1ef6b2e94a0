"""What a typed answer is told about its grade: the key terms it used and missed, as whole terms
of the reference (`language/shown_terms.py`), and the reason for its score in one sentence.

The reason says why the score is not 100, from the grade's own evidence: the rubric part
(key concepts 40, correctness 40, clarity 20) that lost the largest share of its points, told
by what it measures: the key terms the answer leaves out, the share of the model answer it
explains, or that it is not written out in sentences. It names only this item's own key terms,
which the learner has just answered (and Tool 6 checks it against the unanswered items' keys
like every other text shown)."""

from slea.constants import Language
from slea.contracts.llm import GradingItem
from slea.contracts.scoring import RubricPoints
from slea.language.required_terms import required_terms
from slea.language.shown_terms import whole_terms

FULL_MARKS = 100
RUBRIC_MAXIMA = {"key_concepts": 40, "correctness": 40, "clarity": 20}

REASONS: dict[Language, dict[str, str]] = {
    "en": {
        "missing_terms": "{score}, not 100: your answer does not mention {terms}.",
        "few_terms": "{score}, not 100: your answer names {found} of the {total} key terms a complete answer names.",
        "coverage": "{score}, not 100: your answer explains only part of what the model answer says.",
        "clarity": "{score}, not 100: your answer is not written out in full sentences.",
    },
    "ko": {
        "missing_terms": "{score}점: 답안에 다음 용어가 없습니다: {terms}.",
        "few_terms": "{score}점: 완성도 높은 답안이 다루는 핵심 용어 {total}개 중 {found}개만 다뤘습니다.",
        "coverage": "{score}점: 모범 답안이 설명하는 내용의 일부만 설명했습니다.",
        "clarity": "{score}점: 완전한 문장으로 쓰지 않았습니다.",
    },
}


def _sources(item: GradingItem) -> list[str]:
    """The texts the keywords were taken from: where their whole words are read."""
    return [text for text in (item.reference_answer, item.reference_explanation, item.stem) if text]


def key_terms(item: GradingItem) -> list[str]:
    """The key terms an answer is held to: its keywords that are ideas, not product names
    (language/required_terms.py, the grader's key term set too)."""
    sources = [text for text in (item.reference_answer, item.reference_explanation) if text]
    return required_terms(item.correct_keywords, item.stem, sources)


def missed_terms(item: GradingItem) -> list[str]:
    """The expected key terms the answer does not mention, as whole terms."""
    missed = [keyword for keyword in key_terms(item) if keyword not in item.keyword_matches]
    return whole_terms(missed, _sources(item))


def used_terms(item: GradingItem) -> list[str]:
    """The expected key terms the answer mentions, as whole terms."""
    required = set(key_terms(item))
    return whole_terms([term for term in item.keyword_matches if term in required], _sources(item))


def study_terms(item: GradingItem) -> list[str]:
    """The question's key terms for study checks ("check that you can state the definition of
    ..."), as whole terms."""
    return whole_terms(key_terms(item), _sources(item))


def _weakest(points: RubricPoints) -> str:
    """The rubric part that lost the largest share of its maximum (key concepts first on a tie:
    it is the one the learner can act on by name)."""
    lost = {name: 1 - getattr(points, name) / maximum for name, maximum in RUBRIC_MAXIMA.items()}
    return max(lost, key=lambda name: lost[name])


def score_reason(item: GradingItem, score: int, points: RubricPoints | None, language: Language) -> str | None:
    """Why a short answer scored `score` and not 100, in one sentence; None for full marks or
    another question type."""
    if item.question_type != "short_answer" or score >= FULL_MARKS:
        return None
    text = REASONS[language]
    missed = missed_terms(item)
    weakest = _weakest(points) if points is not None else ("key_concepts" if missed else "correctness")
    if weakest == "key_concepts" and missed:
        if item.is_correct:  # nothing else lists them: name them
            return text["missing_terms"].format(score=score, terms=", ".join(missed))
        # A wrong answer's feedback lists them under what it is missing: count them here.
        total = len(study_terms(item))
        return text["few_terms"].format(score=score, found=total - len(missed), total=total)
    if weakest == "clarity":
        return text["clarity"].format(score=score)
    return text["coverage"].format(score=score)
