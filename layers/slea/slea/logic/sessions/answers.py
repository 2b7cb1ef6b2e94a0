"""A learner's answer to a session's question, graded (logic/answering/answer.py) over the HTTP
API and the MCP server. The grading path is a fifth of the API's import: the answer route and
the MCP server's score_and_explain load this module with their first answer, not at every cold
start (most requests list or start)."""

from slea.contracts.scoring import AnswerRequest, ScoreAnswerOutput
from slea.logic.answering import answer as answering
from slea.platform.errors import Unavailable
from slea.platform.observability import tracer


@tracer.capture_method
def answer_question(session_id: str, user_id: str, answer: AnswerRequest) -> ScoreAnswerOutput:
    """Grade a learner's answer (logic/answering/answer.py)."""
    try:
        return answering.answer_question(session_id, user_id, answer)
    except answering.GradeNotRecordedError as error:
        raise Unavailable(
            "ANSWER_NOT_RECORDED", "your answer was graded but could not be recorded; send it again"
        ) from error
