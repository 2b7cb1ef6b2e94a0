"""The offline provider's explainer: the parts of an explanation taken from the item's own records
(the explanation stored with it, the concept each option came from, the terms an answer missed),
and the concept's real sources as its only references. Tool 6 composes the prose from the parts
(slea.feedback.details). Kept apart from the grader so that a multiple-choice or true/false answer
never loads the short-answer grading code."""

from slea.contracts.llm import Explanation, GradingItem
from slea.feedback.details import offline_parts


def explain_offline(item: GradingItem) -> Explanation:
    why_correct, why_yours_is_wrong = offline_parts(item)
    return Explanation(
        why_correct=why_correct, why_yours_is_wrong=why_yours_is_wrong, reference_links=list(item.sources)
    )
