"""A conditional write says whether it was applied; only a failed condition is an answer."""

import pytest
from botocore.exceptions import ClientError

from slea.dal.conditional import applied


def _refusing(code: str):
    def write(**request):
        raise ClientError({"Error": {"Code": code, "Message": "refused"}}, "UpdateItem")

    return write


def test_a_write_that_went_through_is_applied_with_the_request_it_was_given():
    seen = []
    assert applied(lambda **request: seen.append(request), TableName="t", Key={"k": {"S": "1"}}) is True
    assert seen == [{"TableName": "t", "Key": {"k": {"S": "1"}}}]


def test_a_failed_condition_is_not_applied():
    assert applied(_refusing("ConditionalCheckFailedException")) is False


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ValidationException"])
def test_any_other_refusal_is_raised(code):
    with pytest.raises(ClientError, match=code):
        applied(_refusing(code))


def test_a_transaction_is_not_applied_when_cancelled_and_a_failed_condition_alone_is_raised_then():
    cancelled = _refusing("TransactionCanceledException")
    assert applied(cancelled, refusal="TransactionCanceledException") is False
    with pytest.raises(ClientError, match="ConditionalCheckFailed"):
        applied(_refusing("ConditionalCheckFailedException"), refusal="TransactionCanceledException")
