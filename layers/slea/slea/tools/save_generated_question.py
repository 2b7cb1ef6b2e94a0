"""Tool 5 save_generated_question: store validated questions; a failed write puts the whole
question on the SQS retry queue (drained by the retry worker), so nothing is ever lost."""

from slea.contracts.questions import (
    RetryMessage,
    SaveQuestionInput,
    SaveQuestionResult,
    SaveQuestionsBatchInput,
    SaveQuestionsBatchResult,
)
from slea.logic.generation import saving


def save_generated_question(request: SaveQuestionInput) -> SaveQuestionResult:
    """One question: saved, queued for retry (`success: false, queued_for_retry: true`), or refused
    because it repeats a question withdrawn from the bank (`success: false, queued_for_retry: false`)."""
    return saving.save_generated_question(request)


def save_generated_questions(batch: SaveQuestionsBatchInput) -> SaveQuestionsBatchResult:
    """`{"questions": [...]}`: each question saved (or queued, or refused) on its own."""
    return saving.save_generated_questions(batch)


def save_from_retry_queue(message: RetryMessage) -> None:
    """The retry worker's unit of work; raises so SQS redelivers (and finally dead-letters); a
    question repeating a withdrawn bank item is dropped."""
    saving.save_from_retry_queue(message)
