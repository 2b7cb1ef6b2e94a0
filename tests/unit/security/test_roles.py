"""Who is a reviewer or an author, whichever way API Gateway (or a local token) passes the claims;
membership is an exact match of the name."""

import pytest

from slea.security.roles import Caller, groups, is_author, is_reviewer


@pytest.mark.parametrize(
    ("value", "values"),
    [
        ("[reviewers admins]", {"reviewers", "admins"}),  # API Gateway's form of an array claim
        ("[reviewers]", {"reviewers"}),
        (["reviewers", "admins"], {"reviewers", "admins"}),  # a list, as a token carries it
        ("reviewers,admins", {"reviewers,admins"}),  # punctuation is part of a Cognito group's name
        ('["reviewers", "admins"]', {'"reviewers",', '"admins"'}),  # not a form API Gateway sends
        ("[[reviewers]]", {"[reviewers]"}),
        ("[]", set()),
        (None, set()),
        (7, set()),
    ],
)
def test_groups_in_every_form(value, values):
    assert groups(value) == values


@pytest.mark.parametrize(
    ("claims", "reviewer"),
    [
        ({"sub": "u", "cognito:groups": "[reviewers]"}, True),
        ({"sub": "u", "cognito:groups": "[admins reviewers]"}, True),
        ({"sub": "u", "cognito:groups": ["reviewers"]}, True),
        # A scope is the client's, not the user's: it never makes a reviewer.
        ({"sub": "u", "scope": "openid slea/review"}, False),
        ({"sub": "u", "scope": "openid email profile slea/review slea/author aws.cognito.signin.user.admin"}, False),
        ({"sub": "u", "cognito:groups": "[reviewers-in-training]"}, False),
        ({"sub": "u", "cognito:groups": "[reviewers,x]"}, False),
        ({"sub": "u", "cognito:groups": "reviewers,x"}, False),
        ({"sub": "u", "cognito:groups": ["reviewers,x"]}, False),
        ({"sub": "u", "cognito:groups": "[reviewersx]"}, False),
        ({"sub": "u", "cognito:groups": "[xreviewers]"}, False),
        ({"sub": "u", "scope": "slea/reviewer"}, False),
        ({"sub": "u", "scope": "openid,slea/review"}, False),
        ({"sub": "u", "cognito:groups": "[authors]"}, False),
        ({"sub": "u"}, False),
        (None, False),
    ],
)
def test_is_reviewer(claims, reviewer):
    assert is_reviewer(claims) is reviewer


@pytest.mark.parametrize(
    ("claims", "author"),
    [
        ({"sub": "u", "cognito:groups": "[authors]"}, True),
        ({"sub": "u", "cognito:groups": "[reviewers authors]"}, True),
        ({"sub": "u", "scope": "openid slea/author"}, False),  # a scope never makes an author
        ({"sub": "u", "scope": "openid slea/author", "cognito:groups": "[authors]"}, True),
        ({"sub": "u", "cognito:groups": "[authors,x]"}, False),
        ({"sub": "u", "cognito:groups": "[authorsx]"}, False),
        ({"sub": "u", "cognito:groups": "[xauthors]"}, False),
        ({"sub": "u", "cognito:groups": "[author]"}, False),
        ({"sub": "u", "scope": "slea/authors"}, False),
        ({"sub": "u", "cognito:groups": "[reviewers]"}, False),
        ({"sub": "u"}, False),
        (None, False),
    ],
)
def test_is_author(claims, author):
    assert is_author(claims) is author


def test_a_caller_is_its_subject_and_roles():
    assert Caller.from_claims({"sub": "u", "cognito:groups": "[authors]"}) == Caller("u", author=True)
    assert Caller.from_claims({"sub": "u", "scope": "slea/review slea/author"}) == Caller("u")
    assert Caller.from_claims({"sub": "u", "cognito:groups": ["reviewers"]}) == Caller("u", reviewer=True)
    assert Caller.from_claims({"cognito:groups": "[authors]"}) is None
    assert Caller.from_claims(None) is None
