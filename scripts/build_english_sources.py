"""Rebuild `layers/slea/slea/feedback/english_sources.json`: the real sources recorded with the
English concept records of the seed (`data/demo_seed.json`), by the concept's English name and,
where one concept alone has it, its acronym.

Why: the Korean concept records carry sources far more rarely than the English ones (5 of 643
against 288 of 672), so Korean learners got a reference link far less often. Most Korean records
name their concept in English too ("퓨샷 프롬프팅(Few-Shot Prompting)", acronym "LLM"): a Korean
item with no source of its own is offered its English twin's sources, labelled as English
(`slea.feedback.references.for_learner`). Only recorded sources are listed: nothing is made up.

Usage:  PYTHONPATH=layers/slea python scripts/build_english_sources.py
"""

import json
from collections import defaultdict
from pathlib import Path

from slea.feedback.references import catalogue_key

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "data" / "demo_seed.json"
OUTPUT = ROOT / "layers" / "slea" / "slea" / "feedback" / "english_sources.json"


def main() -> None:
    names: dict[str, list[dict[str, str]]] = {}
    acronyms: dict[str, list[list[dict[str, str]]]] = defaultdict(list)
    for record in json.loads(SEED.read_text(encoding="utf-8"))["keywords"]:
        for concept in record["concepts"]:
            sources = concept.get("sources") or []
            if concept.get("language", "en") != "en" or not sources:
                continue
            links = [{"title": source["title"], "url": source["url"]} for source in sources]
            name = concept["name"].split(" (")[0]
            names.setdefault(catalogue_key(name), links)
            if concept.get("acronym"):
                acronyms[catalogue_key(concept["acronym"])].append(links)
    for acronym, found in acronyms.items():
        if len({json.dumps(links) for links in found}) == 1:  # one concept's, never a guess between two
            names.setdefault(acronym, found[0])
    document = {"about": "Built by scripts/build_english_sources.py from data/demo_seed.json; do not edit by hand."}
    document["sources"] = dict(sorted(names.items()))  # type: ignore[assignment]
    OUTPUT.write_text(json.dumps(document, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {OUTPUT}")


if __name__ == "__main__":
    main()
