"""Tool 4 validate_question_quality: rule checks plus one LLM call that scores the questions
semantically; final_score = min(semantic, rule), with a pass / revise / reject verdict."""

from slea.contracts.validation import ValidateQuestionBatchInput, ValidateQuestionInput, ValidationResult
from slea.logic.generation import validation


def validate_question_quality(request: ValidateQuestionInput) -> ValidationResult:
    """One question, one verdict."""
    return validation.validate_question_quality(request)


def validate_question_batch(request: ValidateQuestionBatchInput) -> list[ValidationResult]:
    """`batch: true` with parallel lists: a verdict per question, from one LLM call."""
    return validation.validate_question_batch(request)
