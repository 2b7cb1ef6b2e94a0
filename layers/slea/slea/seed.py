"""Load a seed document {"profiles": [...], "templates": [...], "keywords": [...]} into the tables.

Table names come from the same environment variables the functions read (PROFILES_TABLE,
TEMPLATES_TABLE, KEYWORDS_TABLE), or, from the command line, from a deployed stack's outputs:

    python -m slea.seed data/demo_seed.json --stack slea-ssem
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

from slea.contracts.common import Contract, to_python_error
from slea.contracts.keywords import DifficultyKeywords
from slea.contracts.profile import SurveyRecord
from slea.contracts.templates import TemplateRecord
from slea.dal import keywords, profiles, templates
from slea.dal.items import dynamo_numbers
from slea.settings import resource_name, stack_outputs

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
    outputs = stack_outputs(stack)
    for variable, output in SECTIONS.values():
        os.environ[variable] = outputs[output]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slea.seed", description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="seed JSON document")
    parser.add_argument("--stack", help="read table names from this CloudFormation stack's outputs")
    args = parser.parse_args(argv)
    if args.stack:
        _use_stack_outputs(args.stack)
    written = load_seed(json.loads(args.file.read_text(encoding="utf-8")))
    print(json.dumps(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
