"""Tool 4 validate_question_quality.

Single: {"stem", "question_type", "choices"?, "correct_answer"?} -> one verdict.
Batch:  the same keys as parallel lists plus "batch": true -> a list of verdicts, one LLM call.
"""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.validation import ValidateQuestionBatchInput, ValidateQuestionInput
from slea.logic.generation.validation import validate_question_batch, validate_question_quality
from slea.platform.observability import CORRELATION_ID_PATH, logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=CORRELATION_ID_PATH)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any] | list[dict[str, Any]]:
    if isinstance(event, dict) and event.get("batch") is True:
        results = validate_question_batch(parse_input(ValidateQuestionBatchInput, event))
        return [result.model_dump(mode="json", exclude_none=True) for result in results]
    return validate_question_quality(parse_input(ValidateQuestionInput, event)).model_dump(
        mode="json", exclude_none=True
    )


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
