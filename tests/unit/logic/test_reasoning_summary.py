"""The automatic grade's reasoning as a teacher reads it: key ideas mentioned of the total, closeness
in meaning, on topic, and why a provisional grade waits, read from what the attempt stored (the
offline grader's own reasoning, in English and Korean)."""

import pytest

from slea.constants import HIGH_SCORE_THRESHOLD
from slea.dal.attempts import StoredAttempt, stored_attempt
from slea.dal.question_records import stored_question
from slea.grading import features
from slea.grading.evidence import Material
from slea.grading.model import fitted_model
from slea.grading.offline import grade
from slea.language.grading_phrases import RubricValues, has_note, phrase, rubric_values
from slea.logic.review.queue import _attempt_entry
from slea.logic.review.reasoning import MEANING_COVERS, queued_because, reasoning_summary

REFERENCE = (
    "A message queue decouples producers from consumers: producers put messages on the queue and "
    "consumers take them off at their own pace, so a slow consumer does not block the producer."
)
KEYWORDS = ["decouples", "producers", "consumers", "pace", "block"]
STEM = "What does a message queue do between producers and consumers?"


def graded_attempt(answer: str, keywords: list[str] = KEYWORDS, reference: str = REFERENCE) -> StoredAttempt:
    return stored_attempt(graded_item(answer, keywords, reference))


def graded_item(answer: str, keywords: list[str] = KEYWORDS, reference: str = REFERENCE) -> dict:
    """The attempt item as stored."""
    found = grade(Material(answer=answer, reference=reference, keywords=keywords, stem=STEM))
    return {
        "attempt_id": "a1",
        "session_id": "s1",
        "question_id": "q1",
        "question_type": "short_answer",
        "user_answer": answer,
        "score": found.score,
        "is_correct": found.score >= HIGH_SCORE_THRESHOLD,
        "confidence": found.confidence,
        "grader_reasoning": found.reasoning,
        "keyword_matches": found.keyword_matches,
        "graded_at": "2026-01-01T00:00:00Z",
    }


def test_the_closeness_cut_is_the_graders_own():
    assert MEANING_COVERS == features.FULL_COVERAGE


def test_the_reference_itself_mentions_every_key_idea_and_is_close_in_meaning():
    summary = reasoning_summary(graded_attempt(REFERENCE), KEYWORDS, waiting=False)
    assert summary is not None
    assert (summary.key_ideas_found, summary.key_ideas_total) == (5, 5)
    assert summary.meaning == "close"
    assert summary.on_topic is True
    assert summary.leans == "correct"
    assert summary.queued_because is None  # a final grade does not wait


def test_an_answer_about_something_else_is_far_and_off_topic():
    summary = reasoning_summary(
        graded_attempt("Photosynthesis turns sunlight, water and carbon dioxide into sugar in green leaves."),
        KEYWORDS,
        waiting=True,
    )
    assert summary is not None
    assert summary.key_ideas_found == 0
    assert summary.meaning == "far"
    assert summary.on_topic is False
    assert summary.leans == "wrong"


def test_i_dont_know_is_said_to_be_no_answer():
    summary = reasoning_summary(graded_attempt("I don't know"), KEYWORDS, waiting=False)
    assert summary is not None
    assert summary.not_an_answer


def test_the_korean_reasoning_reads_the_same():
    reasoning = phrase(
        "ko",
        "rubric",
        key_concepts="16",
        found="2",
        expected="5",
        correctness="20",
        clarity="10",
        recall="0.40",
        order="0.30",
        on_topic="0.90",
    ) + phrase("ko", "flags", flags="반복")
    assert rubric_values(reasoning) == RubricValues(
        key_concepts=16.0,
        found=2.0,
        expected=5.0,
        correctness=20.0,
        clarity=10.0,
        recall=0.4,
        order=0.3,
        on_topic=0.9,
    )
    attempt = stored_attempt(
        {
            "grader_reasoning": reasoning,
            "is_correct": False,
            "confidence": 0.9,
            "question_type": "short_answer",
        }
    )
    summary = reasoning_summary(attempt, ["a", "b", "c", "d", "e"], waiting=True)
    assert summary is not None
    assert (summary.key_ideas_found, summary.key_ideas_total) == (2, 5)
    assert (summary.meaning, summary.on_topic) == ("close", True)
    assert summary.queued_because == "findings"  # the grader asked for a person's look, in Korean


def test_a_model_graders_prose_gives_the_key_ideas_from_the_matches_and_no_closeness():
    attempt = stored_attempt(
        {
            "grader_reasoning": "The answer names the producers and the queue but not why it helps.",
            "is_correct": False,
            "confidence": 0.6,
            "keyword_matches": ["producers"],
        }
    )
    summary = reasoning_summary(attempt, KEYWORDS, waiting=True)
    assert summary is not None
    assert (summary.key_ideas_found, summary.key_ideas_total) == (1, 5)
    assert (summary.meaning, summary.on_topic) == (None, None)
    assert summary.queued_because == "not_sure_enough"


@pytest.mark.parametrize(
    ("reasoning", "is_correct", "confidence", "because"),
    [
        ("Automatic grading was unavailable (timeout); default score given.", False, 0.0, "grader_unavailable"),
        (phrase("en", "flags", flags="repetition"), True, 0.99, "findings"),
        (phrase("en", "disagreement", score="40"), True, 0.99, "disagreement"),
        (phrase("en", "not_backed"), False, 0.99, "not_backed"),
        ("", True, 0.90, "not_sure_enough"),  # a 90% sure "correct" is below the cut for a final one
        ("", True, 0.999, "second_look"),  # sure enough: queued by another check (another item's reference)
    ],
)
def test_why_a_grade_waits_is_never_unsure_beside_a_high_confidence_without_a_reason(
    reasoning, is_correct, confidence, because
):
    assert queued_because(reasoning, is_correct, confidence) == because


def test_ninety_percent_sure_is_below_the_cut_that_makes_a_correct_grade_final():
    assert not fitted_model().is_final(True, 0.90)


def test_the_queue_entry_carries_the_summary_and_the_pass_mark():
    attempt = stored_attempt(graded_item("Producers and consumers.") | {"review_state": "open"})
    stored = stored_question(
        {
            "question_id": "q1",
            "item_type": "short_answer",
            "stem": STEM,
            "answer_schema": {"correct_keywords": KEYWORDS, "reference_answer": REFERENCE},
        }
    )
    entry = _attempt_entry(attempt, stored)
    assert entry.attempt is not None
    assert entry.attempt.correct_from == HIGH_SCORE_THRESHOLD
    summary = entry.attempt.reasoning_summary
    assert summary is not None
    assert summary.key_ideas_total == 5
    assert summary.queued_because is not None


def test_a_keyed_answer_has_no_summary():
    attempt = stored_attempt({"is_correct": True, "confidence": 1.0, "question_type": "multiple_choice"})
    assert reasoning_summary(attempt, None, waiting=True) is None


def test_notes_are_found_in_either_language():
    assert has_note(phrase("ko", "declined"), "declined")
    assert has_note(phrase("en", "unrelated"), "unrelated")
    assert not has_note("a plain reasoning", "flags")
