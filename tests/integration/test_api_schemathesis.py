"""Schemathesis over the committed OpenAPI document, in-process through the local HTTP API
adapter (bounded: a few dozen examples per operation). Zero failures allowed."""

import contextlib

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from slea_local.http import HttpApiAdapter


class CountingAdapter(HttpApiAdapter):
    requests = 0

    def __call__(self, environ, start_response):
        CountingAdapter.requests += 1
        return super().__call__(environ, start_response)


USER = "550e8400-e29b-41d4-a716-446655440000"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


def check_operation(operation, failures):
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(case=operation.as_strategy())
    def check(case):
        try:
            case.call_and_validate(headers={"Authorization": f"Bearer {USER}"}, checks=CHECKS)
        except Exception as error:  # collected, so one report covers every operation
            failures.append(f"{operation.label}: {type(error).__name__}: {str(error)[:400]}")
            raise

    with contextlib.suppress(Exception):  # hypothesis re-raises the (recorded) falsifying example
        check()


def test_the_api_conforms_to_its_openapi_document(step_functions):
    app = CountingAdapter(step_functions.runtime)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    failures: list[str] = []
    for result in schema.get_all_operations():
        check_operation(result.ok(), failures)
    assert failures == []
    assert app.requests > 50  # the fuzzer really called the API
