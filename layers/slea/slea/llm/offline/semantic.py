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
"""

import re

from slea.llm.schemas import ValidationItem

BASE_SCORE = 0.95
QUESTION_FORM = re.compile(r"[?\uff1f:\uff1a]|시오|인가|True or False|참/거짓|\(참/거짓\)", re.IGNORECASE)
LOADED = re.compile(r"\b(obviously|stupid|idiot|dumb|everyone knows)\b|당연히|바보|멍청", re.IGNORECASE)
VAGUE = re.compile(r"\b(etc|and so on|various|some things|stuff)\b|등등", re.IGNORECASE)
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
