"""Ids and random choices a learner cannot compute: HMAC-SHA256 under the deployment's secret.

Anything a learner sees that is derived from an item (a question id, an attempt id, the order of
its choices) must not be a function of public inputs alone: the code is public, so a learner
could recompute it for every candidate answer key and keep the one that matches. Keyed under a
secret only the deployment holds (template.yaml `IdSecret`, Secrets Manager, generated at
deployment), the same inputs still give the same value, so a retried step or call is idempotent,
and without the secret the value tells nothing.

`purpose` separates the uses: a question id and a choice order made from the same parts are
unrelated values.
"""

import hashlib
import hmac
import json
import random
import uuid

from slea.platform.aws import read_secret
from slea.platform.errors import DataAccessError
from slea.platform.settings import resource_name

SECRET_VARIABLE = "ID_SECRET_ARN"  # noqa: S105 - the name of the variable holding its ARN
# The secret is read once per execution environment and hour (Powertools' cache): one
# GetSecretValue per cold start, not per id.
SECRET_MAX_AGE_SECONDS = 3600
_VERSION_8 = 0x8  # RFC 9562 "custom" UUID: the bits are ours, the format is a UUID's
_VARIANT_RFC = 0b10


def _secret() -> bytes:
    """The secret (raises DataAccessError if Secrets Manager fails after its retries: the API
    is unavailable and a caller retries; nothing is made under another key)."""
    # Only the functions that make ids load the parameters utility (slea.platform.aws).
    try:
        return read_secret(resource_name(SECRET_VARIABLE), max_age=SECRET_MAX_AGE_SECONDS).encode()
    except DataAccessError as error:
        raise DataAccessError(f"id secret read failed: {error}") from error


def keyed_digest(purpose: str, *parts: object) -> bytes:
    """HMAC-SHA256 of the purpose and the parts (JSON-encoded, so no two part lists collide)."""
    message = json.dumps([purpose, *parts], ensure_ascii=False, default=str).encode()
    return hmac.new(_secret(), message, hashlib.sha256).digest()


def keyed_uuid(purpose: str, *parts: object) -> str:
    """A keyed id formatted as a UUID (version 8), so it looks like every other id here."""
    value = int.from_bytes(keyed_digest(purpose, *parts)[:16], "big")
    value = (value & ~(0xF << 76)) | (_VERSION_8 << 76)
    value = (value & ~(0x3 << 62)) | (_VARIANT_RFC << 62)
    return str(uuid.UUID(int=value))


def keyed_random(purpose: str, *parts: object) -> random.Random:
    """A random generator seeded with the keyed digest: the same parts replay the same choices
    (a retried step gives the same result), and without the secret they cannot be replayed."""
    return random.Random(int.from_bytes(keyed_digest(purpose, *parts), "big"))  # noqa: S311 - the seed is the secret part
