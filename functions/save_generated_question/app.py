"""Tool 5 save_generated_question.

Single: the tool's parameters -> {question_id, round_id, saved_at, success} (or, when the write
failed and the question went to the retry queue, success false and queued_for_retry true; when
it repeats a question withdrawn from the bank, success false, queued_for_retry false and an error).
Batch: {"questions": [<single>, ...]} -> {"results": [...], "saved", "queued_for_retry", "withdrawn"}.
"""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.questions import SaveQuestionInput, SaveQuestionsBatchInput
from slea.logic.generation.saving import save_generated_question, save_generated_questions
from slea.platform.observability import CORRELATION_ID_PATH, logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=CORRELATION_ID_PATH)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if isinstance(event, dict) and "questions" in event:
        return save_generated_questions(parse_input(SaveQuestionsBatchInput, event)).model_dump(mode="json")
    return save_generated_question(parse_input(SaveQuestionInput, event)).model_dump(mode="json")


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
