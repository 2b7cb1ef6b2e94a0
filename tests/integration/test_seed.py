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


@pytest.fixture(params=["first", "later"])
def seed_loaded_before(request, monkeypatch, cloud, load, demo_seed):
    """The test is the first `seeded` test of its process (the seed is loaded into its tables and
    kept) or a later one (the kept seed is handed out)."""
    from tests import seed_copies
    from tests.conftest import _moto_tables

    if request.param == "first":
        monkeypatch.setattr(seed_copies, "_LOADED", {})
        monkeypatch.setattr(seed_copies, "_SHARED", set())
    elif not seed_copies.loaded():  # run alone: an earlier test's load, its tables then emptied
        tables = _moto_tables(cloud)
        seed_copies.seed(tables, lambda: load(demo_seed))
        for table in tables.values():
            table.items.clear()
    return request.param


OWN_ITEMS = {
    # A keyless short answer in the bank (tests/integration/test_calibration_job.py writes such).
    "QuestionsTable": {"question_id": "own-item", "item_type": "short_answer", "bank_key": "technical#en"},
    "ProfilesTable": {"user_id": "own-learner", "submitted_at": "2026-01-01T00:00:00Z", "written_by": "fixture"},
    "TemplatesTable": {"id": "own-template", "written_by": "fixture"},
}


@pytest.fixture
def written_before_the_seed(cloud, demo_seed, seed_loaded_before):
    """A test's own items, written by a fixture before `seeded`: in a table the seed leaves empty
    and in two it fills (one with a hash key, one with a range key too), and two items with a
    seeded item's key, which the seed replaces as loading it over them would."""
    dynamodb = boto3.resource("dynamodb")
    for logical_id, item in OWN_ITEMS.items():
        dynamodb.Table(cloud.table_name(logical_id)).put_item(Item=item)
    profile, template = demo_seed["profiles"][0], demo_seed["templates"][0]
    replaced = {
        "ProfilesTable": {"user_id": profile["user_id"], "submitted_at": profile["submitted_at"]},
        "TemplatesTable": {"id": template["id"]},
    }
    for logical_id, key in replaced.items():
        dynamodb.Table(cloud.table_name(logical_id)).put_item(Item={**key, "written_by": "fixture"})
    return replaced


def _get(cloud, logical_id, key):
    return boto3.resource("dynamodb").Table(cloud.table_name(logical_id)).get_item(Key=key).get("Item")


def test_what_a_fixture_wrote_before_the_seed_stays_the_tests_own_and_never_reaches_another_test(
    cloud, written_before_the_seed, seeded, demo_seed
):
    """The seeded tables hold the seed and what the test's earlier fixtures wrote; what every later
    test is handed is the seed alone (a keyless short answer kept with the seed was drawn into
    other tests' rounds, and answering it failed with a 500)."""
    from tests import seed_copies
    from tests.conftest import _moto_tables

    keys = {"QuestionsTable": ("question_id",), "ProfilesTable": ("user_id", "submitted_at"), "TemplatesTable": ("id",)}
    for logical_id, item in OWN_ITEMS.items():
        assert _get(cloud, logical_id, {name: item[name] for name in keys[logical_id]}) == item
    for logical_id, key in written_before_the_seed.items():
        assert "written_by" not in _get(cloud, logical_id, key)  # the seed's item
    assert count(cloud, "QuestionsTable") == 1
    assert count(cloud, "ProfilesTable") == len(demo_seed["profiles"]) + 1
    assert count(cloud, "TemplatesTable") == len(demo_seed["templates"]) + 1
    # A later test of the process: its tables empty, then handed the seed.
    tables = _moto_tables(cloud)
    for table in tables.values():
        table.items.clear()
    seed_copies.seed(tables, lambda: pytest.fail("the seed is loaded once per process"))
    assert count(cloud, "QuestionsTable") == 0
    assert count(cloud, "ProfilesTable") == len(demo_seed["profiles"])
    assert count(cloud, "TemplatesTable") == len(demo_seed["templates"])
    for logical_id, item in OWN_ITEMS.items():
        assert _get(cloud, logical_id, {name: item[name] for name in keys[logical_id]}) is None
    for logical_id, key in written_before_the_seed.items():
        assert "written_by" not in _get(cloud, logical_id, key)
