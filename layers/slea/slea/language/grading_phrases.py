"""The grader's reasoning (Tool 6's `grader_reasoning`, kept with the attempt for reviewers and
returned to the learner) in the question's language: the offline grader's rubric summary and the
notes either grader adds. Numbers are formatted by the caller; the text around them is here.
Flags keep their names in the attempt's `flags`; here they are only put into words."""

import re
from dataclasses import dataclass
from functools import cache

from slea.constants import Language

PHRASES: dict[Language, dict[str, str]] = {
    "en": {
        "rubric": "key concepts {key_concepts}/40 (keywords {found} of {expected}), correctness {correctness}/40, "
        "clarity {clarity}/20 by the rubric; reference coverage {recall}, phrase order {order}, on topic {on_topic}",
        "probability": "; fitted probability that graders call it correct {probability}",
        "declined": "; not an answer",
        "unrelated": "; about something else (shares no term or meaning with the question)",
        "flags": "; needs a human look: {flags}",
        "disagreement": " (the text evidence suggests {score}: confidence lowered)",
        "not_backed": "; the calibrated text evidence does not back this verdict firmly enough: a reviewer decides",
        "one_sided_comparison": "; a comparison question, and the answer describes only one of the two things "
        "compared: not correct without the other",
    },
    "ko": {
        "rubric": "루브릭 기준 핵심 개념 {key_concepts}/40(키워드 {expected}개 중 {found}개), 정확성 {correctness}/40, "
        "명확성 {clarity}/20; 모범 답안 포괄도 {recall}, 구절 순서 {order}, 주제 관련도 {on_topic}",
        "probability": "; 채점자가 정답으로 판단할 추정 확률 {probability}",
        "declined": "; 답안이 아님",
        "unrelated": "; 다른 내용에 관한 답안(문제와 공유하는 용어나 의미가 없음)",
        "flags": "; 사람의 검토 필요: {flags}",
        "disagreement": " (텍스트 근거로는 {score}점: 신뢰도를 낮춤)",
        "not_backed": "; 보정된 텍스트 근거가 이 판정을 충분히 뒷받침하지 않음: 검토자가 결정",
        "one_sided_comparison": "; 비교 문제인데 답이 비교하는 두 대상 중 하나만 설명함: 다른 쪽 없이는 정답이 아님",
    },
}

FLAG_WORDS: dict[Language, dict[str, str]] = {
    "en": {},  # the flag's own name, underscores as spaces
    "ko": {
        "addressed_to_grader": "채점자에게 하는 말",
        "term_list": "용어 나열",
        "repetition": "반복",
        "copied_question": "문제를 베낌",
        "copied_choices": "선택지를 베낌",
        "shuffled_reference": "모범 답안을 뒤섞음",
        "keywords_amid_unrelated_words": "무관한 말 속의 키워드",
        "negates_reference": "모범 답안을 부정함",
        "unrelated_addition": "무관한 내용 추가",
        "copied_shown_text": "보여 준 텍스트를 베낌",
    },
}


def phrase(language: Language, key: str, **values: str) -> str:
    return PHRASES[language][key].format(**values)


def flags_in_words(language: Language, flags: list[str]) -> str:
    return ", ".join(FLAG_WORDS[language].get(flag, flag.replace("_", " ")) for flag in flags)


# ---------------------------------------------------------------- read back (for reviewers)
# The review page says the reasoning in words a teacher reads; these read the numbers and notes
# back out of a stored reasoning, by the very templates above (so the two cannot drift apart).
@cache
def _template_pattern(language: Language, key: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", PHRASES[language][key])
    pattern = "".join(
        re.escape(part) if index % 2 == 0 else rf"(?P<{part}>-?[0-9]+(?:\.[0-9]+)?)" for index, part in enumerate(parts)
    )
    return re.compile(pattern)


@dataclass(frozen=True, slots=True)
class RubricValues:
    """The numbers of the offline grader's rubric line, by the names its template gives them:
    the rubric's points (key concepts, correctness, clarity), the keywords `found` of those
    `expected`, and the reference's coverage (`recall`), phrase `order` and `on_topic` share."""

    key_concepts: float
    found: float
    expected: float
    correctness: float
    clarity: float
    recall: float
    order: float
    on_topic: float


def rubric_values(reasoning: str | None) -> RubricValues | None:
    """The offline grader's rubric numbers in a stored reasoning (either language), else None (a
    model grader's reasoning is its own prose)."""
    for language in PHRASES:
        found = _template_pattern(language, "rubric").search(reasoning or "")
        if found:
            return RubricValues(**{name: float(value) for name, value in found.groupdict().items()})
    return None


def has_note(reasoning: str | None, key: str) -> bool:
    """Whether a stored reasoning carries the note `key` (declined, unrelated, flags, disagreement,
    not_backed) in either language: its text up to its first placeholder."""
    text = reasoning or ""
    return any(PHRASES[language][key].split("{", 1)[0] in text for language in PHRASES)
