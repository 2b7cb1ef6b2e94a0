"""Who is a reviewer, whichever way API Gateway (or a local token) passes the claims."""

import pytest

from slea.roles import claim_values, is_reviewer


@pytest.mark.parametrize(
    ("value", "values"),
    [
        ("[reviewers admins]", {"reviewers", "admins"}),  # API Gateway's form of an array claim
        ('["reviewers", "admins"]', {"reviewers", "admins"}),
        ("reviewers,admins", {"reviewers", "admins"}),
        ("openid slea/review", {"openid", "slea/review"}),
        (["reviewers"], {"reviewers"}),
        ("[]", set()),
        (None, set()),
        (7, set()),
    ],
)
def test_claim_values_in_every_form(value, values):
    assert claim_values(value) == values


@pytest.mark.parametrize(
    ("claims", "reviewer"),
    [
        ({"sub": "u", "cognito:groups": "[reviewers]"}, True),
        ({"sub": "u", "scope": "openid slea/review"}, True),
        ({"sub": "u", "cognito:groups": "[reviewers-in-training]"}, False),
        ({"sub": "u", "scope": "slea/reviewer"}, False),
        ({"sub": "u"}, False),
        (None, False),
    ],
)
def test_is_reviewer(claims, reviewer):
    assert is_reviewer(claims) is reviewer
