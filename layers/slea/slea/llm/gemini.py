"""Gemini through google-genai: every call asks for JSON with a response schema built from a
pydantic model and parses the answer into that model. Retries (408/429/5xx and transport
timeouts, exponential backoff with jitter) are the SDK's own HttpRetryOptions.

Imported only when Gemini is the chosen provider: google-genai is heavy for a cold start."""

import json
from functools import cached_property
from typing import Any

from google import genai
from google.genai import types
from pydantic import BaseModel, ValidationError

from slea.contracts.generation import DraftBatch, GenerateQuestionsInput
from slea.contracts.llm import (
    Explanation,
    GradingItem,
    ModelShortAnswerGrade,
    SemanticScores,
    ShortAnswerGrade,
    ValidationItem,
)
from slea.contracts.scoring import RubricPoints
from slea.feedback.details import picked_option
from slea.llm import prompts
from slea.llm.model_settings import LLMSettings
from slea.llm.provider import LLMError, Operation, llm_call
from slea.platform.aws import read_parameter

RETRIED_STATUS_CODES = [408, 429, 500, 502, 503, 504]
# The spec's 1024 output tokens fit about four generated questions; a batch gets that per four.
TOKENS_PER_QUESTION = 256
TOKENS_PER_SCORE = 64  # one {"index", "score", "issues"} entry: a 200-question batch must not be cut off
LANGUAGE_NAMES = {"en": "English", "ko": "Korean (한국어)"}
# Grading runs cold, unlike the spec's 0.7 (chosen for varied question writing): a grade must be
# reproducible, so the same answer gets the same score on a retry, a regrade or a review, and
# sampling noise must not move an answer across the pass mark.
GRADING_TEMPERATURE = 0.1


def _api_key(settings: LLMSettings) -> str:
    if settings.api_key:
        return settings.api_key
    if settings.api_key_parameter:
        # SecureString, decrypted, cached for 5 minutes per execution environment (only in AWS).
        return read_parameter(settings.api_key_parameter, max_age=300)
    raise LLMError("no Gemini API key configured (GEMINI_API_KEY or GEMINI_API_KEY_PARAMETER)")


class GeminiProvider:
    name = "gemini"

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings

    @cached_property
    def client(self) -> genai.Client:
        settings = self.settings
        return genai.Client(
            api_key=_api_key(settings),
            http_options=types.HttpOptions(
                base_url=settings.base_url,
                timeout=int(settings.timeout_seconds * 1000),
                retry_options=types.HttpRetryOptions(
                    attempts=settings.retry_attempts,
                    initial_delay=settings.retry_initial_delay,
                    max_delay=max(settings.retry_initial_delay * 8, 0.0),
                    exp_base=2,
                    jitter=settings.retry_initial_delay / 2,
                    http_status_codes=RETRIED_STATUS_CODES,
                ),
            ),
        )

    def _structured[ModelT: BaseModel](
        self,
        operation: Operation,
        system: str,
        prompt: str,
        schema: type[ModelT],
        *,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ModelT:
        config = types.GenerateContentConfig(
            system_instruction=system,
            temperature=self.settings.temperature if temperature is None else temperature,
            top_p=self.settings.top_p,
            max_output_tokens=max_output_tokens or self.settings.max_output_tokens,
            response_mime_type="application/json",
            response_json_schema=schema.model_json_schema(),
        )
        with llm_call(operation, self.name) as usage:
            try:
                response = self.client.models.generate_content(
                    model=self.settings.model, contents=prompt, config=config
                )
            except Exception as error:  # the SDK's boundary: API errors, timeouts, transport failures
                raise LLMError(f"gemini {operation} call failed: {type(error).__name__}: {error}") from error
            if response.usage_metadata is not None:
                usage.input_tokens = response.usage_metadata.prompt_token_count or 0
                usage.output_tokens = response.usage_metadata.candidates_token_count or 0
            # Inside the block: an unusable answer counts in LLMErrors like a failed call.
            try:
                return schema.model_validate_json(response.text or "")
            except ValidationError as error:
                raise LLMError(
                    f"gemini {operation} answer does not match its schema: {error.error_count()} problems"
                ) from error

    def generate_questions(self, request: GenerateQuestionsInput, count: int) -> DraftBatch:
        types_in_order = request.type_sequence(count)
        data: dict[str, Any] = {
            "learner_profile": request.profile.model_dump(mode="json", exclude={"user_id"}),
            "concepts_and_keywords": request.keywords.model_dump(mode="json"),
            "few_shot_templates": [
                template.model_dump(mode="json", include={"stem", "type", "choices", "correct_answer"})
                for template in request.templates
            ],
        }
        if request.feedback:
            data["previous_attempt_feedback"] = request.feedback
        if request.avoid_stems:
            data["questions_already_used"] = request.avoid_stems
        prompt = prompts.generation_prompt(
            {
                "count": count,
                "round": request.round,
                "session_id": json.dumps(request.session_id),
                "difficulty": request.difficulty,
                "category": request.category,
                "types": ", ".join(types_in_order),
                "language": LANGUAGE_NAMES[request.resolved_language()],
            },
            data,
        )
        budget = max(self.settings.max_output_tokens, TOKENS_PER_QUESTION * count)
        return self._structured("generate", prompts.GENERATION_SYSTEM, prompt, DraftBatch, max_output_tokens=budget)

    def score_questions(self, items: list[ValidationItem]) -> SemanticScores:
        prompt = prompts.validation_prompt([item.model_dump(mode="json", exclude_none=True) for item in items])
        budget = max(self.settings.max_output_tokens, TOKENS_PER_SCORE * len(items))
        return self._structured("validate", prompts.VALIDATION_SYSTEM, prompt, SemanticScores, max_output_tokens=budget)

    def grade_short_answer(self, item: GradingItem) -> ShortAnswerGrade:
        """One structured call: the three criteria scored separately against the reference
        answer and the keywords, with the model's confidence; the answer is delimited data."""
        data: dict[str, Any] = {
            "question": {"stem": item.stem, "category": item.category},
            "reference_answer": item.reference_answer or item.reference_explanation,
            "expected_keywords_or_concepts": item.correct_keywords,
            "learner_answer": item.user_answer,
        }
        if item.graded_examples:  # the item's reviewed answers nearest this one, with their grades
            data["graded_examples"] = [example.model_dump(mode="json") for example in item.graded_examples]
        prompt = prompts.grading_prompt(data, item.difficulty)
        graded = self._structured(
            "score", prompts.GRADING_SYSTEM, prompt, ModelShortAnswerGrade, temperature=GRADING_TEMPERATURE
        )
        points = RubricPoints(key_concepts=graded.key_concepts, correctness=graded.correctness, clarity=graded.clarity)
        return ShortAnswerGrade(
            score=points.total, reasoning=graded.reasoning, points=points, confidence=graded.confidence
        )

    def explain(self, item: GradingItem) -> Explanation:
        """The explanation in parts; the learner's pick is named by its text, so the model can say
        why that option is wrong. Links the model returns beyond the item's sources are dropped by
        the caller (slea.feedback.references.cited)."""
        picked = picked_option(item)
        # Other learners' answers (graded_examples) never reach a text the learner is shown.
        shown = item.model_dump(mode="json", exclude_none=True, exclude={"graded_examples"})
        data: dict[str, Any] = {"question_and_answer": shown}
        if picked is not None:
            data["learner_picked"] = item.choices[picked]
        system = prompts.EXPLANATION_SYSTEM.format(tone=prompts.TONES[bool(item.is_correct)])
        return self._structured("explain", system, prompts.explanation_prompt(data), Explanation)
