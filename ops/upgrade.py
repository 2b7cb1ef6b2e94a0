"""Bring a deployed stack's tables up to template.yaml's global secondary indexes in as many
deploys as CloudFormation needs: it changes one index per table per update (an update that adds
two to one table, or removes one and adds another, fails). `make deploy` runs this first.

    python -m ops.upgrade [--dry-run] [--template PATH] [--stack NAME] [--region REGION]
                          [--sam PATH] [-- SAM DEPLOY ARGUMENTS]

(`make upgrade ARGS="--dry-run"` is the same command.) It reads the stack's tables (its
resources, then DescribeTable on each) and its deployed template (GetTemplate, Original stage),
and compares each table's indexes with the template to deploy (--template, else the built
.aws-sam/build/template.yaml, else template.yaml). Each intermediate step is the deployed
template with at most one index changed per table: indexes that are gone or whose keys or
projection changed are removed first, then the new ones added, in the template's order. The
functions keep running the deployed code until the real deploy, which makes the last change of
each table with everything else. Each step is `sam deploy --template-file <step>` (its artifacts
are already in S3), and every index must be ACTIVE (built and backfilled) before the next step.
A new table is created with all its indexes at once, and a stack that does not exist yet is left
to the first deploy. Running it again after a stop starts from what the tables have. --dry-run
prints the plan and deploys nothing. Arguments after `--` go to each step's sam deploy
(--guided is dropped; --stack-name, --region, --profile and --template-file are read too).
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from botocore.exceptions import ClientError, NoCredentialsError, NoRegionError

from ops import cli

TABLE_TYPE = "AWS::DynamoDB::Table"
REPO_ROOT = Path(__file__).resolve().parents[1]
BUILT_TEMPLATE = Path(".aws-sam") / "build" / "template.yaml"
STEPS_DIR = Path(".aws-sam") / "upgrade"
POLL_SECONDS = 20.0

Action = Literal["remove", "add"]


@dataclass(frozen=True)
class Change:
    table: str  # the table's logical id
    action: Action
    index: str

    def __str__(self) -> str:
        return f"{self.table}: {self.action} {self.index}"


@dataclass
class Step:
    """One deploy of the plan: the index changes it makes, and (for an intermediate step) the
    template it deploys."""

    changes: list[Change]
    template: dict[str, Any] | None = None


@dataclass
class Plan:
    """The intermediate steps, then what the real deploy changes (`final`)."""

    steps: list[Step] = field(default_factory=list)
    final: list[Change] = field(default_factory=list)
    new_tables: list[str] = field(default_factory=list)

    def describe(self) -> str:
        lines = [f"step {number}: {', '.join(map(str, step.changes))}" for number, step in enumerate(self.steps, 1)]
        final = ", ".join(map(str, self.final)) or "no index change"
        lines.append(f"then the deploy itself: {final}")
        if self.new_tables:
            lines.append(f"new tables, created with all their indexes: {', '.join(self.new_tables)}")
        return "\n".join(lines)


def _signature(index: Mapping[str, Any]) -> tuple[Any, ...]:
    """What an index is, for DynamoDB: its keys and projection (a change of either is a new index)."""
    keys = tuple((key["AttributeName"], key["KeyType"]) for key in index["KeySchema"])
    projection = index.get("Projection") or {}
    return keys, projection.get("ProjectionType", "ALL"), tuple(sorted(projection.get("NonKeyAttributes") or ()))


def live_indexes(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A DescribeTable `Table`'s global secondary indexes as a template lists them."""
    indexes = []
    for index in table.get("GlobalSecondaryIndexes") or []:
        projection = {"ProjectionType": index.get("Projection", {}).get("ProjectionType", "ALL")}
        if index.get("Projection", {}).get("NonKeyAttributes"):
            projection["NonKeyAttributes"] = list(index["Projection"]["NonKeyAttributes"])
        indexes.append(
            {
                "IndexName": index["IndexName"],
                "KeySchema": [
                    {"AttributeName": k["AttributeName"], "KeyType": k["KeyType"]} for k in index["KeySchema"]
                ],
                "Projection": projection,
            }
        )
    return indexes


def tables_of(template: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: resource
        for name, resource in (template.get("Resources") or {}).items()
        if isinstance(resource, dict) and resource.get("Type") == TABLE_TYPE
    }


def _indexes_of(resource: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list((resource.get("Properties") or {}).get("GlobalSecondaryIndexes") or [])


def _changes(current: list[dict[str, Any]], wanted: list[dict[str, Any]], table: str) -> list[Change]:
    """Removals first (gone, or keys or projection changed), then additions in the template's order."""
    have = {index["IndexName"]: _signature(index) for index in current}
    want = {index["IndexName"]: _signature(index) for index in wanted}
    removed = [name for name, signature in have.items() if want.get(name) != signature]
    added = [index["IndexName"] for index in wanted if have.get(index["IndexName"]) != want[index["IndexName"]]]
    return [Change(table, "remove", name) for name in removed] + [Change(table, "add", name) for name in added]


def _state_after(
    current: list[dict[str, Any]], wanted: list[dict[str, Any]], changes: list[Change]
) -> list[dict[str, Any]]:
    """The table's indexes once `changes` are made: kept ones as the template spells them."""
    by_name = {index["IndexName"]: index for index in wanted}
    removed = {change.index for change in changes if change.action == "remove"}
    added = {change.index for change in changes if change.action == "add"}
    state = [
        by_name.get(index["IndexName"], index)
        if index["IndexName"] in by_name and _signature(by_name[index["IndexName"]]) == _signature(index)
        else index
        for index in current
        if index["IndexName"] not in removed
    ]
    return state + [by_name[name] for name in (index["IndexName"] for index in wanted) if name in added]


def _key_attributes(properties: Mapping[str, Any], indexes: Iterable[Mapping[str, Any]]) -> set[str]:
    schemas = [properties.get("KeySchema") or []]
    schemas += [index["KeySchema"] for index in properties.get("LocalSecondaryIndexes") or []]
    schemas += [index["KeySchema"] for index in indexes]
    return {key["AttributeName"] for schema in schemas for key in schema}


def _with_indexes(
    resource: dict[str, Any], indexes: list[dict[str, Any]], definitions: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """`resource` with these indexes and exactly the attribute definitions they and the table's
    keys use (CloudFormation refuses a definition nothing uses)."""
    resource = copy.deepcopy(resource)
    properties = resource.setdefault("Properties", {})
    if indexes:
        properties["GlobalSecondaryIndexes"] = copy.deepcopy(indexes)
    else:
        properties.pop("GlobalSecondaryIndexes", None)
    used = _key_attributes(properties, indexes)
    types: dict[str, str] = {}
    for definition in definitions:
        types.setdefault(definition["AttributeName"], definition["AttributeType"])
    missing = sorted(used - set(types))
    if missing:
        raise ValueError(f"no attribute definition for {', '.join(missing)}")
    properties["AttributeDefinitions"] = [
        {"AttributeName": name, "AttributeType": kind} for name, kind in types.items() if name in used
    ]
    return resource


def plan_upgrade(
    target: Mapping[str, Any], live: Mapping[str, Mapping[str, Any]], base: Mapping[str, Any] | None = None
) -> Plan:
    """The deploys that take the tables from `live` ({logical id: DescribeTable's Table}, the
    stack's existing tables) to `target`'s indexes, one index change per table per deploy.
    Intermediate templates are `base` (the deployed template; else `target`) with each table's
    indexes as they are after that step. A table of `target` not in `live` is new: the first
    deploy that has it creates it with every index."""
    base = target if base is None else base
    wanted_tables, base_tables = tables_of(target), tables_of(base)
    sequences: dict[str, list[Change]] = {}
    for name, resource in wanted_tables.items():
        if name in live:
            sequences[name] = _changes(live_indexes(live[name]), _indexes_of(resource), name)
    plan = Plan(new_tables=sorted(set(wanted_tables) - set(live)))
    longest = max((len(changes) for changes in sequences.values()), default=0)
    if longest == 0:
        return plan
    for number in range(1, longest):
        template = copy.deepcopy(dict(base))
        resources = template.setdefault("Resources", {})
        made: list[Change] = []
        for name, changes in sequences.items():
            if name not in base_tables:
                continue  # a table the deployed template lacks is CloudFormation's to create
            done = changes[:number]
            made += changes[number - 1 : number]
            current, wanted = live_indexes(live[name]), _indexes_of(wanted_tables[name])
            definitions = [
                *(wanted_tables[name].get("Properties") or {}).get("AttributeDefinitions", []),
                *(base_tables[name].get("Properties") or {}).get("AttributeDefinitions", []),
                *live[name].get("AttributeDefinitions", []),
            ]
            resources[name] = _with_indexes(base_tables[name], _state_after(current, wanted, done), definitions)
        plan.steps.append(Step(made, template))
    plan.final = [changes[longest - 1] for changes in sequences.values() if len(changes) == longest]
    return plan


# ---------------------------------------------------------------- the stack


@dataclass
class Deployed:
    """What the stack has: its original template, its tables' physical names by logical id, and
    ({logical id: DescribeTable's Table}) as last described."""

    template: dict[str, Any] | None
    tables: dict[str, dict[str, Any]]
    names: dict[str, str]


def read_stack(stack: str) -> Deployed | None:
    """The stack's tables and deployed template, or None when no such stack exists."""
    import boto3  # noqa: PLC0415 - only when a command runs

    from slea_local.template import parse_template  # noqa: PLC0415

    cloudformation = boto3.client("cloudformation")
    try:
        cloudformation.describe_stacks(StackName=stack)
    except ClientError as error:
        if "does not exist" in str(error.response.get("Error", {}).get("Message", "")):
            return None
        raise
    names: dict[str, str] = {}
    for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack):
        for resource in page["StackResourceSummaries"]:
            if resource["ResourceType"] == TABLE_TYPE and resource.get("PhysicalResourceId"):
                names[resource["LogicalResourceId"]] = resource["PhysicalResourceId"]
    body: Any = cloudformation.get_template(StackName=stack, TemplateStage="Original")["TemplateBody"]
    template = parse_template(body) if isinstance(body, str) else json.loads(json.dumps(body))
    return Deployed(template, {}, names)  # the tables are described when planned


def _unready(table: Mapping[str, Any]) -> list[str]:
    """What of a table is not ACTIVE yet (a new index is being built and backfilled)."""
    waiting = [] if table.get("TableStatus") == "ACTIVE" else [f"table {table.get('TableStatus')}"]
    for index in table.get("GlobalSecondaryIndexes") or []:
        if index.get("IndexStatus", "ACTIVE") != "ACTIVE":
            backfilling = " (backfilling)" if index.get("Backfilling") else ""
            waiting.append(f"{index['IndexName']} {index['IndexStatus']}{backfilling}")
    return waiting


def wait_for_indexes(
    names: Mapping[str, str],
    describe: Callable[[str], Mapping[str, Any]],
    sleep: Callable[[float], None] = time.sleep,
    poll_seconds: float = POLL_SECONDS,
    say: Callable[[str], None] = print,
) -> None:
    """Until every table and index is ACTIVE: CloudFormation returns once an index is started,
    and a table takes no other index change while one is being built."""
    last = ""
    while True:
        waiting = {name: _unready(describe(physical)) for name, physical in names.items()}
        line = "; ".join(f"{name}: {', '.join(what)}" for name, what in waiting.items() if what)
        if not line:
            return
        if line != last:
            say(f"waiting for {line}")
            last = line
        sleep(poll_seconds)


def upgrade(
    deployed: Deployed,
    target: Mapping[str, Any],
    deploy: Callable[[Path], None],
    describe: Callable[[str], Mapping[str, Any]],
    steps_dir: Path,
    *,
    dry_run: bool = False,
    sleep: Callable[[float], None] = time.sleep,
    say: Callable[[str], None] = print,
) -> Plan:
    """Plan from the stack as it is; unless `dry_run`, deploy each intermediate step, waiting
    for its indexes. The real deploy (the last step) is the caller's."""
    if not dry_run:
        wait_for_indexes(deployed.names, describe, sleep, say=say)
    deployed.tables = {name: dict(describe(physical)) for name, physical in deployed.names.items()}
    plan = plan_upgrade(target, deployed.tables, deployed.template)
    say(plan.describe())
    if dry_run:
        return plan
    steps_dir.mkdir(parents=True, exist_ok=True)
    for number, step in enumerate(plan.steps, 1):
        path = steps_dir / f"step-{number}.json"
        path.write_text(json.dumps(step.template, indent=1, default=str), encoding="utf-8")
        say(f"step {number} of {len(plan.steps)}: {', '.join(map(str, step.changes))}")
        deploy(path)
        wait_for_indexes(deployed.names, describe, sleep, say=say)
    return plan


# ---------------------------------------------------------------- command line


def _forwarded(arguments: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """What this command reads of sam deploy's arguments, and those to pass on to each step."""
    reader = argparse.ArgumentParser(add_help=False)
    for option in ("--stack-name", "--region", "--profile"):
        reader.add_argument(option)
    reader.add_argument("--template-file", "--template", "-t")
    reader.add_argument("--guided", "-g", action="store_true")
    known, _ = reader.parse_known_args(arguments)
    passed, skip = [], False
    for argument in arguments:
        if skip:
            skip = False
            continue
        name = argument.split("=", 1)[0]
        if name in ("--guided", "-g"):
            continue
        if name in ("--template-file", "--template", "-t", "--stack-name", "--region"):
            skip = "=" not in argument
            continue
        passed.append(argument)
    return known, passed


def target_template(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    return BUILT_TEMPLATE if BUILT_TEMPLATE.is_file() else Path("template.yaml")


def main(argv: list[str] | None = None) -> int:
    parser = cli.argument_parser("python -m ops.upgrade", __doc__)
    cli.add_aws_options(parser)
    parser.add_argument("--dry-run", action="store_true", help="print the plan; deploy nothing")
    parser.add_argument("--template", help="the template to deploy (default: the built one, else template.yaml)")
    parser.add_argument("--sam", default="sam", help="the sam command (make passes its own)")
    parser.add_argument("sam_args", nargs="*", help="after --: sam deploy's arguments, passed to each step")
    args = parser.parse_args(argv)
    known, passed = _forwarded(args.sam_args)

    def command() -> int:
        from slea_local.template import parse_template  # noqa: PLC0415

        if known.profile:
            os.environ["AWS_PROFILE"] = known.profile
        region_given = args.region or known.region
        cli.use_region(region_given)
        stack = args.stack or known.stack_name or cli.resolve_stack(None)
        if not stack:
            if known.guided:
                print("ops.upgrade: no stack name yet: the guided deploy creates the stack", file=sys.stderr)
                return 0
            raise cli.CommandError("no stack: pass --stack, set SLEA_STACK, or deploy once", cli.EXIT_CONFIG)
        try:
            deployed = read_stack(stack)
        except (NoCredentialsError, NoRegionError):
            if known.guided:  # the guided deploy asks for what is missing
                print("ops.upgrade: no AWS region or credentials yet: nothing staged", file=sys.stderr)
                return 0
            raise
        if deployed is None:
            print(f"ops.upgrade: no stack {stack} yet: the deploy creates every index at once", file=sys.stderr)
            return 0
        path = target_template(args.template or known.template_file)
        target = parse_template(path.read_text(encoding="utf-8"))
        region = cli.resolve_region(region_given)
        command_line = [args.sam, "deploy", "--stack-name", stack, "--no-fail-on-empty-changeset"]
        command_line += ["--region", region] if region else []

        def deploy(step: Path) -> None:
            subprocess.run([*command_line, "--template-file", str(step), *passed], check=True)  # noqa: S603

        import boto3  # noqa: PLC0415

        client = boto3.client("dynamodb")

        def describe(name: str) -> Mapping[str, Any]:
            table: Mapping[str, Any] = client.describe_table(TableName=name)["Table"]
            return table

        say = lambda line: print(f"ops.upgrade: {line}", file=sys.stderr)  # noqa: E731
        upgrade(deployed, target, deploy, describe, STEPS_DIR, dry_run=args.dry_run, say=say)
        return 0

    try:
        return cli.run(parser.prog, command)
    except subprocess.CalledProcessError as error:
        print(f"{parser.prog}: error: a step's sam deploy failed ({error.returncode}): run again", file=sys.stderr)
        return cli.EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
