"""The offline provider's semantic score: a documented heuristic standing in for the model's
judgement of clarity, appropriateness, correctness, bias and format. It starts at 0.95 and
subtracts for what can be seen in the text; the rule-based checks of Tool 4 (length, choice
count, answer in choices, duplicates) are not repeated here.

| signal                                                          | deduction |
| --------------------------------------------------------------- | --------- |
| stem shorter than 10 characters (too little context to be clear)  | 0.10      |
| stem not phrased as a question or task (no ?, :, 시오, 참/거짓 ...) | 0.05      |
| loaded or biased wording (obviously, stupid, 당연히, ...)          | 0.20      |
| vague wording (etc., and so on, various, 등등)                    | 0.05      |
| double negative (not ... not)                                    | 0.10      |
| short answer with no expected answer to grade against            | 0.15      |

Correctness is judged against the item's source concept (`slea.authoring.item_rules.grounding_problems`:
a key the record does not support, a second right option, a true/false key the record
contradicts, keywords or acronyms the record does not have), each with its deduction. An item
with no source cannot be checked without a model: it is marked unverifiable and capped at
UNVERIFIABLE_CAP, in the "revise" band, never passed.
"""

import re

from slea.authoring.item_rules import UNVERIFIABLE, grounding_problems
from slea.contracts.llm import ItemScore, SemanticScores, ValidationItem

BASE_SCORE = 0.95
QUESTION_FORM = re.compile(r"[?\uff1f:\uff1a]|시오|인가|True or False|참/거짓|\(참/거짓\)", re.IGNORECASE)
LOADED = re.compile(r"\b(obviously|stupid|idiot|dumb|everyone knows)\b|당연히|바보|멍청", re.IGNORECASE)
VAGUE = re.compile(r"\b(etc|and so on|various|some things|stuff)\b|등등", re.IGNORECASE)
UNVERIFIABLE_CAP = 0.8  # "revise" (0.70-0.85): a human or a model should look at the key
DOUBLE_NEGATIVE = re.compile(r"\bnot\b[^.?!]*\bnot\b|\bnever\b[^.?!]*\bno\b", re.IGNORECASE)


def semantic_score(item: ValidationItem) -> float:
    stem = item.stem.strip()
    score = BASE_SCORE
    if len(stem) < 10:
        score -= 0.10
    if not QUESTION_FORM.search(stem):
        score -= 0.05
    if LOADED.search(stem) or any(LOADED.search(choice) for choice in item.choices):
        score -= 0.20
    if VAGUE.search(stem):
        score -= 0.05
    if DOUBLE_NEGATIVE.search(stem):
        score -= 0.10
    if item.question_type == "short_answer" and not (item.correct_answer or "").strip():
        score -= 0.15
    return round(min(max(score, 0.0), 1.0), 2)


def semantic_review(item: ValidationItem) -> ItemScore:
    """The heuristic score, then the check against the item's source concept."""
    score = semantic_score(item)
    if item.source is None:
        return ItemScore(index=item.index, score=min(score, UNVERIFIABLE_CAP), issues=[UNVERIFIABLE])
    problems = grounding_problems(
        item.question_type, item.stem, item.choices, item.correct_answer, item.correct_keywords, item.source
    )
    grounded = round(max(0.0, score - sum(deduction for deduction, _ in problems)), 2)
    return ItemScore(index=item.index, score=grounded, issues=[issue for _, issue in problems])


def semantic_scores(items: list[ValidationItem]) -> SemanticScores:
    """The offline provider's scores of a batch: each item's `semantic_review`."""
    return SemanticScores(scores=[semantic_review(item) for item in items])
