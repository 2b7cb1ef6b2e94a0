"""Tool 3: keywords, concepts and example questions for a (difficulty, category), cached for an
hour per execution environment, with the spec's defaults when nothing better is available."""

from typing import Any

from pydantic import ValidationError

from slea.constants import (
    CONCEPTS_MAX,
    DEFAULT_KEYWORDS,
    EXAMPLE_QUESTIONS_MAX,
    KEYWORDS_CACHE_TTL_SECONDS,
    KEYWORDS_MAX,
)
from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.dal import keywords
from slea.platform.cache import StaleOnErrorCache
from slea.platform.errors import DataAccessError
from slea.platform.observability import logger, metrics, tracer

# Module level on purpose: it survives warm invocations of the same execution environment.
keyword_cache: StaleOnErrorCache[DifficultyKeywords] = StaleOnErrorCache(ttl=KEYWORDS_CACHE_TTL_SECONDS)


def default_keywords(request: GetKeywordsInput) -> DifficultyKeywords:
    return DifficultyKeywords.model_validate(
        {**DEFAULT_KEYWORDS, "difficulty": request.difficulty, "category": request.category}
    )


def _first(entries: tuple[Any, ...] | None, count: int) -> list[Any] | None:
    """The first `count` entries of a stored list (None, a value that is no list, fails the contract)."""
    return None if entries is None else list(entries[:count])


def _load(request: GetKeywordsInput) -> DifficultyKeywords | None:
    record = keywords.get_record(request.difficulty, request.category)
    if record is None:
        return None
    trimmed = {
        "difficulty": record.difficulty,
        "category": record.category,
        "keywords": _first(record.keywords, KEYWORDS_MAX),
        "concepts": _first(record.concepts, CONCEPTS_MAX),
        "example_questions": _first(record.example_questions, EXAMPLE_QUESTIONS_MAX),
    }
    try:
        return DifficultyKeywords.model_validate(trimmed)
    except ValidationError as error:
        logger.warning(
            "stored keyword record is malformed, treating it as missing", extra={"errors": error.error_count()}
        )
        return None


@tracer.capture_method
def get_difficulty_keywords(request: GetKeywordsInput) -> DifficultyKeywords:
    try:
        found = keyword_cache.lookup(request.cache_key(), lambda: _load(request), recoverable=DataAccessError)
    except DataAccessError as error:
        logger.warning("keyword lookup failed with nothing cached, serving defaults", extra={"reason": str(error)})
        metrics.add_metric(name="KeywordsFallback", unit="Count", value=1)
        return default_keywords(request)
    metrics.add_metric(name=f"KeywordsFrom{found.source.capitalize()}", unit="Count", value=1)
    if found.value is None:
        logger.info("no keyword record for this difficulty and category, serving defaults")
        metrics.add_metric(name="KeywordsFallback", unit="Count", value=1)
        return default_keywords(request)
    if found.source == "stale":
        logger.warning("keyword lookup failed, serving the expired cached record")
    return found.value


def stored_keywords(difficulty: int, category: str) -> DifficultyKeywords | None:
    """The stored record of (difficulty, category) through the same cache, or None when there is
    none or it cannot be read: a round filled from a neighbouring difficulty takes real concepts
    only (the defaults would fill it with generic items under a label they were not written for)."""
    request = GetKeywordsInput(difficulty=difficulty, category=category)
    try:
        return keyword_cache.lookup(request.cache_key(), lambda: _load(request), recoverable=DataAccessError).value
    except DataAccessError as error:
        logger.warning("a neighbouring keyword record is unavailable", extra={"reason": str(error)})
        return None
