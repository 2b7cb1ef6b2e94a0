"""Tool 6 score_and_explain, by direct invocation with the tool's own parameters: grade an answer
and explain it, informed by the question's stored context when Tool 5 saved it (the caller's
answer key is used as given). The HTTP API grades through the same logic."""

from slea.contracts.scoring import ScoreAnswerInput, ScoreAnswerOutput
from slea.logic.answering import answer


def grade_answer(request: ScoreAnswerInput) -> ScoreAnswerOutput:
    return answer.grade_answer(request)
