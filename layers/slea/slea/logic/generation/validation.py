"""Tool 4: two-stage validation: rule checks plus one LLM call that scores the
whole batch semantically; final_score = min(semantic, rule)."""

from typing import Any

from slea.authoring.item_rules import (
    ABSOLUTE_WORDING,
    ANSWER_NOT_IN_CHOICES,
    CATCH_ALL_CHOICE,
    DUPLICATE_CHOICES,
    NEAR_DUPLICATE,
    STEM_TOO_LONG,
    UNEQUAL_LENGTHS,
    WRONG_CHOICE_COUNT,
    Problem,
    cue_problems,
    key_term_problems,
    language_problems,
)
from slea.authoring.question_quality import ABSOLUTE, CATCH_ALL, StemIndex, lengths_unequal, normalised
from slea.constants import (
    DEFAULT_VALIDATION_LLM_SCORE,
    MAX_CHOICES,
    MIN_CHOICES,
    PASS_THRESHOLD,
    REJECT_THRESHOLD,
    STEM_MAX_LENGTH,
    Language,
)
from slea.contracts.answers import choice_index, choice_text, is_true_false_key
from slea.contracts.common import parse_input
from slea.contracts.llm import ItemScore, ValidationItem
from slea.contracts.validation import (
    Recommendation,
    ValidateQuestionBatchInput,
    ValidateQuestionInput,
    ValidationResult,
)
from slea.llm.provider import LLMError
from slea.llm.provider_choice import get_provider
from slea.platform.observability import logger, metrics, tracer

# The spec's feedback is Korean; a caller that names the learner's language gets it in that language.
FEEDBACK: dict[Language, dict[Recommendation, str]] = {
    "ko": {
        "pass": "질문이 우수한 품질입니다. 즉시 저장할 수 있습니다.",
        "revise": "질문이 기본 기준을 충족하지만 개선이 가능합니다. 피드백을 바탕으로 재생성을 권장합니다.",
        "reject": "질문이 기준을 충족하지 않습니다. 새로운 질문 생성을 권장합니다.",
    },
    "en": {
        "pass": "The question is of high quality and can be saved as it is.",
        "revise": "The question meets the basic criteria but can be improved; regenerating it with the issues "
        "below is recommended.",
        "reject": "The question does not meet the criteria; generating a new question is recommended.",
    },
}
SPEC_FEEDBACK_LANGUAGE: Language = "ko"


def rule_check(
    question: ValidateQuestionInput, earlier: StemIndex | list[str], existing: StemIndex | list[str]
) -> tuple[float, list[str]]:
    """The rule score (1.0 minus deductions, floored at 0) and the issues found. A batch passes
    `StemIndex`es, so that no stem is prepared again for each question it is compared with. Each
    rule's deduction and issue are in Tool 4's one table (slea.authoring.item_rules)."""
    found: list[Problem] = []
    if len(question.stem) > STEM_MAX_LENGTH:
        found.append(STEM_TOO_LONG)
    choices = question.choices or []
    if question.question_type == "multiple_choice":
        if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
            found.append(WRONG_CHOICE_COUNT)
        if choice_index(question.correct_answer or "", choices) is None:
            found.append(ANSWER_NOT_IN_CHOICES)
    elif question.question_type == "true_false" and not is_true_false_key(question.correct_answer or ""):
        found.append(ANSWER_NOT_IN_CHOICES)
    texts = [normalised(choice_text(choice)) for choice in choices]
    if len(texts) != len(set(texts)):
        found.append(DUPLICATE_CHOICES)
    if question.question_type == "multiple_choice" and choices:
        found.extend(_distractor_problems(choices))
        found.extend(cue_problems(question.stem, choices, question.correct_answer))
    found.extend(key_term_problems(question.question_type, question.correct_keywords or [], question.reference_answer))
    found.extend(language_problems(question.language, question.stem, choices, question.correct_keywords or []))
    if (duplicate := _near_duplicate(question.stem, _indexed(earlier), _indexed(existing))) is not None:
        found.append(duplicate)
    score = max(0.0, 1.0 - sum(deduction for deduction, _ in found))
    return round(score, 4), [issue for _, issue in found]


def _indexed(stems: StemIndex | list[str]) -> StemIndex:
    return stems if isinstance(stems, StemIndex) else StemIndex(stems)


def _near_duplicate(stem: str, earlier: StemIndex, existing: StemIndex) -> Problem | None:
    deduction, issue = NEAR_DUPLICATE
    if (position := earlier.first_match(stem)) is not None:
        return deduction, issue.format(other=f"question {position + 1} of this batch")
    if existing.first_match(stem) is not None:
        return deduction, issue.format(other="an existing template")
    return None


def _distractor_problems(choices: list[str]) -> list[Problem]:
    bare = [choice_text(choice) for choice in choices]
    problems = []
    if any(CATCH_ALL.search(text) for text in bare):
        problems.append(CATCH_ALL_CHOICE)
    if lengths_unequal(bare):
        problems.append(UNEQUAL_LENGTHS)
    if any(ABSOLUTE.search(text) for text in bare):
        problems.append(ABSOLUTE_WORDING)
    return problems


def recommendation_for(final_score: float) -> Recommendation:
    if final_score >= PASS_THRESHOLD:
        return "pass"
    return "revise" if final_score >= REJECT_THRESHOLD else "reject"


def verdict(
    semantic: ItemScore, rule_score: float, issues: list[str], language: Language | None = None
) -> ValidationResult:
    """The final score is the lower of the two stages; the issues of both are reported."""
    final = round(min(semantic.score, rule_score), 4)
    recommendation = recommendation_for(final)
    return ValidationResult(
        is_valid=final >= REJECT_THRESHOLD,
        score=semantic.score,
        rule_score=rule_score,
        final_score=final,
        feedback=FEEDBACK[language or SPEC_FEEDBACK_LANGUAGE][recommendation],
        issues=[*issues, *(issue for issue in semantic.issues if issue not in issues)],
        recommendation=recommendation,
    )


def _invalid_entry(error: Exception) -> ValidationResult:
    return ValidationResult(
        is_valid=False,
        score=0.0,
        rule_score=0.0,
        final_score=0.0,
        feedback=FEEDBACK[SPEC_FEEDBACK_LANGUAGE]["reject"],
        issues=[f"Invalid input: {error}"],
        recommendation="reject",
        error=str(error),
    )


def _semantic_scores(questions: dict[int, ValidateQuestionInput]) -> dict[int, ItemScore]:
    """One LLM call for every question; the spec's default score for any it could not score."""
    if not questions:
        return {}
    items = [
        ValidationItem(
            index=index,
            stem=question.stem,
            question_type=question.question_type,
            choices=question.choices or [],
            correct_answer=question.correct_answer or ", ".join(question.correct_keywords or []) or None,
            correct_keywords=question.correct_keywords or [],
            source=question.source,
        )
        for index, question in questions.items()
    ]
    try:
        scored = {item.index: item for item in get_provider().score_questions(items).scores}
    except LLMError as error:
        logger.warning("semantic validation failed, using the default score", extra={"reason": str(error)})
        scored = {}
    return {
        index: ItemScore(index=index, score=round(item.score, 4), issues=item.issues)
        if (item := scored.get(index))
        else ItemScore(index=index, score=DEFAULT_VALIDATION_LLM_SCORE)
        for index in questions
    }


@tracer.capture_method
def validate_parsed(
    entries: list[ValidateQuestionInput | Exception], existing_stems: list[str]
) -> list[ValidationResult]:
    """Score every well-formed question (one LLM call); a malformed entry gets an error entry."""
    questions = {index: entry for index, entry in enumerate(entries) if isinstance(entry, ValidateQuestionInput)}
    semantic = _semantic_scores(questions)
    results = []
    existing = StemIndex(existing_stems)
    stems_so_far = StemIndex()
    for index, entry in enumerate(entries):
        if isinstance(entry, Exception):
            results.append(_invalid_entry(entry))
            stems_so_far.add("")  # keeps "question N of this batch" counting every entry
            continue
        rule_score, issues = rule_check(entry, stems_so_far, existing)
        stems_so_far.add(entry.stem)
        results.append(verdict(semantic[index], rule_score, issues, entry.language))
    metrics.add_metric(name="QuestionsValidated", unit="Count", value=len(results))
    metrics.add_metric(name="QuestionsRejected", unit="Count", value=sum(not result.is_valid for result in results))
    return results


def _parse_entry(entry: dict[str, Any]) -> ValidateQuestionInput | Exception:
    try:
        return parse_input(ValidateQuestionInput, entry)
    except (ValueError, TypeError) as error:
        return error


def validate_question_quality(request: ValidateQuestionInput) -> ValidationResult:
    (result,) = validate_parsed([request], request.existing_stems)
    return result


def validate_question_batch(request: ValidateQuestionBatchInput) -> list[ValidationResult]:
    return validate_parsed([_parse_entry(entry) for entry in request.entries()], request.existing_stems)
