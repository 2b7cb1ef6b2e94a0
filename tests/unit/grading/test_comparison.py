"""A comparison question ("how does X differ from Y?", "X와 Y의 차이는?") is not graded correct when
the answer describes only one of the two things compared, in either language and whoever grades
(offline, or a model whose grade the offline evidence checks); an answer covering both sides
still passes."""

import pytest

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.contracts.llm import ShortAnswerGrade
from slea.grading.comparison import is_comparison, sides
from slea.grading.evidence import Material
from slea.grading.offline import grade
from slea.grading.verdict import with_second_opinion

ITEMS = {
    "en": {
        "stem": "How does a process differ from a thread? Explain the key difference.",
        "reference": "Process: a running program with its own separate memory space, isolated from other programs by "
        "the operating system. By contrast, thread: a unit of execution inside a process that shares the process's "
        "memory and resources with its sibling threads.",
        "keywords": ["memory space", "shares"],
        "only_first": "A process is a running program that has its own separate memory space, and the operating "
        "system isolates it from other programs.",
        "only_second": "A thread is a unit of execution that lives inside a process and shares the process's memory "
        "and resources with the other threads.",
        "both": "A process is a running program with its own separate memory space, isolated by the operating "
        "system, whereas a thread runs inside a process and shares that memory and its resources with sibling "
        "threads.",
    },
    "ko": {
        "stem": "프로세스는 스레드와 어떻게 다른가? 핵심 차이를 설명하시오.",
        "reference": "프로세스: 운영체제가 다른 프로그램과 격리하는, 자기만의 독립된 메모리 공간을 가진 실행 중인 "
        "프로그램. 반면 스레드: 프로세스 안의 실행 단위로, 같은 프로세스의 다른 스레드와 메모리와 자원을 공유함.",
        "keywords": ["메모리 공간", "공유"],
        "only_first": "프로세스는 실행 중인 프로그램으로 자기만의 독립된 메모리 공간을 가지고, 운영체제가 다른 "
        "프로그램과 격리합니다.",
        "only_second": "스레드는 프로세스 안에서 돌아가는 실행 단위이고, 같은 프로세스의 다른 스레드와 메모리와 "
        "자원을 공유합니다.",
        "both": "프로세스는 운영체제가 격리하는 독립된 메모리 공간을 가진 실행 중인 프로그램인 반면, 스레드는 "
        "프로세스 안의 실행 단위로 다른 스레드와 메모리와 자원을 공유합니다.",
    },
}
LANGUAGES = list(ITEMS)


def graded(language: str, kind: str, stem: str | None = None):
    item = ITEMS[language]
    material = Material(
        answer=item[kind], reference=item["reference"], keywords=item["keywords"], stem=stem or item["stem"]
    )
    return grade(material)


@pytest.mark.parametrize(
    "stem",
    [
        "How does a process differ from a thread?",
        "What is the difference between TCP and UDP?",
        "Compare REST with GraphQL.",
        "Process vs thread: which shares memory?",
        "프로세스와 스레드의 차이를 설명하시오.",
        "REST를 GraphQL과 비교하여 설명하시오.",
        "TCP와 UDP의 다른 점은 무엇인가요?",
        "프로세스는 스레드와 어떻게 다른가?",
    ],
)
def test_comparison_stems_are_recognised_in_both_languages(stem):
    assert is_comparison(stem)


@pytest.mark.parametrize("stem", ["What is a process?", "Explain what a mutex prevents.", "프로세스란 무엇인가요?"])
def test_other_stems_are_not_comparisons(stem):
    assert not is_comparison(stem)


def test_the_reference_splits_at_its_contrast_marker():
    assert sides(ITEMS["en"]["reference"])[1].startswith("thread:")
    assert sides(ITEMS["ko"]["reference"])[1].startswith("스레드:")
    assert sides("A mutex is a lock that one thread holds at a time.") is None


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("side", ["only_first", "only_second"])
def test_one_side_of_a_comparison_is_not_correct(language, side):
    result = graded(language, side)
    assert result.one_sided_comparison
    assert result.score < HIGH_SCORE_THRESHOLD, result.score
    assert result.needs_review
    assert "one of the two" in result.reasoning or "하나만" in result.reasoning


@pytest.mark.parametrize("language", LANGUAGES)
def test_both_sides_of_a_comparison_pass(language):
    result = graded(language, "both")
    assert not result.one_sided_comparison
    assert result.score >= HIGH_SCORE_THRESHOLD, result.score


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_same_answer_to_a_question_that_compares_nothing_is_graded_as_before(language):
    stem = "What is a thread?" if language == "en" else "스레드란 무엇인가요?"
    assert not graded(language, "only_second", stem=stem).one_sided_comparison


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_models_correct_grade_of_one_side_is_not_correct_either(language):
    offline = graded(language, "only_second")
    model = ShortAnswerGrade(score=95, reasoning="Accurate.", confidence=0.95)
    checked = with_second_opinion(model, offline)
    assert checked.score == HIGH_SCORE_THRESHOLD - 1
    assert not checked.final
