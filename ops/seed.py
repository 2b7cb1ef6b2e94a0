"""Load a seed document {"profiles": [...], "templates": [...], "keywords": [...]} into the tables.

Table names come from the same environment variables the functions read (PROFILES_TABLE,
TEMPLATES_TABLE, KEYWORDS_TABLE), or, from the command line, from a deployed stack's outputs:

    slea-seed data/demo_seed.json [--stack slea-ssem] [--region ap-northeast-2]

(`python -m ops.seed` is the same command.) The stack is --stack, else SLEA_STACK, else
samconfig.toml's stack_name, unless the three table variables are set; the region is --region,
else AWS_REGION or AWS_DEFAULT_REGION, else samconfig.toml's region.
"""

import argparse
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import boto3
from pydantic import Field, ValidationError

from ops import cli
from slea.contracts.common import Contract, to_python_error
from slea.contracts.keywords import DifficultyKeywords
from slea.contracts.profile import SurveyRecord
from slea.contracts.templates import TemplateRecord
from slea.dal import keywords, profiles, templates
from slea.dal.wire_format import dynamo_numbers
from slea.platform.settings import resource_name

# Seed section -> (table variable, output of template.yaml naming the table)
SECTIONS = {
    "profiles": (profiles.TABLE_VARIABLE, "ProfilesTableName"),
    "templates": (templates.TABLE_VARIABLE, "TemplatesTableName"),
    "keywords": (keywords.TABLE_VARIABLE, "KeywordsTableName"),
}


class SeedDocument(Contract):
    profiles: list[SurveyRecord] = Field(default_factory=list)
    templates: list[TemplateRecord] = Field(default_factory=list)
    keywords: list[DifficultyKeywords] = Field(default_factory=list)


def _stored_items(seed: SeedDocument) -> dict[str, Iterable[dict[str, Any]]]:
    return {
        "profiles": ({**record.model_dump(), **record.key()} for record in seed.profiles),
        "templates": (templates.with_search_key(record.model_dump()) for record in seed.templates),
        "keywords": (record.model_dump() for record in seed.keywords),
    }


def load_seed(doc: dict[str, Any]) -> dict[str, int]:
    """Validate the whole document first (nothing is written if any record is invalid), then
    write it with batched puts (boto3's batch writer resends unprocessed items). Loading the
    same document twice overwrites, never duplicates. Returns the records written per section."""
    try:
        seed = SeedDocument.model_validate(doc)
    except ValidationError as error:
        raise to_python_error(error) from error
    dynamodb = boto3.resource("dynamodb")
    written: dict[str, int] = {}
    for section, items in _stored_items(seed).items():
        table = dynamodb.Table(resource_name(SECTIONS[section][0]))
        count = 0
        with table.batch_writer() as batch:
            for item in items:
                batch.put_item(Item=dynamo_numbers(item))
                count += 1
        written[section] = count
    return written


def _use_stack_outputs(stack: str) -> None:
    outputs = cli.stack_outputs(stack, dict(SECTIONS.values()))
    os.environ.update(outputs)


def _stack(explicit: str | None) -> str | None:
    """The stack to read table names from; None when the environment names all three tables."""
    if explicit or os.environ.get("SLEA_STACK"):
        return cli.resolve_stack(explicit)
    if all(os.environ.get(variable) for variable, _output in SECTIONS.values()):
        return None
    stack = cli.resolve_stack(None)
    if not stack:
        raise cli.CommandError("no stack: pass --stack or set SLEA_STACK", cli.EXIT_CONFIG)
    return stack


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="slea-seed", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path, help="seed JSON document")
    cli.add_aws_options(parser)
    args = parser.parse_args(argv)

    def command() -> int:
        try:
            doc = json.loads(args.file.read_text(encoding="utf-8"))
        except OSError as error:
            raise cli.CommandError(f"cannot read {args.file}: {error.strerror}", cli.EXIT_CONFIG) from error
        except json.JSONDecodeError as error:
            raise cli.CommandError(f"{args.file} is not JSON: {error}", cli.EXIT_CONFIG) from error
        cli.use_region(args.region)
        stack = _stack(args.stack)
        if stack:
            _use_stack_outputs(stack)
        print(json.dumps(load_seed(doc)))
        return 0

    return cli.run(parser.prog, command)


if __name__ == "__main__":
    sys.exit(main())
