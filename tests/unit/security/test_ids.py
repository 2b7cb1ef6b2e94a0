"""slea/security/ids.py: keyed ids and seeds under the deployment's secret (template.yaml
IdSecret, created in moto from the template)."""

import uuid

import boto3
import pytest
from aws_lambda_powertools.utilities import parameters

from slea.platform.errors import DataAccessError
from slea.security import ids


@pytest.fixture
def with_secret(cloud):
    """A function's environment (ID_SECRET_ARN) and a cold parameter cache, before and after."""
    parameters.clear_caches()
    with cloud.environment(cloud.environment_of("SaveGeneratedQuestionFunction")):
        yield cloud.physical_names["IdSecret"]
    parameters.clear_caches()


def test_the_template_gives_every_function_that_makes_ids_the_secret(cloud):
    arn = cloud.physical_names["IdSecret"]
    assert arn.startswith("arn:aws:secretsmanager:")
    value = boto3.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
    assert len(value) == 64
    assert value.isalnum()
    makers = ["SaveGeneratedQuestionFunction", "GenerateQuestionsFunction", "ScoreAndExplainFunction", "ApiFunction"]
    for function in [*makers, "McpFunction"]:
        assert cloud.environment_of(function)[ids.SECRET_VARIABLE] == arn
    assert ids.SECRET_VARIABLE not in cloud.environment_of("SaveRetryWorkerFunction")  # saves under a carried id


def test_a_keyed_id_is_a_stable_version_8_uuid(with_secret):
    made = ids.keyed_uuid("question", "round", "multiple_choice", "stem", "C")
    parsed = uuid.UUID(made)
    assert str(parsed) == made
    assert (parsed.version, parsed.variant) == (8, uuid.RFC_4122)
    assert ids.keyed_uuid("question", "round", "multiple_choice", "stem", "C") == made


def test_every_part_and_the_purpose_change_the_id(with_secret):
    made = ids.keyed_uuid("question", "round", "stem", "C")
    assert ids.keyed_uuid("question", "round", "stem", "B") != made
    assert ids.keyed_uuid("attempt", "round", "stem", "C") != made
    assert ids.keyed_uuid("question", "round", "stemC") != made  # parts are not concatenated


def test_another_secret_gives_other_ids_and_other_draws(with_secret):
    made = ids.keyed_uuid("question", "x")
    draws = [ids.keyed_random("choice-order", "x").random() for _ in range(2)]
    assert draws[0] == draws[1]  # the same parts replay the same draws
    boto3.client("secretsmanager").put_secret_value(SecretId=with_secret, SecretString="another-secret-value")
    assert ids.keyed_uuid("question", "x") == made  # cached for the execution environment's hour
    parameters.clear_caches()  # the next cold start
    assert ids.keyed_uuid("question", "x") != made
    assert ids.keyed_random("choice-order", "x").random() != draws[0]


def test_without_the_variable_the_function_fails_loudly(cloud, monkeypatch):
    parameters.clear_caches()
    monkeypatch.delenv(ids.SECRET_VARIABLE, raising=False)
    with pytest.raises(RuntimeError, match=ids.SECRET_VARIABLE):
        ids.keyed_uuid("question", "x")


def test_an_unreadable_secret_is_a_data_access_error(with_secret):
    boto3.client("secretsmanager").delete_secret(SecretId=with_secret, ForceDeleteWithoutRecovery=True)
    with pytest.raises(DataAccessError, match="id secret"):
        ids.keyed_uuid("question", "x")
