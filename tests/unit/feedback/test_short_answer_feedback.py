"""What a typed answer is told: key terms as whole words, the reason for its score in one
sentence, the typed-answer heading, and the provisional notice once."""

import pytest

from slea.contracts.llm import Explanation, GradingItem
from slea.contracts.scoring import RubricPoints
from slea.feedback.details import PHRASES, compose, details_of, next_steps
from slea.feedback.short_answer import REASONS, score_reason
from slea.language.shown_terms import whole_term, whole_terms

KO_REFERENCE = (
    "문맥 검색: 각 조각에 문서 속 위치를 설명하는 짧은 문장을 덧붙이는 전처리 기법. 핵심 요소는 검색 정확도가 "
    "좋아지는 효과가 있음; 임베딩 전에 적용함입니다."
)
EN_REFERENCE = "A hash table maps keys to buckets with a hash function, so lookups take constant time on average."


# ---------------------------------------------------------------- whole terms
@pytest.mark.parametrize(
    ("keyword", "shown"),
    [
        ("덧붙이", "덧붙이는"),  # a verb stem: shown as the text writes the word
        ("좋아지", "좋아지는"),
        ("문서", "문서"),  # a noun followed by a particle only a noun takes (속 is a word of its own)
        ("문맥 검색", "문맥 검색"),  # stands alone
        ("검색", "검색"),  # "검색 정확도": alone
        ("적용", "적용"),  # "적용함": a noun the verb is made from
        ("임베딩", "임베딩"),  # followed by 전: alone
        ("없는 용어", "없는 용어"),  # not in the text: left as it is
    ],
)
def test_a_korean_keyword_is_shown_as_a_whole_word_of_the_reference(keyword, shown):
    assert whole_term(keyword, [KO_REFERENCE]) == shown


def test_a_latin_keyword_and_a_noun_with_a_particle_are_shown_as_they_are():
    assert whole_term("hash function", [EN_REFERENCE]) == "hash function"
    assert whole_term("PyTorch", ["PyTorch는 라이브러리입니다."]) == "PyTorch"
    assert whole_term("버킷", ["키를 버킷에 대응시킴"]) == "버킷"
    assert whole_term("모델", ["모델은 데이터를 학습함"]) == "모델"  # 은 after a final consonant: a particle
    assert whole_terms(["덧붙이", "덧붙이", "문서"], [KO_REFERENCE]) == ["덧붙이는", "문서"]


# ---------------------------------------------------------------- the parts
def short_item(language="ko", *, is_correct=False, matches=(), keywords=None):
    reference = {"ko": KO_REFERENCE, "en": EN_REFERENCE}[language]
    stem = {"ko": "문맥 검색을 설명하세요.", "en": "How does a hash table find a value quickly?"}[language]
    default = {"ko": ["덧붙이", "좋아지", "임베딩"], "en": ["hash function", "bucket", "constant time"]}[language]
    return GradingItem(
        question_type="short_answer",
        user_answer="답",
        stem=stem,
        reference_answer=reference,
        correct_keywords=keywords or default,
        keyword_matches=list(matches),
        is_correct=is_correct,
    )


def test_the_terms_a_korean_answer_missed_are_whole_words_never_stems():
    item = short_item("ko", matches=["임베딩"])
    wrong = details_of(item, Explanation(), [], False).why_yours_is_wrong
    assert wrong == "답안에 빠진 용어: 덧붙이는, 좋아지는. 답안에서 다룬 용어: 임베딩."


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_typed_answer_is_told_what_it_is_missing_not_why_its_choice_is_wrong(language):
    item = short_item(language, matches=[])
    details = details_of(item, Explanation(), [], False)
    prose = compose(details, item, Explanation(), [])
    assert PHRASES[language]["why_short"] in prose
    assert PHRASES[language]["why_wrong"] not in prose


# ---------------------------------------------------------------- the reason for the score
def test_a_passing_answer_below_full_marks_is_told_which_terms_it_left_out():
    item = short_item("en", is_correct=True, matches=["hash function", "bucket"])
    reason = score_reason(item, 80, RubricPoints(key_concepts=27, correctness=36, clarity=17), "en")
    assert reason == "80, not 100: your answer does not mention constant time."
    details = details_of(
        item, Explanation(), [], False, score=80, points=RubricPoints(key_concepts=27, correctness=36, clarity=17)
    )
    assert details.score_reason == reason


def test_a_failing_answer_is_told_how_many_key_terms_it_named_which_its_missing_part_lists():
    item = short_item("ko", matches=["임베딩"])
    reason = score_reason(item, 40, RubricPoints(key_concepts=8, correctness=20, clarity=12), "ko")
    assert reason == "40점: 완성도 높은 답안이 다루는 핵심 용어 3개 중 1개만 다뤘습니다."


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_reason_follows_the_rubric_part_that_lost_most(language):
    item = short_item(language, is_correct=True, matches=item_keywords(language))
    coverage = score_reason(item, 85, RubricPoints(key_concepts=40, correctness=28, clarity=17), language)
    clarity = score_reason(item, 85, RubricPoints(key_concepts=38, correctness=38, clarity=9), language)
    assert coverage == REASONS[language]["coverage"].format(score=85)
    assert clarity == REASONS[language]["clarity"].format(score=85)


def item_keywords(language):
    return {"ko": ["덧붙이", "좋아지", "임베딩"], "en": ["hash function", "bucket", "constant time"]}[language]


def test_full_marks_and_choices_have_no_reason():
    assert (
        score_reason(
            short_item("en", is_correct=True), 100, RubricPoints(key_concepts=40, correctness=40, clarity=20), "en"
        )
        is None
    )
    choice = GradingItem(
        question_type="multiple_choice", user_answer="A", stem="S", correct_answer="A", is_correct=True
    )
    assert score_reason(choice, 100, None, "en") is None
    assert details_of(choice, Explanation(), [], False, score=100).score_reason is None


def test_every_reason_is_one_sentence_in_both_languages():
    assert REASONS["en"].keys() == REASONS["ko"].keys()
    for language in ("en", "ko"):
        for template in REASONS[language].values():
            assert template.count(".") == 1
            assert template.endswith(".")


# ---------------------------------------------------------------- the provisional notice
@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("is_correct", [True, False])
def test_a_provisional_grade_is_said_once_in_the_prose_and_never_as_a_step(language, is_correct):
    item = short_item(language, is_correct=is_correct)
    notice = PHRASES[language]["provisional"]
    assert notice not in next_steps(item, [], True, language)
    details = details_of(item, Explanation(explanation=notice), [], True, score=70)
    assert notice not in details.next_steps
    prose = compose(details, item, Explanation(explanation=notice), [], needs_review=True)
    assert prose.count(notice) == 1
    assert notice not in compose(details, item, Explanation(), [], needs_review=False)
