"""The event envelopes declared in the layer (slea.contracts.http_event, retry_event) refuse what
Powertools' own models (APIGatewayProxyEventV2Model, SqsModel) refuse: the same fields, the same
required ones, level by level."""

import copy

import pytest
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventV2Model
from aws_lambda_powertools.utilities.parser.models.apigwv2 import (
    RequestContextV2,
    RequestContextV2Authorizer,
    RequestContextV2AuthorizerJwt,
    RequestContextV2Http,
)
from pydantic import BaseModel

from slea.contracts.common import parse_input
from slea.contracts.http_event import (
    HttpApiAuthorizer,
    HttpApiEvent,
    HttpApiJwt,
    HttpApiRequestContext,
    HttpApiRequestHttp,
)

PAIRS = [
    (HttpApiEvent, APIGatewayProxyEventV2Model),
    (HttpApiRequestContext, RequestContextV2),
    (HttpApiRequestHttp, RequestContextV2Http),
    (HttpApiAuthorizer, RequestContextV2Authorizer),
    (HttpApiJwt, RequestContextV2AuthorizerJwt),
]

EVENT = {
    "version": "2.0",
    "routeKey": "GET /sessions",
    "rawPath": "/sessions",
    "rawQueryString": "",
    "headers": {"authorization": "Bearer x", "content-type": "application/json"},
    "requestContext": {
        "accountId": "123456789012",
        "apiId": "api",
        "authorizer": {"jwt": {"claims": {"sub": "11111111-1111-4111-8111-111111111111"}, "scopes": None}},
        "domainName": "api.example.com",
        "domainPrefix": "api",
        "requestId": "r",
        "routeKey": "GET /sessions",
        "stage": "$default",
        "time": "27/Nov/2026:03:00:00 +0000",
        "timeEpoch": 1795748400000,
        "http": {
            "method": "GET",
            "path": "/sessions",
            "protocol": "HTTP/1.1",
            "sourceIp": "192.0.2.1",
            "userAgent": "t",
        },
    },
    "isBase64Encoded": False,
}


def _fields(model: type[BaseModel]) -> dict[str, bool]:
    return {field.alias or name: field.is_required() for name, field in model.model_fields.items()}


@pytest.mark.parametrize(("ours", "theirs"), PAIRS, ids=lambda model: model.__name__)
def test_the_same_fields_are_required(ours, theirs):
    assert _fields(ours) == _fields(theirs)


def test_a_real_event_is_accepted_by_both():
    parse_input(HttpApiEvent, EVENT)
    APIGatewayProxyEventV2Model.model_validate(EVENT)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("requestContext", "http", "method"), "BREW", "method"),
        (("requestContext",), None, "requestContext"),
        (("headers",), ["not", "a", "map"], "headers"),
        (("requestContext", "timeEpoch"), "soon", "timeEpoch"),
    ],
)
def test_a_malformed_envelope_is_refused_by_both_naming_the_field(path, value, field):
    event = copy.deepcopy(EVENT)
    target = event
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises((ValueError, TypeError), match=field):
        parse_input(HttpApiEvent, event)
    with pytest.raises(ValueError, match=field):  # pydantic's ValidationError is a ValueError
        APIGatewayProxyEventV2Model.model_validate(event)


def test_the_retry_queue_event_requires_what_powertools_sqs_model_requires():
    from aws_lambda_powertools.utilities.parser.models import (
        SqsAttributesModel,
        SqsModel,
        SqsMsgAttributeModel,
        SqsRecordModel,
    )

    from slea.contracts.retry_event import RetryQueueEvent, SqsAttributes, SqsMessageAttribute, SqsRecord

    pairs = [
        (RetryQueueEvent, SqsModel),
        (SqsRecord, SqsRecordModel),
        (SqsAttributes, SqsAttributesModel),
        (SqsMessageAttribute, SqsMsgAttributeModel),
    ]
    for ours, theirs in pairs:
        assert _fields(ours) == _fields(theirs), ours.__name__
