"""ops.seed: validated, all-or-nothing, idempotent loading; the CLI; the demo dataset's content."""

import json
import re

import boto3
import pytest

from ops.seed import load_seed, main


def count(cloud, table):
    return boto3.client("dynamodb").scan(TableName=cloud.table_name(table), Select="COUNT")["Count"]


def test_demo_seed_loads_every_section(cloud, load, demo_seed):
    assert load(demo_seed) == {"profiles": 8, "templates": len(demo_seed["templates"]), "keywords": 30}
    assert count(cloud, "TemplatesTable") == len(demo_seed["templates"])


def test_loading_twice_overwrites_rather_than_duplicates(cloud, load, demo_seed):
    load(demo_seed)
    load(demo_seed)
    assert count(cloud, "ProfilesTable") == 8
    assert count(cloud, "KeywordsTable") == 30


def test_invalid_document_names_the_field_and_writes_nothing(cloud, load, demo_seed):
    broken = json.loads(json.dumps(demo_seed))
    broken["templates"][3]["type"] = "essay"
    with pytest.raises(ValueError, match=r"templates\[3\]\.type"):
        load(broken)
    assert count(cloud, "ProfilesTable") == count(cloud, "TemplatesTable") == 0


def test_only_active_used_templates_enter_the_search_index(cloud, load, demo_seed):
    load(demo_seed)
    indexed = boto3.client("dynamodb").scan(TableName=cloud.table_name("TemplatesTable"), IndexName="template-search")
    expected = [t for t in demo_seed["templates"] if t["is_active"] and t["usage_count"] > 0]
    assert indexed["Count"] == len(expected) < len(demo_seed["templates"])


def test_cli_loads_a_file_using_the_functions_table_variables(cloud, demo_seed, tmp_path, capsys):
    path = tmp_path / "seed.json"
    path.write_text(json.dumps({"keywords": demo_seed["keywords"][:3]}), encoding="utf-8")
    with cloud.environment(cloud.seed_environment()):
        assert main([str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == {"profiles": 0, "templates": 0, "keywords": 3}


def test_missing_table_variable_fails_loudly(cloud, demo_seed, monkeypatch):
    monkeypatch.delenv("PROFILES_TABLE", raising=False)
    with pytest.raises(RuntimeError, match="PROFILES_TABLE"):
        load_seed({"profiles": demo_seed["profiles"]})


# ---------------------------------------------------------------- the demo dataset's content
def test_demo_dataset_is_rich_enough_for_the_offline_generator(demo_seed):
    templates = demo_seed["templates"]
    assert len(templates) >= 60
    assert len({t["domain"] for t in templates}) >= 8
    hangul = re.compile("[\uac00-\ud7a3]")
    korean = sum(bool(hangul.search(t["stem"])) for t in templates)
    assert 0.3 < korean / len(templates) < 0.7
    pairs = {(k["difficulty"], k["category"]) for k in demo_seed["keywords"]}
    assert pairs == {(d, c) for d in range(1, 11) for c in ("technical", "business", "general")}
    for record in demo_seed["keywords"]:
        names = [concept["name"] for concept in record["concepts"]]
        assert len(names) >= 4, "distractors come from sibling concepts"
        assert len(set(names)) == len(names)
        for concept in record["concepts"]:
            assert concept["name"].lower() not in concept["definition"].lower()
            assert 3 <= len(concept["key_points"]) <= 5
    interests = {interest for profile in demo_seed["profiles"] for interest in profile["interests"]}
    assert interests <= {t["domain"] for t in templates}


@pytest.mark.parametrize("turn", [1, 2, 3])
def test_every_seeded_test_starts_from_the_demo_seed_whatever_the_one_before_wrote(cloud, seeded, demo_seed, turn):
    """The `seeded` fixture loads the seed once per process and copies it into later tests'
    tables: each copy is the seed as loaded, not what an earlier test left in it."""
    client = boto3.client("dynamodb")
    assert count(cloud, "ProfilesTable") == 8
    assert count(cloud, "TemplatesTable") == len(demo_seed["templates"])
    assert count(cloud, "KeywordsTable") == 30
    first = demo_seed["profiles"][0]["user_id"]
    stored = client.scan(TableName=cloud.table_name("ProfilesTable"))["Items"]
    assert {item["user_id"]["S"] for item in stored} == {profile["user_id"] for profile in demo_seed["profiles"]}
    templates = cloud.table_name("TemplatesTable")
    template_key = _key_of(client, cloud, "TemplatesTable")
    seeded_template = client.get_item(TableName=templates, Key=template_key)["Item"]
    assert "changed_by" not in stored[0]
    assert "changed_by" not in seeded_template
    # What this test leaves behind: the next one must not see it. Seeded items are shared between
    # tests until one changes them in place (update_item, alone or in a transaction).
    client.put_item(TableName=cloud.table_name("ProfilesTable"), Item={**stored[0], "user_id": {"S": f"extra-{turn}"}})
    client.delete_item(TableName=cloud.table_name("KeywordsTable"), Key=_key_of(client, cloud, "KeywordsTable"))
    profile_key = _key_of(client, cloud, "ProfilesTable", stored[1])
    change = {"UpdateExpression": "SET changed_by = :turn", "ExpressionAttributeValues": {":turn": {"N": str(turn)}}}
    client.update_item(TableName=cloud.table_name("ProfilesTable"), Key=profile_key, **change)
    client.transact_write_items(TransactItems=[{"Update": {"TableName": templates, "Key": template_key, **change}}])
    assert count(cloud, "ProfilesTable") == 9
    assert client.get_item(TableName=templates, Key=template_key)["Item"]["changed_by"] == {"N": str(turn)}
    assert first


def _key_of(client, cloud, table, item=None):
    description = client.describe_table(TableName=cloud.table_name(table))["Table"]
    names = [element["AttributeName"] for element in description["KeySchema"]]
    item = item or client.scan(TableName=cloud.table_name(table), Limit=1)["Items"][0]
    return {name: item[name] for name in names}
