"""The staged upgrade (ops.upgrade): a stack whose tables lack several of template.yaml's global
secondary indexes reaches them one index per table per deploy, as CloudFormation requires."""

import copy
import json
from pathlib import Path
from typing import Any

import boto3
import pytest

from ops import upgrade
from ops.upgrade import Change, plan_upgrade, tables_of
from slea_local.template import repository_template

TARGET = repository_template().document


def _described(resource: dict[str, Any], keep: list[str] | None = None) -> dict[str, Any]:
    """DescribeTable's Table for a template table holding only the indexes named in `keep`
    (all when None), every index ACTIVE."""
    properties = resource["Properties"]
    indexes = [
        {**copy.deepcopy(index), "IndexStatus": "ACTIVE"}
        for index in properties.get("GlobalSecondaryIndexes", [])
        if keep is None or index["IndexName"] in keep
    ]
    return {
        "TableStatus": "ACTIVE",
        "AttributeDefinitions": copy.deepcopy(properties["AttributeDefinitions"]),
        "KeySchema": copy.deepcopy(properties["KeySchema"]),
        **({"GlobalSecondaryIndexes": indexes} if indexes else {}),
    }


def _live(keep: dict[str, list[str]] | None = None, absent: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Every table of the template as deployed, those in `keep` with only those indexes."""
    keep = keep or {}
    return {
        name: _described(resource, keep.get(name)) for name, resource in tables_of(TARGET).items() if name not in absent
    }


def _names(table: dict[str, Any]) -> list[str]:
    return [index["IndexName"] for index in table.get("GlobalSecondaryIndexes") or []]


def _signatures(indexes: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {index["IndexName"]: upgrade._signature(index) for index in indexes}


def _apply(live: dict[str, dict[str, Any]], template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What CloudFormation does with `template`: each table's indexes become the template's, and
    the update fails if a table's indexes change by more than one (or an attribute definition is
    unused or missing, as DynamoDB refuses)."""
    after = copy.deepcopy(live)
    for name, resource in tables_of(template).items():
        properties = resource["Properties"]
        indexes = properties.get("GlobalSecondaryIndexes", [])
        used = {key["AttributeName"] for key in properties["KeySchema"]}
        used |= {key["AttributeName"] for index in indexes for key in index["KeySchema"]}
        assert {d["AttributeName"] for d in properties["AttributeDefinitions"]} == used, name
        if name in live:
            before, now = _signatures(upgrade.live_indexes(live[name])), _signatures(indexes)
            changed = {n for n in before.keys() | now.keys() if before.get(n) != now.get(n)}
            assert len(changed) <= 1, f"{name}: {sorted(changed)} in one update"
            # a changed index is two changes (remove, then add): never in one update
            assert not any(n in before and n in now for n in changed), f"{name}: {changed} replaced in place"
        after[name] = _described(resource)
    return after


def _run(plan: upgrade.Plan, live: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    for step in plan.steps:
        assert step.template is not None
        live = _apply(live, step.template)
    return _apply(live, TARGET)


def test_nothing_to_do():
    plan = plan_upgrade(TARGET, _live())
    assert plan.steps == []
    assert plan.final == []
    assert plan.new_tables == []
    assert plan.describe() == "then the deploy itself: no index change"


def test_one_missing_index_is_the_deploy_itself():
    plan = plan_upgrade(
        TARGET, _live({"QuestionsTable": ["session-questions", "review-queue", "retired-questions", "bank-items"]})
    )
    assert plan.steps == []
    assert plan.final == [Change("QuestionsTable", "add", "item-copies")]
    _run(plan, _live({"QuestionsTable": ["session-questions", "review-queue", "retired-questions", "bank-items"]}))


def test_three_missing_on_one_table_two_on_another():
    live = _live(
        {
            "AttemptsTable": ["attempt-ids", "review-queue"],
            "QuestionsTable": ["session-questions", "review-queue", "retired-questions"],
            "TemplatesTable": [],
        }
    )
    plan = plan_upgrade(TARGET, live)
    assert [step.changes for step in plan.steps] == [
        [
            Change("TemplatesTable", "add", "template-search"),
            Change("QuestionsTable", "add", "bank-items"),
            Change("AttemptsTable", "add", "review-confidence"),
        ],
        [
            Change("TemplatesTable", "add", "template-stems"),
            Change("QuestionsTable", "add", "item-copies"),
            Change("AttemptsTable", "add", "review-groups"),
        ],
    ]
    assert plan.final == [Change("AttemptsTable", "add", "user-attempts")]
    first = tables_of(plan.steps[0].template or {})
    assert _names(first["AttemptsTable"]["Properties"]) == ["attempt-ids", "review-queue", "review-confidence"]
    assert "GlobalSecondaryIndexes" not in tables_of(TARGET)["KeywordsTable"]["Properties"]
    # The step keeps only the attribute definitions its keys use (user_id, graded_at come later).
    definitions = {d["AttributeName"] for d in first["AttemptsTable"]["Properties"]["AttributeDefinitions"]}
    assert {"user_id", "graded_at", "review_group"}.isdisjoint(definitions)
    assert "confidence" in definitions
    final = _run(plan, live)
    assert {name: _names(table) for name, table in final.items()} == {
        name: _names(table) for name, table in _live().items()
    }
    assert "step 1: TemplatesTable: add template-search" in plan.describe()


def test_a_table_not_yet_created_comes_with_all_its_indexes():
    live = _live({"AttemptsTable": ["attempt-ids"]}, absent=("ReviewAuditTable", "SessionsTable"))
    plan = plan_upgrade(TARGET, live)
    assert plan.new_tables == ["ReviewAuditTable", "SessionsTable"]
    assert len(plan.steps) == 3  # four indexes for AttemptsTable: three steps and the deploy
    assert all(change.table == "AttemptsTable" for step in plan.steps for change in step.changes)
    # Planned from the target itself, the new tables are in the first step, whole (a creation
    # may have every index); from the deployed template, they are left to the last deploy.
    sessions = tables_of(plan.steps[0].template or {})["SessionsTable"]
    assert _names(sessions["Properties"]) == ["user-sessions", "open-sessions"]
    old = copy.deepcopy(TARGET)
    del old["Resources"]["ReviewAuditTable"], old["Resources"]["SessionsTable"]
    staged = plan_upgrade(TARGET, live, base=old)
    assert all("SessionsTable" not in tables_of(step.template or {}) for step in staged.steps)
    _run(staged, live)


def test_a_changed_key_schema_is_removed_then_added():
    live = _live()
    review_queue = next(i for i in live["AttemptsTable"]["GlobalSecondaryIndexes"] if i["IndexName"] == "review-queue")
    review_queue["KeySchema"] = [{"AttributeName": "review_state", "KeyType": "HASH"}]
    stems = next(i for i in live["TemplatesTable"]["GlobalSecondaryIndexes"] if i["IndexName"] == "template-stems")
    stems["Projection"] = {"ProjectionType": "ALL"}
    plan = plan_upgrade(TARGET, live)
    assert [step.changes for step in plan.steps] == [
        [Change("TemplatesTable", "remove", "template-stems"), Change("AttemptsTable", "remove", "review-queue")]
    ]
    assert plan.final == [
        Change("TemplatesTable", "add", "template-stems"),
        Change("AttemptsTable", "add", "review-queue"),
    ]
    _run(plan, live)


def test_a_dropped_index_goes_first():
    # A stack of the release that had the questions' item-analysis index (later dropped).
    live = _live({"QuestionsTable": ["session-questions", "review-queue", "retired-questions"]})
    live["QuestionsTable"]["GlobalSecondaryIndexes"].append(
        {
            "IndexName": "item-analysis",
            "KeySchema": [
                {"AttributeName": "analysis_category", "KeyType": "HASH"},
                {"AttributeName": "question_id", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["stem"]},
            "IndexStatus": "ACTIVE",
        }
    )
    live["QuestionsTable"]["AttributeDefinitions"].append({"AttributeName": "analysis_category", "AttributeType": "S"})
    plan = plan_upgrade(TARGET, live)
    assert [step.changes for step in plan.steps] == [
        [Change("QuestionsTable", "remove", "item-analysis")],
        [Change("QuestionsTable", "add", "bank-items")],
    ]
    assert plan.final == [Change("QuestionsTable", "add", "item-copies")]
    first = tables_of(plan.steps[0].template or {})["QuestionsTable"]["Properties"]
    assert "analysis_category" not in {d["AttributeName"] for d in first["AttributeDefinitions"]}
    _run(plan, live)


def test_steps_keep_the_deployed_template_apart_from_the_indexes():
    deployed = copy.deepcopy(TARGET)
    deployed["Resources"]["ApiFunction"]["Properties"]["MemorySize"] = 1
    live = _live({"SessionsTable": []})
    plan = plan_upgrade(TARGET, live, base=deployed)
    (step,) = plan.steps
    assert step.template is not None
    assert step.template["Resources"]["ApiFunction"]["Properties"]["MemorySize"] == 1
    assert _names(tables_of(step.template)["SessionsTable"]["Properties"]) == ["user-sessions"]


def test_upgrade_on_moto_deploys_each_step_and_waits(cloud, tmp_path):
    """An older stack's tables in moto (indexes deleted), a stand-in for sam deploy that applies
    each step as CloudFormation would (refusing two changes to one table): the steps leave one
    change per table for the deploy itself."""
    client = boto3.client("dynamodb")
    names = {name: cloud.physical_names[name] for name in tables_of(TARGET)}
    for table, index in [
        ("AttemptsTable", "user-attempts"),
        ("AttemptsTable", "review-groups"),
        ("AttemptsTable", "review-confidence"),
        ("SessionsTable", "open-sessions"),
    ]:
        client.update_table(TableName=names[table], GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index}}])
    described = lambda name: client.describe_table(TableName=name)["Table"]  # noqa: E731
    deployed = upgrade.Deployed(copy.deepcopy(TARGET), {}, names)
    deploys: list[Path] = []

    def deploy(path: Path) -> None:
        deploys.append(path)
        template = json.loads(path.read_text(encoding="utf-8"))
        live = {name: described(physical) for name, physical in names.items()}
        _apply(live, template)  # at most one change per table, or CloudFormation would refuse
        for name, resource in tables_of(template).items():
            have = set(_names(live[name]))
            for index in resource["Properties"].get("GlobalSecondaryIndexes", []):
                if index["IndexName"] not in have:
                    client.update_table(
                        TableName=names[name],
                        AttributeDefinitions=resource["Properties"]["AttributeDefinitions"],
                        GlobalSecondaryIndexUpdates=[{"Create": index}],
                    )

    said: list[str] = []
    plan = upgrade.upgrade(
        deployed, TARGET, deploy, described, tmp_path / "steps", say=said.append, sleep=lambda s: None
    )
    assert deploys == [tmp_path / "steps" / "step-1.json", tmp_path / "steps" / "step-2.json"]
    assert plan.final == [Change("AttemptsTable", "add", "user-attempts")]
    assert _names(described(names["AttemptsTable"])) == [
        "attempt-ids",
        "review-queue",
        "review-confidence",
        "review-groups",
    ]
    assert _names(described(names["SessionsTable"])) == ["user-sessions", "open-sessions"]
    assert said[0].startswith("step 1: AttemptsTable: add review-confidence, SessionsTable: add open-sessions")
    # Run again: the plan starts from what the tables have now.
    again = upgrade.upgrade(deployed, TARGET, deploy, described, tmp_path / "steps", dry_run=True, say=said.append)
    assert again.steps == []
    assert again.final == [Change("AttemptsTable", "add", "user-attempts")]
    assert len(deploys) == 2


def test_waiting_reports_backfilling_indexes_until_active():
    states = iter(["CREATING", "CREATING", "ACTIVE"])

    def describe(name: str) -> dict[str, Any]:
        status = next(states)
        return {
            "TableStatus": "ACTIVE",
            "GlobalSecondaryIndexes": [{"IndexName": "x", "IndexStatus": status, "Backfilling": True}],
        }

    said: list[str] = []
    upgrade.wait_for_indexes({"T": "t"}, describe, sleep=lambda s: None, say=said.append)
    assert said == ["waiting for T: x CREATING (backfilling)"]


def test_forwarded_sam_arguments():
    known, passed = upgrade._forwarded(
        ["--guided", "--stack-name", "s", "--region=eu-west-1", "--parameter-overrides", "A=1", "-t", "t.yaml"]
    )
    assert (known.stack_name, known.region, known.template_file, known.guided) == ("s", "eu-west-1", "t.yaml", True)
    assert passed == ["--parameter-overrides", "A=1"]


@pytest.mark.parametrize("guided", [True, False])
def test_no_stack_yet_deploys_in_one_step(monkeypatch, capsys, guided):
    monkeypatch.setattr(upgrade, "read_stack", lambda stack: None)
    assert upgrade.main(["--stack", "fresh", "--region", "eu-west-1", "--", *(["--guided"] if guided else [])]) == 0
    assert "no stack fresh yet" in capsys.readouterr().err


def test_guided_first_deploy_without_credentials_is_left_to_sam(monkeypatch, capsys):
    from botocore.exceptions import NoCredentialsError

    def no_credentials(stack: str) -> None:
        raise NoCredentialsError

    monkeypatch.setattr(upgrade, "read_stack", no_credentials)
    assert upgrade.main(["--stack", "s", "--region", "eu-west-1", "--", "--guided"]) == 0
    assert upgrade.main(["--stack", "s", "--region", "eu-west-1"]) == 2
    assert "no AWS credentials" in capsys.readouterr().err
