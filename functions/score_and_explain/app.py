"""Tool 6 score_and_explain, direct invocation with the tool's parameters:
{session_id, user_id, question_id, question_type, user_answer, correct_answer?, correct_keywords?,
difficulty?, category?} -> the grading result. The HTTP API grades through the same logic."""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.scoring import ScoreAnswerInput
from slea.llm import budget
from slea.logic.answering.answer import grade_answer
from slea.platform.observability import CORRELATION_ID_PATH, logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=CORRELATION_ID_PATH)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    budget.start(context)
    return grade_answer(parse_input(ScoreAnswerInput, event)).model_dump(mode="json")


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
