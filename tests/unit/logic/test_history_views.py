"""A learner's history shows each attempt from its record (slea.dal.attempts.StoredAttempt): what
its grading showed, or once no item it was held back for can still be answered, the whole output
the key-leak guard held back (slea.logic.sessions.history.delivered)."""

from slea.dal.attempts import stored_attempt
from slea.dal.question_records import stored_question
from slea.logic.sessions import history

DETAILS = {"language": "en", "your_answer": "Paris", "correct_answer": "Paris", "next_steps": ["read more"]}
ATTEMPT = {
    "session_id": "s1",
    "attempt_key": "q1#abc",
    "attempt_id": "a1",
    "question_id": "q1",
    "round": 1,
    "is_correct": True,
    "score": 100,
    "user_answer": "Paris",
    "graded_at": "2026-01-01T00:00:00.000Z",
    "confidence": 0.85,
    "question_type": "multiple_choice",
    "question_choices": ["Paris", "Rome"],
    "explanation": "Right.",
    "feedback": "Right.",
    "details": DETAILS,
    "held_back_note": "more once the round is answered",
}
WITHHELD = {
    "withheld_for": ["q2"],
    "unguarded": {
        "explanation": "Right: Paris is the capital of France.",
        "feedback": "Right.",
        "details": {**DETAILS, "why_correct": "Paris is the capital of France."},
        "reference_links": [{"title": "France", "url": "https://example.com/france"}],
        "held_back_note": None,
    },
}
QUESTION = {"session_id": "s1", "round": 1, "question_type": "multiple_choice", "choices": ["Paris", "Rome"]}
SESSION = [
    stored_question({**QUESTION, "question_id": "q1", "stem": "Capital of France?", "answered_at": "t"}),
    stored_question(
        {**QUESTION, "question_id": "q2", "stem": "Capital of Italy?", "answer_key": {"correct_answer": "Rome"}}
    ),
]


def test_an_attempt_that_held_nothing_back_shows_what_its_grading_showed():
    view = history.delivered(stored_attempt(ATTEMPT), SESSION)
    assert (view.explanation, view.held_back_note, view.question_choices) == (
        "Right.",
        "more once the round is answered",
        ["Paris", "Rome"],
    )
    assert view.details is not None
    assert view.details.next_steps == ["read more"]
    assert (view.needs_review, view.reviewed, view.skipped, view.confidence) == (False, False, False, 0.85)


def test_what_was_held_back_waits_while_an_item_it_was_held_back_for_is_open():
    view = history.delivered(stored_attempt({**ATTEMPT, **WITHHELD}), SESSION)
    assert (view.explanation, view.reference_links) == ("Right.", [])


def test_what_was_held_back_is_shown_once_the_learner_has_left_the_session():
    view = history.delivered(stored_attempt({**ATTEMPT, **WITHHELD}), SESSION, session_closed=True)
    assert view.explanation == "Right: Paris is the capital of France."
    assert view.held_back_note is None
    assert view.details is not None
    assert view.details.why_correct == "Paris is the capital of France."
    assert [link.url for link in view.reference_links] == ["https://example.com/france"]
