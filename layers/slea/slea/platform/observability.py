"""One Logger, Metrics and Tracer per process, shared by handlers and the layer.

Service name, metrics namespace and log level come from the POWERTOOLS_* environment that
template.yaml sets. Tracing switches itself off outside Lambda (tests, the local runtime).
"""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
metrics = Metrics()
# Patch only what we call: X-Ray's patch_all would import and wrap every library it knows.
tracer = Tracer(patch_modules=["botocore"])

# Callers that run a whole round (the state machine, the HTTP API) pass their id as
# `correlation_id`, so every tool's log lines of one round can be found together.
CORRELATION_ID_PATH = "correlation_id"
