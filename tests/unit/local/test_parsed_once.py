"""What the local cloud parses once per process instead of at every start: state-machine
definitions (moto's ASL parser) and botocore's data (one loader for every session). Neither may
change what a caller sees: a refused definition is refused every time, and outside a local cloud
botocore makes its loaders as it always does."""

import json
from unittest import mock

import boto3
import botocore.loaders
import botocore.session
import pytest
from botocore.exceptions import ClientError
from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser

from slea_local.cloud import REGION, LocalCloud
from slea_local.runtime import LocalRuntime, StreamPoller

pytestmark = pytest.mark.aws  # builds local clouds

ROLE = "arn:aws:iam::123456789012:role/local"
PASS = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
BROKEN = json.dumps({"StartAt": "Missing", "States": {"Done": {"Type": "Nonsense", "End": True}}})


def test_a_definition_is_parsed_once_and_a_broken_one_is_refused_every_time():
    with mock.patch.object(AmazonStateLanguageParser, "parse", wraps=AmazonStateLanguageParser.parse) as parse:
        for _ in range(2):
            with LocalCloud():
                client = boto3.client("stepfunctions", region_name=REGION)
                client.create_state_machine(name="first", definition=PASS, roleArn=ROLE)
                client.create_state_machine(name="second", definition=PASS, roleArn=ROLE)
                with pytest.raises(ClientError, match="ASLParserException"):
                    client.create_state_machine(name="broken", definition=BROKEN, roleArn=ROLE)
        parsed = [call.args[0] for call in parse.call_args_list]
    assert parsed.count(PASS) <= 1  # parsed at most once (the template's own may share the cache)
    assert parsed.count(BROKEN) == 2  # once per attempt: a refusal is never remembered


def test_sessions_made_in_a_local_cloud_share_one_loader_and_none_outside():
    with LocalCloud():
        first, second = botocore.session.Session(), botocore.session.Session()
        assert first.get_component("data_loader") is second.get_component("data_loader")
    outside = botocore.session.Session()
    assert outside.get_component("data_loader") is not first.get_component("data_loader")
    assert isinstance(outside.get_component("data_loader"), botocore.loaders.Loader)


def _described(cloud):
    client = boto3.client("dynamodb", region_name=REGION)
    described = {}
    for logical_id in cloud.template.of_type("AWS::DynamoDB::Table"):
        table = client.describe_table(TableName=cloud.table_name(logical_id))["Table"]
        backups = client.describe_continuous_backups(TableName=cloud.table_name(logical_id))
        recovery = backups["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        described[logical_id] = (
            {key: value for key, value in table.items() if key != "CreationDateTime"},
            recovery["PointInTimeRecoveryStatus"],
        )
    return described


def test_every_local_cloud_has_the_templates_tables_empty_whatever_the_one_before_wrote():
    """The first cloud of a process creates the tables through the API; later ones get copies of
    them as created: the same description (keys, indexes, streams, point-in-time recovery),
    empty, and their own (what one cloud writes, the next does not see)."""
    with LocalCloud() as first:
        created = _described(first)
        table = first.table_name("ProfilesTable")
        item = {"user_id": {"S": "u1"}, "submitted_at": {"S": "2026-01-01T00:00:00Z"}}
        boto3.client("dynamodb", region_name=REGION).put_item(TableName=table, Item=item)
    for _ in range(2):
        with LocalCloud() as cloud:
            assert _described(cloud) == created
            client = boto3.client("dynamodb", region_name=REGION)
            assert client.scan(TableName=cloud.table_name("ProfilesTable"))["Items"] == []
            client.put_item(TableName=cloud.table_name("ProfilesTable"), Item=item)
            assert cloud.stream_arns
            for logical_id in cloud.stream_arns:  # each stream of the template carries its table's writes
                _write_one_item(client, cloud.table_name(logical_id))
                (record,) = StreamPoller(LocalRuntime(cloud), logical_id).take()
                assert record["eventName"] == "INSERT"


def _write_one_item(client, table):
    """An item with only the table's key, each key attribute a value of its declared type."""
    description = client.describe_table(TableName=table)["Table"]
    types = {
        attribute["AttributeName"]: attribute["AttributeType"] for attribute in description["AttributeDefinitions"]
    }
    values = {"S": "k", "N": "1", "B": b"k"}
    key = {
        element["AttributeName"]: {types[element["AttributeName"]]: values[types[element["AttributeName"]]]}
        for element in description["KeySchema"]
    }
    client.put_item(TableName=table, Item=key)
