"""template.yaml's sign-in, both ways: the stack's own Cognito user pool (JwtIssuer empty, the
default) or a given identity provider. The authorizer, the web app's sign-in configuration and
the pool's app client must agree, whichever way the conditions resolve."""

import base64
import copy
import json
import re
import types
import urllib.request

import boto3
import pytest

from slea.security.roles import AUTHOR_GROUP, GROUPS_CLAIM, REVIEWER_GROUP
from slea_local.cloud import REGION, LocalCloud
from slea_local.identity import JwtAuthorizer, LocalUserPool
from slea_local.template import repository_template

TEMPLATE = repository_template()
RESOURCES = TEMPLATE.resources
GIVEN = {
    "JwtIssuer": "https://idp.example.com/tenant",
    "JwtAudience": "client-given",
    "SignInAuthorizeUrl": "https://idp.example.com/authorize",
    "SignInTokenUrl": "https://idp.example.com/token",
}
# Everything the own pool brings, and nothing else, exists only under CreatesUserPool.
POOL_RESOURCES = {
    "UserPool",
    "ReviewersGroup",
    "AuthorsGroup",
    "UserPoolClient",
    "UserPoolDomain",
    "UserPoolClientSignIn",
    "UserPoolClientSignInFunction",
    "UserPoolClientSignInRole",
    "UserPoolClientSignInLogGroup",
}


def _authorizer(cloud):
    (api,) = TEMPLATE.of_type("AWS::Serverless::HttpApi").values()
    auth = api["Properties"]["Auth"]
    return cloud.resolve(auth["Authorizers"][auth["DefaultAuthorizer"]]["JwtConfiguration"])


def _claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_the_pool_is_created_exactly_when_no_issuer_is_given():
    assert TEMPLATE.document["Parameters"]["JwtIssuer"]["Default"] == ""
    assert TEMPLATE.document["Conditions"]["CreatesUserPool"] == {"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}
    conditional = {name for name, spec in RESOURCES.items() if spec.get("Condition") == "CreatesUserPool"}
    assert conditional == POOL_RESOURCES
    outputs = TEMPLATE.document["Outputs"]
    assert {name for name, spec in outputs.items() if spec.get("Condition") == "CreatesUserPool"} == {
        "UserPoolId",
        "UserPoolClientId",
        "SignInDomain",
    }
    # The pool's users outlive the stack: their subjects key every learner's records.
    assert (RESOURCES["UserPool"]["DeletionPolicy"], RESOURCES["UserPool"]["UpdateReplacePolicy"]) == ("Retain",) * 2


def test_own_pool_the_authorizer_the_web_app_and_the_client_agree():
    with LocalCloud() as cloud:
        idp = boto3.client("cognito-idp", region_name=REGION)
        pool_id = cloud.physical_names["UserPool"]
        client_id = cloud.physical_names["UserPoolClient"]
        domain = cloud.physical_names["UserPoolDomain"]
        authorizer = _authorizer(cloud)
        web = cloud.environment_of("WebFunction")
        client = idp.describe_user_pool_client(UserPoolId=pool_id, ClientId=client_id)["UserPoolClient"]
        web_app_url = cloud.resolve(TEMPLATE.document["Outputs"]["WebAppUrl"]["Value"])
        outputs = {
            name: cloud.resolve(TEMPLATE.document["Outputs"][name]["Value"])
            for name in ("UserPoolId", "UserPoolClientId", "SignInDomain")
        }

        assert authorizer == {
            "issuer": f"https://cognito-idp.{REGION}.amazonaws.com/{pool_id}",
            "audience": [client_id],
        }
        assert web["OAUTH_CLIENT_ID"] == client_id
        hosted = f"https://{domain}.auth.{REGION}.amazoncognito.com"
        assert (web["OAUTH_AUTHORIZE_URL"], web["OAUTH_TOKEN_URL"]) == (
            f"{hosted}/oauth2/authorize",
            f"{hosted}/oauth2/token",
        )
        assert (outputs["UserPoolId"], outputs["UserPoolClientId"], outputs["SignInDomain"]) == (
            pool_id,
            client_id,
            hosted,
        )
        # A public client (no secret) for authorization code + PKCE, back to the web app's two pages.
        assert "ClientSecret" not in client
        assert (client["AllowedOAuthFlows"], client["AllowedOAuthFlowsUserPoolClient"]) == (["code"], True)
        assert client["CallbackURLs"] == client["LogoutURLs"] == [web_app_url, f"{web_app_url}review"]
        assert set(web["OAUTH_SCOPE"].split()) <= set(client["AllowedOAuthScopes"]) == {"openid", "email", "profile"}
        # Token lifetimes are Cognito's defaults: nothing set on the client.
        assert not {"AccessTokenValidity", "IdTokenValidity", "RefreshTokenValidity", "TokenValidityUnits"} & set(
            RESOURCES["UserPoolClient"]["Properties"]
        )

        # A token the pool issues to this client carries what the authorizer checks, and the
        # user's groups in the claim the roles are read from.
        idp.admin_create_user(UserPoolId=pool_id, Username="carol@example.com", MessageAction="SUPPRESS")
        idp.admin_set_user_password(
            UserPoolId=pool_id, Username="carol@example.com", Password="Aa1!aaaa", Permanent=True
        )
        idp.admin_add_user_to_group(UserPoolId=pool_id, Username="carol@example.com", GroupName=REVIEWER_GROUP)
        tokens = idp.admin_initiate_auth(
            UserPoolId=pool_id,
            ClientId=client_id,
            AuthFlow="ADMIN_NO_SRP_AUTH",
            AuthParameters={"USERNAME": "carol@example.com", "PASSWORD": "Aa1!aaaa"},
        )["AuthenticationResult"]
        access, identity = _claims(tokens["AccessToken"]), _claims(tokens["IdToken"])
        assert access["iss"] == identity["iss"] == authorizer["issuer"]
        assert [access["client_id"]] == [identity["aud"]] == authorizer["audience"]
        assert access[GROUPS_CLAIM] == [REVIEWER_GROUP]


def test_a_given_issuer_keeps_its_own_settings_and_no_pool_is_created():
    with LocalCloud(parameters=GIVEN) as cloud:
        assert _authorizer(cloud) == {"issuer": GIVEN["JwtIssuer"], "audience": [GIVEN["JwtAudience"]]}
        web = cloud.environment_of("WebFunction")
        assert (web["OAUTH_CLIENT_ID"], web["OAUTH_AUTHORIZE_URL"], web["OAUTH_TOKEN_URL"]) == (
            GIVEN["JwtAudience"],
            GIVEN["SignInAuthorizeUrl"],
            GIVEN["SignInTokenUrl"],
        )
        assert boto3.client("cognito-idp", region_name=REGION).list_user_pools(MaxResults=10)["UserPools"] == []
        for resource_type in {spec["Type"] for name, spec in RESOURCES.items() if name in POOL_RESOURCES}:
            assert not set(cloud.present(resource_type)) & POOL_RESOURCES
        # Signed tokens locally check against the stack's own pool: a given issuer's keys are not
        # reachable offline, and saying so beats accepting tokens unchecked.
        with pytest.raises(ValueError, match="signed tokens need the stack's own user pool"):
            JwtAuthorizer.of_stack(cloud)
        with pytest.raises(ValueError, match="no user pool of its own"):
            LocalUserPool(cloud)


def test_the_pool_invites_people_keeps_cognitos_password_policy_and_signs_in_by_e_mail():
    properties = RESOURCES["UserPool"]["Properties"]
    assert properties["Policies"] == {
        "PasswordPolicy": {
            "MinimumLength": 8,
            "RequireLowercase": True,
            "RequireUppercase": True,
            "RequireNumbers": True,
            "RequireSymbols": True,
            "TemporaryPasswordValidityDays": 7,
        }
    }
    assert properties["UsernameAttributes"] == ["email"]
    assert properties["MfaConfiguration"] == "OFF"
    assert TEMPLATE.document["Parameters"]["SelfSignUp"]["Default"] == "false"
    with LocalCloud() as cloud:  # the default: only an operator creates users
        pool = boto3.client("cognito-idp", region_name=REGION).describe_user_pool(
            UserPoolId=cloud.physical_names["UserPool"]
        )["UserPool"]
        assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True
        groups = boto3.client("cognito-idp", region_name=REGION).list_groups(UserPoolId=pool["Id"])["Groups"]
        assert {group["GroupName"] for group in groups} == {REVIEWER_GROUP, AUTHOR_GROUP}
    with LocalCloud(parameters={"SelfSignUp": "true"}) as cloud:
        assert cloud.resolve(properties["AdminCreateUserConfig"]) == {"AllowAdminCreateUserOnly": False}


def test_the_sign_in_domain_prefix_is_derived_lower_case_or_given():
    domain = RESOURCES["UserPoolDomain"]["Properties"]["Domain"]
    with LocalCloud() as cloud:
        derived = cloud.resolve(domain)
        assert derived == f"slea-{cloud.resolve({'Ref': 'AWS::AccountId'})}-0b5e1d2c"
        assert derived == derived.lower()
        assert len(derived) <= 63
    with LocalCloud(parameters={"SignInDomainPrefix": "my-class"}) as cloud:
        assert cloud.resolve(domain) == "my-class"


def test_the_sign_in_settings_restate_every_setting_of_the_client():
    """CloudFormation's update of the client resets what it does not declare (the OAuth settings
    applied by the custom resource); restating the client's settings there makes any change to
    the client a change to the custom resource too, which then applies them all again."""
    client = dict(RESOURCES["UserPoolClient"]["Properties"])
    sign_in = RESOURCES["UserPoolClientSignIn"]["Properties"]
    assert (sign_in["UserPoolId"], sign_in["ClientId"]) == ({"Ref": "UserPool"}, {"Ref": "UserPoolClient"})
    assert client.pop("UserPoolId") == {"Ref": "UserPool"}
    assert client.pop("GenerateSecret") is False
    assert {name: sign_in["ClientSettings"][name] for name in client} == client
    assert sign_in["ServiceToken"] == {"Fn::GetAtt": ["UserPoolClientSignInFunction", "Arn"]}


def test_the_sign_in_function_may_update_only_the_pools_clients_and_write_its_log():
    (policy,) = RESOURCES["UserPoolClientSignInRole"]["Properties"]["Policies"]
    statements = policy["PolicyDocument"]["Statement"]
    assert statements == [
        {
            "Effect": "Allow",
            "Action": "cognito-idp:UpdateUserPoolClient",
            "Resource": {"Fn::GetAtt": ["UserPool", "Arn"]},
        },
        {
            "Effect": "Allow",
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": {"Fn::GetAtt": ["UserPoolClientSignInLogGroup", "Arn"]},
        },
    ]
    function = RESOURCES["UserPoolClientSignInFunction"]["Properties"]
    assert function["LoggingConfig"] == {"LogGroup": {"Ref": "UserPoolClientSignInLogGroup"}}
    assert function["Runtime"] == TEMPLATE.function_globals["Runtime"]
    assert len(function["Code"]["ZipFile"]) < 4096  # CloudFormation's limit for inline code


# ---------------------------------------------------------------- the custom resource's code
def _sign_in_module():
    module = types.ModuleType("user_pool_client_sign_in")
    code = RESOURCES["UserPoolClientSignInFunction"]["Properties"]["Code"]["ZipFile"]
    exec(compile(code, "UserPoolClientSignInFunction", "exec"), module.__dict__)
    return module


@pytest.fixture
def sign_in(monkeypatch):
    """The function's handler against a moto pool, with what it answers CloudFormation recorded."""
    answers = []

    class _Answered:
        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            return False

    def urlopen(request, timeout):
        assert (request.get_method(), request.full_url) == ("PUT", "https://cloudformation.example/answer")
        answers.append(json.loads(request.data))
        return _Answered()

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    with LocalCloud(parameters=GIVEN):  # moto, no pool of the template's
        idp = boto3.client("cognito-idp", region_name=REGION)
        pool_id = idp.create_user_pool(PoolName="p")["UserPool"]["Id"]
        client_id = idp.create_user_pool_client(UserPoolId=pool_id, ClientName="web")["UserPoolClient"]["ClientId"]
        yield types.SimpleNamespace(
            module=_sign_in_module(), idp=idp, pool_id=pool_id, client_id=client_id, answers=answers
        )


def _event(sign_in, request_type, **settings):
    # CloudFormation hands a custom resource every scalar as a string.
    return {
        "RequestType": request_type,
        "ResponseURL": "https://cloudformation.example/answer",
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/s/1",
        "RequestId": "r1",
        "LogicalResourceId": "UserPoolClientSignIn",
        "ResourceProperties": {
            "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:f",
            "UserPoolId": sign_in.pool_id,
            "ClientId": sign_in.client_id,
            "ClientSettings": settings,
        },
    }


def test_the_custom_resource_applies_the_sign_in_settings_and_answers_cloudformation(sign_in):
    settings = {
        "ClientName": "web",
        "AllowedOAuthFlowsUserPoolClient": "true",
        "AllowedOAuthFlows": ["code"],
        "AllowedOAuthScopes": ["openid", "email", "profile"],
        "CallbackURLs": ["https://api.example/", "https://api.example/review"],
        "EnableTokenRevocation": "true",
    }
    sign_in.module.handler(_event(sign_in, "Create", **settings), None)
    client = sign_in.idp.describe_user_pool_client(UserPoolId=sign_in.pool_id, ClientId=sign_in.client_id)[
        "UserPoolClient"
    ]
    assert client["AllowedOAuthFlowsUserPoolClient"] is True
    assert client["EnableTokenRevocation"] is True
    assert client["CallbackURLs"] == settings["CallbackURLs"]
    assert client["AllowedOAuthFlows"] == ["code"]
    # An update after the client was replaced records the new client.
    replaced = {**_event(sign_in, "Update", **{**settings, "CallbackURLs": ["https://other.example/"]})}
    sign_in.module.handler({**replaced, "PhysicalResourceId": "the-replaced-client"}, None)
    client = sign_in.idp.describe_user_pool_client(UserPoolId=sign_in.pool_id, ClientId=sign_in.client_id)[
        "UserPoolClient"
    ]
    assert client["CallbackURLs"] == ["https://other.example/"]
    created, updated = sign_in.answers
    assert (created["Status"], created["PhysicalResourceId"], created["RequestId"]) == (
        "SUCCESS",
        sign_in.client_id,
        "r1",
    )
    assert (updated["Status"], updated["PhysicalResourceId"]) == ("SUCCESS", sign_in.client_id)


def test_the_custom_resource_does_nothing_on_delete_and_reports_a_failure(sign_in):
    sign_in.module.handler({**_event(sign_in, "Delete"), "PhysicalResourceId": "the-id-it-was-given"}, None)
    failing = _event(sign_in, "Update", ClientName="web")
    failing["ResourceProperties"]["ClientId"] = "no-such-client"
    sign_in.module.handler(failing, None)
    deleted, failed = sign_in.answers
    assert (deleted["Status"], deleted["PhysicalResourceId"]) == ("SUCCESS", "the-id-it-was-given")
    assert failed["Status"] == "FAILED"
    assert "ResourceNotFound" in failed["Reason"]


def test_the_template_never_advises_a_scope_for_a_role():
    text = json.dumps(TEMPLATE.document["Parameters"])
    assert "slea/review" not in text
    assert "slea/author" not in text
    assert "never come from a scope" in TEMPLATE.document["Parameters"]["SignInScope"]["Description"]


# ---------------------------------------------------------------- no circular dependency
def _referenced(value, names):
    found = set()
    if isinstance(value, dict):
        for function, argument in value.items():
            if function == "Ref" and argument in names:
                found.add(argument)
            elif function == "Fn::GetAtt":
                found.add(argument[0])
            elif function == "Fn::Sub":
                text = argument if isinstance(argument, str) else argument[0]
                found |= {name.split(".")[0] for name in re.findall(r"\$\{([^}!]+)\}", text)} & names
            found |= _referenced(argument, names)
    elif isinstance(value, list):
        for item in value:
            found |= _referenced(item, names)
    return found & names


def _waiting(document):
    """The resources CloudFormation could never create (each waits on another of them), with
    SAM's own direction for an HttpApi event: the route and its function go into the API's
    definition, so the API waits on the function, not the function on the API."""
    resources = document["Resources"]
    names = set(resources)
    waits = {}
    for name, spec in resources.items():
        depends_on = spec.get("DependsOn", [])
        waits[name] = _referenced(spec.get("Properties", {}), names) | set(
            [depends_on] if isinstance(depends_on, str) else depends_on
        )
    for name, spec in resources.items():
        for event in spec.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "HttpApi":
                api = event["Properties"]["ApiId"]["Ref"]
                waits[name].discard(api)
                waits[api].add(name)
    while True:
        ready = {name for name, on in waits.items() if not on & set(waits)}
        if not ready:
            return set(waits)
        waits = {name: on for name, on in waits.items() if name not in ready}


def test_nothing_waits_on_itself_and_a_client_naming_the_api_would():
    """`sam validate --lint` passes either way: the cycle shows only once SAM has put the
    authorizer (issuer and audience) into the API's definition."""
    assert _waiting(TEMPLATE.document) == set()
    naive = copy.deepcopy(TEMPLATE.document)
    naive["Resources"]["UserPoolClient"]["Properties"]["CallbackURLs"] = [
        {"Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/"}
    ]
    assert {"HttpApi", "UserPoolClient"} <= _waiting(naive)
