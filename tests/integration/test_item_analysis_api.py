"""GET /review/items through the HTTP API: reviewers only; calibrated bank items, flagged first,
filtered, sorted and paged with a cursor that belongs to its listing."""

import base64
import json
from decimal import Decimal

import boto3
import pytest

from tests.integration.test_api import ALICE
from tests.integration.test_review_api import REVIEWER, token


@pytest.fixture
def http(signed_http):
    """Every request of this file through the signed-token path: the local user pool signs each
    token, and who may do what is decided by the claims API Gateway's authorizer passes on."""
    return signed_http


def _item(question_id, category, item_type, label, b, flags=(), language="en", **extra):
    calibration = {
        "b": Decimal(str(b)),
        "se": Decimal("0.21"),
        "answers": 40,
        "facility": Decimal("0.61"),
        "discrimination": Decimal("0.35"),
        "infit": Decimal("1.02"),
        "outfit": Decimal("0.97"),
        "exposure": Decimal("0.5"),
        "flags": list(flags),
        "calibrated_at": "2026-01-01T00:15:00Z",
    }
    return {
        "question_id": question_id,
        "item_id": question_id,
        "item_type": item_type,
        "stem": f"<b>{question_id}</b> " + "long stem " * 40,
        "difficulty": label,
        "category": category,
        "bank_key": f"{category}#{language}",
        "difficulty_b": Decimal(str(b)),
        "calibration": calibration,
        **extra,
    }


ITEMS = [
    _item("q-a", "technical", "multiple_choice", 5, 0.4),
    _item("q-b", "technical", "true_false", 3, -1.5, flags=["label_far"], review_state="open"),
    _item("q-c", "business", "short_answer", 8, 1.9),
    _item("q-d", "business", "multiple_choice", 6, -0.2, flags=["misfit"], language="ko"),
    _item("q-e", "general", "multiple_choice", 2, -2.4),
]


@pytest.fixture
def calibrated(step_functions):
    cloud = step_functions.runtime.cloud
    questions = boto3.resource("dynamodb").Table(cloud.table_name("QuestionsTable"))
    for item in ITEMS:
        questions.put_item(Item=item)
    # A bank item the job has not calibrated yet is not listed.
    uncalibrated = _item("q-new", "technical", "multiple_choice", 5, 0)
    uncalibrated.pop("calibration")
    questions.put_item(Item=uncalibrated)
    return cloud


def listing(http, query="", who=REVIEWER):
    status, _, body = http("GET", f"/review/items{query}", None, who)
    assert status == 200, body
    return body


def ids(body):
    return [row["question_id"] for row in body["items"]]


def test_only_reviewers_see_the_item_analysis(http, calibrated):
    for who in (ALICE, token(ALICE, **{"cognito:groups": ["admins"]})):
        status, _, body = http("GET", "/review/items", None, who)
        assert (status, body["error_code"]) == (403, "FORBIDDEN")


def test_flagged_items_come_first_then_the_chosen_column(http, calibrated):
    body = listing(http)
    assert ids(body) == ["q-b", "q-d", "q-e", "q-a", "q-c"]  # flagged by b, then the rest by b
    assert body["total"] == 5
    assert body["next_cursor"] is None
    assert ids(listing(http, "?sort=b&order=desc")) == ["q-d", "q-b", "q-c", "q-a", "q-e"]
    assert ids(listing(http, "?sort=label")) == ["q-b", "q-d", "q-e", "q-a", "q-c"]
    row = listing(http)["items"][0]
    assert row == {
        "question_id": "q-b",
        "stem": row["stem"],
        "item_type": "true_false",
        "category": "technical",
        "label": 3,
        "b": -1.5,
        "se": 0.21,
        "answers": 40,
        "facility": 0.61,
        "discrimination": 0.35,
        "infit": 1.02,
        "outfit": 0.97,
        "exposure": 0.5,
        "flags": ["label_far"],
        "in_review": True,
        "status": "active",
        "calibrated_at": "2026-01-01T00:15:00Z",
    }
    assert row["stem"].startswith("<b>q-b</b> long stem")  # as stored: the page escapes it
    assert len(row["stem"]) == 160
    assert row["stem"].endswith("…")


def test_filters_by_category_flag_and_item_type(http, calibrated):
    assert ids(listing(http, "?category=business")) == ["q-d", "q-c"]
    assert ids(listing(http, "?flagged=true")) == ["q-b", "q-d"]
    assert ids(listing(http, "?item_type=multiple_choice&sort=question_id")) == ["q-d", "q-a", "q-e"]
    empty = listing(http, "?category=general&flagged=true")
    assert empty == {
        "items": [],
        "total": 0,
        "next_cursor": None,
        "last_calibrated_at": empty["last_calibrated_at"],
        "flagged_learners": [],  # no calibration run has flagged a learner here
    }
    assert empty["last_calibrated_at"]  # the page says when calibration last changed an item, even with none listed


def test_pages_follow_the_cursor_and_a_cursor_belongs_to_its_listing(http, calibrated):
    first = listing(http, "?limit=2")
    assert (ids(first), first["total"]) == (["q-b", "q-d"], 5)
    second = listing(http, f"?limit=2&cursor={first['next_cursor']}")
    third = listing(http, f"?limit=2&cursor={second['next_cursor']}")
    assert ids(second) + ids(third) == ["q-e", "q-a", "q-c"]
    assert third["next_cursor"] is None
    status, _, body = http("GET", f"/review/items?limit=2&sort=answers&cursor={first['next_cursor']}", None, REVIEWER)
    assert (status, body["error"].split(":")[0]) == (422, "cursor")
    forged = base64.urlsafe_b64encode(json.dumps({"offset": -1, "query": "x"}).encode()).decode().rstrip("=")
    for cursor in (forged, "bm90LWpzb24"):
        status, _, body = http("GET", f"/review/items?cursor={cursor}", None, REVIEWER)
        assert (status, body["error"].split(":")[0]) == (422, "cursor")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?sort=stem", "sort"),
        ("?category=cooking", "category"),
        ("?limit=0", "limit"),
        ("?item_type=essay", "item_type"),
    ],
)
def test_invalid_parameters_are_422_naming_the_field(http, calibrated, query, field):
    status, _, body = http("GET", f"/review/items{query}", None, REVIEWER)
    assert (status, body["error"].split(":")[0]) == (422, field)
