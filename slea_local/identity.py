"""Signed tokens locally: the stack's own user pool (moto's Cognito identity provider, which signs
its ID and access tokens with RS256 and publishes the key at the issuer's JWKS address) and the
check API Gateway's JWT authorizer makes of every request before a function runs.

`JwtAuthorizer` is that check, configured from template.yaml's HttpApi authorizer as resolved for
the local stack (issuer and audience): the token's key id names a key of the issuer's JWKS
(found through its OpenID discovery document, as API Gateway finds it), the signature is RS256 by
that key, `iss` is the issuer, `aud` (an ID token) or else `client_id` (an access token) is one of
the audience, `exp` is later than now, `nbf` and `iat` (when present) not later. Anything else is
refused, and the caller answers 401.

`LocalUserPool` creates users in the local pool, puts them in groups and signs them in (the
admin password flow), giving the tokens the web app would hold after the hosted sign-in."""

import base64
import json
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import boto3
from joserfc import jwk, jwt
from joserfc.errors import JoseError

from slea_local.cloud import ACCOUNT, REGION, LocalCloud

# The one algorithm Cognito signs with and API Gateway's JWT authorizer accepts from it.
ALGORITHM = "RS256"


def authorizer_configuration(cloud: LocalCloud) -> dict[str, Any]:
    """The HttpApi's JWT authorizer as the stack resolves it: {"issuer": ..., "audience": [...]}."""
    (api,) = cloud.template.of_type("AWS::Serverless::HttpApi").values()
    auth = api["Properties"]["Auth"]
    authorizer = auth["Authorizers"][auth["DefaultAuthorizer"]]
    configuration: dict[str, Any] = cloud.resolve(authorizer["JwtConfiguration"])
    return configuration


def _bearer(authorization: str) -> str | None:
    """The token of an Authorization header: API Gateway takes it with or without "Bearer "."""
    value = authorization.strip()
    scheme, _, rest = value.partition(" ")
    if scheme.lower() == "bearer":
        value = rest.strip()
    return value or None


class JwtAuthorizer:
    """API Gateway's JWT authorizer (HTTP API) for one issuer, its keys and an audience."""

    def __init__(self, issuer: str, audience: Iterable[str], keys: jwk.KeySet, clock: Any = time.time) -> None:
        self.issuer, self.audience, self.keys, self.clock = issuer, frozenset(audience), keys, clock
        self.key_ids = frozenset(key.kid for key in keys.keys if key.kid)

    @classmethod
    def of_stack(cls, cloud: LocalCloud) -> "JwtAuthorizer":
        """The stack's authorizer, with the keys its issuer publishes (the local user pool's).
        Only a stack with a user pool of its own has an issuer here to ask."""
        configuration = authorizer_configuration(cloud)
        if not cloud.present("AWS::Cognito::UserPool"):
            raise ValueError(
                f"signed tokens need the stack's own user pool; this stack trusts {configuration['issuer']!r},"
                " whose keys are not reachable offline"
            )
        import requests  # moto answers it in process, as Cognito would

        discovery = requests.get(f"{configuration['issuer']}/.well-known/openid-configuration", timeout=10).json()
        key_set = requests.get(discovery["jwks_uri"], timeout=10).json()
        return cls(configuration["issuer"], configuration["audience"], jwk.KeySet.import_key_set(key_set))

    def claims(self, authorization: str) -> dict[str, Any] | None:
        """The verified token's claims, or None: API Gateway answers 401 and no function runs."""
        token = _bearer(authorization)
        if token is None or token.count(".") != 2:
            return None
        try:
            decoded = jwt.decode(token, self.keys, algorithms=[ALGORITHM])
        except (JoseError, ValueError, TypeError, KeyError):  # bad encoding, signature, key or algorithm
            return None
        if decoded.header.get("alg") != ALGORITHM or decoded.header.get("kid") not in self.key_ids:
            return None
        claims = dict(decoded.claims)
        return claims if self._valid(claims) else None

    def _valid(self, claims: Mapping[str, Any]) -> bool:
        now = self.clock()
        if claims.get("iss") != self.issuer:
            return False
        audience = claims["aud"] if "aud" in claims else claims.get("client_id")  # aud wins when both
        audiences = audience if isinstance(audience, list) else [audience]
        if not any(isinstance(item, str) and item in self.audience for item in audiences):
            return False
        expires = claims.get("exp")
        if not _number(expires) or expires <= now:
            return False
        for name in ("nbf", "iat"):
            if name in claims and (not _number(claims[name]) or claims[name] > now):
                return False
        # The functions act for the subject: a token without one reaches none of them.
        subject = claims.get("sub")
        return isinstance(subject, str) and bool(subject.strip())


def unverified_claims(token: str) -> dict[str, Any]:
    """A token's claims as they stand (a token this process was just given; never to authorise)."""
    payload = token.split(".")[1]
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return claims


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class PoolTokens:
    """What a sign-in gives: the ID token (the web app sends it), the access token, the subject."""

    id_token: str
    access_token: str
    subject: str
    username: str


def password() -> str:
    """A password the pool's policy accepts (lower, upper, digit, symbol, 8 or more)."""
    return f"Aa1!{secrets.token_urlsafe(18)}"


class LocalUserPool:
    """The stack's own user pool in the local cloud: the pool and the client the authorizer trusts."""

    def __init__(self, cloud: LocalCloud) -> None:
        configuration = authorizer_configuration(cloud)
        if not cloud.present("AWS::Cognito::UserPool"):
            raise ValueError("this stack trusts a given JwtIssuer and has no user pool of its own")
        self.cloud = cloud
        self.issuer: str = configuration["issuer"]
        self.pool_id = self.issuer.rsplit("/", 1)[-1]
        self.client_id: str = configuration["audience"][0]
        self.cognito: Any = boto3.client("cognito-idp", region_name=REGION)
        self._stand_in = False  # the user whose tokens token_for signs, once created

    def create_user(self, email: str, groups: Iterable[str] = (), secret: str | None = None) -> str:
        """A confirmed user with a permanent password (returned) in `groups`."""
        secret = secret or password()
        self.cognito.admin_create_user(
            UserPoolId=self.pool_id,
            Username=email,
            MessageAction="SUPPRESS",
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
        )
        self.cognito.admin_set_user_password(UserPoolId=self.pool_id, Username=email, Password=secret, Permanent=True)
        for group in groups:
            self.cognito.admin_add_user_to_group(UserPoolId=self.pool_id, Username=email, GroupName=group)
        return secret

    def sign_in(self, email: str, secret: str, client_id: str | None = None) -> PoolTokens:
        result = self.cognito.admin_initiate_auth(
            UserPoolId=self.pool_id,
            ClientId=client_id or self.client_id,
            AuthFlow="ADMIN_USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": email, "PASSWORD": secret},
        )["AuthenticationResult"]
        return PoolTokens(result["IdToken"], result["AccessToken"], unverified_claims(result["IdToken"])["sub"], email)

    def user(self, groups: Iterable[str] = (), email: str | None = None) -> PoolTokens:
        """A new user of the pool in `groups`, signed in through the web app's client."""
        email = email or f"user-{uuid.uuid4().hex[:12]}@example.com"
        return self.sign_in(email, self.create_user(email, groups))

    def token_for(self, claims: Mapping[str, Any], use: str = "id") -> str:
        """A token the pool signs (its key, issuer, audience, an hour's expiry) carrying `claims`
        too, e.g. a test's own subject and groups: for tests written with subjects of their own."""
        stand_in = "stand-in@example.com"
        if not self._stand_in:
            self.create_user(stand_in)
            self._stand_in = True
        return self._sign(stand_in, use, 3600, claims)  # claims may name a `username` too

    def signed(self, username: str, use: str = "access", expires_in: int = 3600, **claims: Any) -> str:
        """A token the pool itself signs for `username` (with its key and issuer), with `claims`
        added or changed: what a pool would issue, e.g. an expired one or one with other scopes."""
        return self._sign(username, use, expires_in, claims)

    def _sign(self, username: str, use: str, expires_in: int, claims: Mapping[str, Any]) -> str:
        from moto.cognitoidp.models import cognitoidp_backends

        pool = cognitoidp_backends[ACCOUNT][REGION].user_pools[self.pool_id]
        token, _ = pool.create_jwt(self.client_id, username, use, expires_in=expires_in, extra_data=dict(claims))
        return str(token)
