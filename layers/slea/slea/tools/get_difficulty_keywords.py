"""Tool 3 get_difficulty_keywords: keywords, concepts and example questions for a (difficulty,
category), cached for an hour per execution environment; the default keywords when nothing
better is available."""

from slea.contracts.keywords import DifficultyKeywords, GetKeywordsInput
from slea.logic.generation import keywords


def get_difficulty_keywords(request: GetKeywordsInput) -> DifficultyKeywords:
    return keywords.get_difficulty_keywords(request)
