"""The fixed phrases Tool 6 adds to a grading, in each learner language: the feedback line, the
note when automatic grading was unavailable, and the study checks that bring a short explanation
up to the spec's length. One catalogue, so a phrase is never written in one language only (a test
checks both have the same keys and placeholders).

Which language: the question's, read from its text (Hangul in the stem, reference answer or
choices: Korean), so an answer is explained in the language it was asked in."""

from string import Formatter

from slea.constants import Language

PHRASES: dict[Language, dict[str, str]] = {
    "en": {
        "partial": "Good progress: your answer earns partial credit. Review the key concepts it missed and try again.",
        "constructive": "Not there yet. Focus on the key concepts listed in the explanation, then try a similar "
        "question.",
        "grading_unavailable": "Automatic grading was unavailable ({reason}); default score given.",
        "non_answer": "No answer to grade this time, and that is fine. The explanation below gives the answer and "
        "why; read it, then try a similar question: writing down even part of what you know earns partial credit.",
    },
    "ko": {
        "partial": "좋은 진전입니다. 부분 점수를 받았습니다. 답안에서 빠진 핵심 개념을 복습하고 다시 도전해 보세요.",
        "constructive": "아직 부족합니다. 해설에 나온 핵심 개념을 익힌 뒤 비슷한 문제에 도전해 보세요.",
        "grading_unavailable": "자동 채점을 사용할 수 없어({reason}) 기본 점수를 주었습니다.",
        "non_answer": "이번에는 채점할 답안이 없었지만 괜찮습니다. 아래 해설에서 정답과 그 이유를 확인한 뒤 비슷한 "
        "문제에 도전해 보세요. 아는 부분만 적어도 부분 점수를 받을 수 있습니다.",
    },
}


def phrase(language: Language, key: str, **values: str) -> str:
    return PHRASES[language][key].format(**values)


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}
