"""The automatic grade's reasoning as a teacher reads it (ReviewedAttempt.reasoning_summary): how
many of the question's key ideas the answer mentions, how close it is to the reference in meaning,
whether it is on topic, and why it waits for a reviewer. The page puts these in words in the
reader's language; the stored reasoning (the grader's rubric line, its numbers and notes) stays
beside it for whoever wants the figures.

Read from what the attempt stored: its keyword matches and the question's keywords, the numbers
of the offline grader's rubric line (slea.language.grading_phrases reads them back by its own
templates; a model grader's prose has none, so closeness and topic are then not given), and its
verdict and confidence against the fitted model's finalisation cuts.
"""

from typing import Literal

from slea.contracts.review import QueuedBecause, ReasoningSummary
from slea.dal.attempts import StoredAttempt
from slea.grading.model import fitted_model
from slea.language.grading_phrases import RubricValues, has_note, rubric_values

# Closeness in meaning: 0.8 x reference coverage + 0.2 x phrase order, as the grader weighs them
# (slea.grading.features.meaning_of). From MEANING_COVERS it covers the reference's ideas (the
# grader's FULL_COVERAGE: a test keeps the two equal); from half of it, partly.
MEANING_COVERS = 0.32
MEANING_PARTLY = MEANING_COVERS / 2
ON_TOPIC_FROM = 0.5  # share of the answer's content about the question or the reference


def _meaning(values: RubricValues) -> Literal["close", "partly", "far"]:
    meaning = 0.8 * values.recall + 0.2 * values.order
    return "close" if meaning >= MEANING_COVERS else "partly" if meaning >= MEANING_PARTLY else "far"


def queued_because(reasoning: str | None, is_correct: bool, confidence: float) -> QueuedBecause:
    """Why a provisional grade waits: the first of the grader's own reasons that holds."""
    if confidence <= 0.0:
        return "grader_unavailable"
    if has_note(reasoning, "flags"):
        return "findings"
    if has_note(reasoning, "disagreement"):
        return "disagreement"
    if has_note(reasoning, "not_backed"):
        return "not_backed"
    if not fitted_model().is_final(is_correct, confidence):
        return "not_sure_enough"
    return "second_look"


def reasoning_summary(attempt: StoredAttempt, keywords: list[str] | None, *, waiting: bool) -> ReasoningSummary | None:
    """The summary of a short answer's grade (None for a keyed answer: its grade needs no words).
    `keywords`: the question's key terms; `waiting`: the grade is provisional, in the queue."""
    reasoning = attempt.grader_reasoning
    if not reasoning and attempt.question_type != "short_answer":
        return None
    values = rubric_values(reasoning)
    is_correct = attempt.is_correct
    if values is not None:
        found, total = int(values.found), int(values.expected)
    else:
        found, total = len(attempt.keyword_matches), len(keywords or [])
    return ReasoningSummary(
        key_ideas_found=found if total else None,
        key_ideas_total=total or None,
        meaning=_meaning(values) if values is not None else None,
        on_topic=values.on_topic >= ON_TOPIC_FROM if values is not None else None,
        not_an_answer=has_note(reasoning, "declined"),
        unrelated=has_note(reasoning, "unrelated"),
        leans="correct" if is_correct else "wrong",
        queued_because=queued_because(reasoning, is_correct, attempt.confidence) if waiting else None,
    )
