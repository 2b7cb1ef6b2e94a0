"""The reviewer page shows a short answer's key as the learner's feedback names it: whole terms of
the reference, never the bare stems the keyword matcher keeps."""

from slea.dal.attempts import stored_attempt
from slea.dal.question_records import stored_question
from slea.logic.review.queue import _attempt_entry, reviewed_question

REFERENCE = (
    "문맥 검색: 각 조각에 위치를 설명하는 짧은 문장을 덧붙이는 전처리 기법. 핵심 요소는 임베딩 전에 적용함입니다."
)
STORED = {
    "question_id": "q1",
    "item_type": "short_answer",
    "stem": "문맥 검색을 설명하세요.",
    "answer_schema": {"correct_keywords": ["덧붙이", "임베딩"], "reference_answer": REFERENCE},
}


def test_the_key_terms_are_whole_words_and_the_matched_keywords_too():
    question = reviewed_question(stored_question(STORED))
    assert question.correct_keywords == ["덧붙이", "임베딩"]  # what matching uses, as stored (and edited)
    assert question.key_terms == ["덧붙이는", "임베딩"]
    attempt = stored_attempt(
        {
            "attempt_id": "a1",
            "session_id": "s1",
            "question_id": "q1",
            "user_answer": "문장을 덧붙이고 임베딩합니다",
            "score": 70,
            "is_correct": False,
            "graded_at": "2026-01-01T00:00:00Z",
            "keyword_matches": ["덧붙이"],
        }
    )
    entry = _attempt_entry(attempt, stored_question(STORED))
    assert entry.attempt is not None
    assert entry.attempt.keyword_matches == ["덧붙이는"]


def test_a_question_without_keywords_has_no_key_terms():
    assert reviewed_question(stored_question({**STORED, "answer_schema": {"correct_key": "A"}})).key_terms is None
