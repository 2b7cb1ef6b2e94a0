"""The rules of answering, written once (slea.logic.answering.rules): what the pre-check predicts
from the question as read and what the recording transaction's refusal means are the same refusal."""

import pytest

from slea.dal.question_records import StoredQuestion, stored_question
from slea.logic.answering import rules
from slea.platform.errors import Conflict

KEY = "q1#abc"


def records(*items: dict) -> list[StoredQuestion]:
    """The questions as the data-access layer reads them (from the stored items)."""
    return [stored_question(item) for item in items]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ({"question_id": "q1"}, None),
        ({"question_id": "q1", "answered_at": "t", "answered_attempt_key": "q1#other"}, "ALREADY_ANSWERED"),
        ({"question_id": "q1", "status": "retired"}, "QUESTION_RETIRED"),
        # A retry of the recorded answer is always taken, retired since or not.
        ({"question_id": "q1", "answered_at": "t", "answered_attempt_key": KEY}, None),
        ({"question_id": "q1", "answered_at": "t", "answered_attempt_key": KEY, "status": "retired"}, None),
        # Counted as skipped when its round was over: a late answer is refused with its own code.
        (
            {"question_id": "q1", "answered_at": "t", "answered_attempt_key": "q1#skipped", "skipped_at": "t"},
            "QUESTION_SKIPPED",
        ),
        # Answered before it was retired: the answer, not the retirement, refuses another one.
        (
            {"question_id": "q1", "answered_at": "t", "answered_attempt_key": "x", "status": "retired"},
            "ALREADY_ANSWERED",
        ),
    ],
)
def test_the_pre_check_refuses_by_the_rule(question, expected):
    refusal = rules.refusal(stored_question(question), KEY)
    assert (refusal.code if refusal else None) == expected
    assert refusal is None or isinstance(refusal, Conflict)


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        ("recorded", None),
        ("already_recorded", None),
        ("ability_changed", None),
        ("retired", "QUESTION_RETIRED"),
        ("skipped", "QUESTION_SKIPPED"),
        ("answered_differently", "ALREADY_ANSWERED"),
    ],
)
def test_the_transaction_refusal_is_the_same_refusal(outcome, expected):
    refusal = rules.refusal_of_outcome(outcome, "q1")
    assert (refusal.code if refusal else None) == expected
    if refusal is not None:
        as_read = {
            "ALREADY_ANSWERED": {"question_id": "q1", "answered_at": "t"},
            "QUESTION_SKIPPED": {"question_id": "q1", "answered_at": "t", "skipped_at": "t"},
            "QUESTION_RETIRED": {"question_id": "q1", "status": "retired"},
        }
        predicted = rules.refusal(stored_question(as_read[expected]), KEY)
        assert (refusal.code, refusal.message) == (predicted.code, predicted.message)


def test_one_language_detector_decides_a_question_for_everyone():
    """The grader's phrases, the feedback and the key-leak guard read a question's language from
    one rule: a Korean reference under an English stem makes all three Korean."""
    from slea.contracts.llm import GradingItem
    from slea.feedback.details import language_of as feedback_language
    from slea.logic.answering.grades import language as grading_language
    from slea.security.key_leaks import KeyedItem
    from slea.security.key_leaks import language_of as guard_language

    stem, choices, reference = "What does LoRA train?", ["A) adapters", "B) everything"], "저차원 어댑터만 학습한다."
    item = GradingItem(
        question_type="short_answer", user_answer="x", stem=stem, choices=choices, reference_answer=reference
    )
    keyed = KeyedItem(question_type="short_answer", stem=stem, choices=tuple(choices), reference_answer=reference)
    assert grading_language(item) == feedback_language(item) == guard_language(keyed) == "ko"
    english = item.model_copy(update={"reference_answer": "Only low-rank adapters."})
    assert grading_language(english) == feedback_language(english) == "en"


def test_a_round_the_session_has_moved_past_takes_no_new_answer_but_its_retries():
    """Once a later round's questions are saved, what was held back in the earlier round is shown
    in the history (logic/sessions/history.py): its open items may not be answered after that."""
    items = [{"question_id": "q1", "round": 1}, {"question_id": "q2", "round": 2}]
    session = records(*items)
    refusal = rules.refusal(session[0], KEY, session)
    assert refusal is not None
    assert refusal.code == "ROUND_OVER"
    assert rules.refusal(session[1], KEY, session) is None  # the current round
    answered = stored_question({**items[0], "answered_at": "t", "answered_attempt_key": KEY})
    assert rules.refusal(answered, KEY, session) is None
    assert rules.closed(session[0], session)
    assert not rules.closed(session[1], session)
    assert rules.closed(stored_question({"question_id": "q3", "round": 2, "usage_count": 1}), session)


def test_a_closed_session_takes_no_new_answer_but_its_retries():
    item = {"question_id": "q1", "round": 1}
    question = stored_question(item)
    refusal = rules.refusal(question, KEY, [question], session_closed=True)
    assert refusal is not None
    assert refusal.code == "SESSION_CLOSED"
    answered = stored_question({**item, "answered_at": "t", "answered_attempt_key": KEY})
    assert rules.refusal(answered, KEY, [], session_closed=True) is None
    assert rules.closed(question, [question], session_closed=True)
    assert not rules.closed(question, [question])


def test_a_copy_whose_bank_item_was_retired_takes_no_new_answer_but_its_retries():
    item = {"question_id": "copy-1", "item_id": "item-1", "round": 1}
    copy = stored_question(item)
    retired = stored_question({"question_id": "item-1", "status": "retired"})
    refusal = rules.refusal(copy, KEY, [copy], bank_item=retired)
    assert refusal is not None
    assert refusal.code == "QUESTION_RETIRED"
    active = stored_question({"question_id": "item-1", "status": "active"})
    assert rules.refusal(copy, KEY, [copy], bank_item=active) is None
    answered = stored_question({**item, "answered_at": "t", "answered_attempt_key": KEY})
    assert rules.refusal(answered, KEY, [answered], bank_item=retired) is None
