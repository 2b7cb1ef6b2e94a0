"""Command line of the local runtime (offline: moto built from template.yaml, no AWS account).

python -m slea_local demo                         # seed the demo data, run the tools, print
python -m slea_local invoke get_user_profile events/get_user_profile/valid.json
"""

import argparse
import json
import os
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

from slea_local import REPO_ROOT

DEMO_SEED = REPO_ROOT / "data" / "demo_seed.json"
DEMO_USER = "550e8400-e29b-41d4-a716-446655440000"


def _quiet_powertools() -> None:
    # Readable output: Powertools' JSON logs would drown the demo (the local runtime collects
    # the EMF metric lines itself).
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
    warnings.filterwarnings("ignore", "No application metrics to publish")


def _step(number: int, total: int, text: str) -> None:
    print(f"\n[{number}/{total}] {text}", flush=True)


def _wrap(text: str, indent: str = "      ") -> str:
    return textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent)


def _print_profile(profile: dict[str, Any]) -> None:
    print(
        f"      {profile['job_role']} · {profile['self_level']} · {profile['years_experience']} years"
        f" · previous score {profile['previous_score']}"
    )
    print(f"      interests: {', '.join(profile['interests']) or '(none)'}")


def _print_templates(templates: list[dict[str, Any]]) -> None:
    if not templates:
        print("      (no templates matched: the generator will work from the keywords alone)")
    for rank, template in enumerate(templates, start=1):
        print(
            f"   {rank:2}. correct rate {template['correct_rate']:.2f} · used {template['usage_count']} times"
            f" · difficulty {template['avg_difficulty_score']} · {template['type']}"
        )
        print(_wrap(template["stem"], indent="       "))


def _print_keywords(keywords: dict[str, Any]) -> None:
    print(_wrap("keywords: " + ", ".join(keywords["keywords"])))
    for concept in keywords["concepts"]:
        print(f"      • {concept['name']} ({concept['acronym']})")
        print(_wrap(concept["definition"], indent="        "))


def demo(category: str, difficulty: int, user_id: str) -> int:
    from slea_local.cloud import LocalCloud, prepare_process_environment

    _quiet_powertools()
    prepare_process_environment()
    from slea.seed import load_seed
    from slea_local.runtime import LocalRuntime

    print("slea-ssem local demo — offline: moto built from template.yaml, no AWS account, no API key")
    total = 5
    with LocalCloud() as cloud:
        runtime = LocalRuntime(cloud)
        _step(1, total, f"Local AWS from template.yaml: tables {', '.join(sorted(cloud.physical_names))}")
        with cloud.environment(cloud.seed_environment()):
            written = load_seed(json.loads(DEMO_SEED.read_text(encoding="utf-8")))
        _step(
            2, total, f"Seeded {DEMO_SEED.relative_to(REPO_ROOT)}: " + ", ".join(f"{n} {k}" for k, n in written.items())
        )

        _step(3, total, f"Tool 1 get_user_profile(user_id={user_id})")
        profile = runtime.invoke("get_user_profile", {"user_id": user_id})
        _print_profile(profile)

        interests = profile["interests"] or ["LLM"]
        _step(4, total, f"Tool 2 search_question_templates({interests}, difficulty={difficulty}, category={category})")
        _print_templates(
            runtime.invoke(
                "search_question_templates", {"interests": interests, "difficulty": difficulty, "category": category}
            )
        )

        _step(5, total, f"Tool 3 get_difficulty_keywords(difficulty={difficulty}, category={category})")
        _print_keywords(runtime.invoke("get_difficulty_keywords", {"difficulty": difficulty, "category": category}))
    print("\nDone. Generation, validation and saving (Mode 1) and scoring (Mode 2) join this demo as they land.")
    return 0


def invoke(tool: str, event_path: Path) -> int:
    """Run one function on the seeded local AWS with an event file (what `sam local invoke -e` sends)."""
    from slea_local.cloud import LocalCloud, prepare_process_environment

    _quiet_powertools()
    prepare_process_environment()
    from slea.seed import load_seed
    from slea_local.runtime import LocalRuntime

    event = json.loads(event_path.read_text(encoding="utf-8"))
    with LocalCloud() as cloud:
        with cloud.environment(cloud.seed_environment()):
            load_seed(json.loads(DEMO_SEED.read_text(encoding="utf-8")))
        try:
            result = LocalRuntime(cloud).invoke(tool, event)
        except (ValueError, TypeError) as error:
            print(json.dumps({"errorType": type(error).__name__, "errorMessage": str(error)}, ensure_ascii=False))
            return 1
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m slea_local", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="seed the demo data and run the tools, printing readably")
    demo_parser.add_argument("--category", default="technical", choices=["technical", "business", "general"])
    demo_parser.add_argument("--difficulty", type=int, default=7, choices=range(1, 11), metavar="1-10")
    demo_parser.add_argument("--user-id", default=DEMO_USER)
    invoke_parser = commands.add_parser("invoke", help="run one function with an event file on the seeded local AWS")
    invoke_parser.add_argument("tool", help="tool name (functions/<tool>) or the function's logical id")
    invoke_parser.add_argument("event", type=Path, help="event JSON file, e.g. events/get_user_profile/valid.json")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(args.category, args.difficulty, args.user_id)
    return invoke(args.tool, args.event)


if __name__ == "__main__":
    sys.exit(main())
