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
