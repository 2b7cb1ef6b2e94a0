"""Tool 2 search_question_templates: {"interests", "difficulty", "category"} -> up to 10
templates, best first."""

import gc

# Cyclic garbage collection is paused while the modules below load (about a sixth of a cold
# start: bench/cold_import.py) and resumed at the end of this module.
gc.disable()

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from slea.contracts.common import parse_input
from slea.contracts.templates import SearchTemplatesInput
from slea.logic.generation.templates import search_question_templates
from slea.platform.observability import CORRELATION_ID_PATH, logger, metrics, tracer


@logger.inject_lambda_context(correlation_id_path=CORRELATION_ID_PATH)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> list[dict[str, Any]]:
    request = parse_input(SearchTemplatesInput, event)
    return [template.model_dump(mode="json") for template in search_question_templates(request)]


# What the modules above made lives as long as the execution environment: frozen out of every
# later collection, which would otherwise walk it all, the first (in the first client) included.
gc.freeze()
gc.enable()
