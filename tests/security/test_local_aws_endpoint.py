"""The local server's /_local/ paths (the local user pool for operator commands in another
process): Cognito's wire protocol, limited to user management, never a way to change the pool."""

import json
import urllib.error
import urllib.request
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from slea_local.http import serve_in_background
from slea_local.identity import LocalUserPool


def post(url: str, target: str, body: Any, content_type: str = "application/x-amz-json-1.1") -> tuple[int, Any]:
    request = urllib.request.Request(f"{url}/_local/cognito-idp", data=json.dumps(body).encode(), method="POST")
    request.add_header("content-type", content_type)
    request.add_header("x-amz-target", f"AWSCognitoIdentityProviderService.{target}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def local_client(url: str) -> Any:
    return boto3.client(
        "cognito-idp",
        endpoint_url=f"{url}/_local/cognito-idp",
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


def test_stack_outputs_name_the_local_pool(step_functions: Any) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime) as url, urllib.request.urlopen(f"{url}/_local/stack") as response:
        outputs = json.loads(response.read())
    assert outputs == {"HttpApiUrl": url, "UserPoolId": pool.pool_id, "UserPoolClientId": pool.client_id}


def test_a_boto3_client_manages_users_of_the_local_pool(step_functions: Any) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime) as url:
        client = local_client(url)
        client.admin_create_user(
            UserPoolId=pool.pool_id,
            Username="ann@example.com",
            MessageAction="SUPPRESS",
            UserAttributes=[{"Name": "email", "Value": "ann@example.com"}],
        )
        client.admin_add_user_to_group(UserPoolId=pool.pool_id, Username="ann@example.com", GroupName="reviewers")
        groups = client.admin_list_groups_for_user(UserPoolId=pool.pool_id, Username="ann@example.com")["Groups"]
        listed = client.list_users(UserPoolId=pool.pool_id)["Users"]
        with pytest.raises(ClientError) as missing:
            client.admin_get_user(UserPoolId=pool.pool_id, Username="nobody@example.com")
    assert [group["GroupName"] for group in groups] == ["reviewers"]
    emails = [attribute["Value"] for user in listed for attribute in user["Attributes"] if attribute["Name"] == "email"]
    assert "ann@example.com" in emails
    assert listed[0]["UserCreateDate"].year >= 2024  # timestamps arrive as the service sends them
    assert missing.value.response["Error"]["Code"] == "UserNotFoundException"
    # The same pool as the stack's: the in-process client sees the user too.
    assert pool.cognito.admin_get_user(UserPoolId=pool.pool_id, Username="ann@example.com")["Username"]


@pytest.mark.parametrize(
    "target",
    ["CreateUserPoolClient", "UpdateUserPoolClient", "DeleteUserPool", "UpdateUserPool", "AddCustomAttributes"],
)
def test_operations_that_change_the_pool_or_its_clients_are_not_served(step_functions: Any, target: str) -> None:
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime) as url:
        status, body = post(url, target, {"UserPoolId": pool.pool_id, "ClientName": "x"})
    assert (status, body["__type"]) == (400, "UnknownOperationException")
    assert len(pool.cognito.list_user_pool_clients(UserPoolId=pool.pool_id, MaxResults=60)["UserPoolClients"]) == 1


def test_a_browser_simple_request_is_refused(step_functions: Any) -> None:
    """text/plain is what a web page may send without asking first: refused, nothing created."""
    pool = LocalUserPool(step_functions.runtime.cloud)
    with serve_in_background(step_functions.runtime) as url:
        status, body = post(
            url, "AdminCreateUser", {"UserPoolId": pool.pool_id, "Username": "eve@example.com"}, "text/plain"
        )
    assert (status, body["__type"]) == (415, "UnsupportedMediaType")
    assert not [user for user in pool.cognito.list_users(UserPoolId=pool.pool_id)["Users"] if "eve" in user["Username"]]


def test_bad_bodies_are_refused_plainly(step_functions: Any) -> None:
    with serve_in_background(step_functions.runtime) as url:
        assert post(url, "ListUsers", ["not", "an", "object"])[1]["__type"] == "SerializationException"
        status, body = post(url, "ListUsers", {"Nope": 1})
    assert (status, body["__type"]) == (400, "InvalidParameterException")
