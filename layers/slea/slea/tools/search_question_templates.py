"""Tool 2 search_question_templates: up to 10 few-shot templates for the generator, matching the
interests (ignoring case) within the difficulty window, best first; [] when DynamoDB fails."""

from slea.contracts.templates import QuestionTemplate, SearchTemplatesInput
from slea.logic.generation import templates


def search_question_templates(request: SearchTemplatesInput) -> list[QuestionTemplate]:
    return templates.search_question_templates(request)
