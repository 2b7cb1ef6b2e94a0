"""The offline generator's statements make sense: a true/false statement or a multiple-choice item
pairs its concept only with concepts of its own domain (a false statement is a plausible
confusion, not "'next-token prediction' holds for JavaScript Object Notation"), and English
stems name concepts as a sentence does ("What is a multimodal model?")."""

import random
import re

import pytest

from slea.authoring.offline_generator import ItemBank, generate_offline
from slea.contracts.generation import GenerateQuestionsInput
from tests.unit.authoring.profiles import ML_ENGINEER

pytestmark = pytest.mark.slow  # sweeps every record the offline generator writes from

PROFILE = {**ML_ENGINEER, "language": "en"}


def concept(name, definition, points, domain, acronym=""):
    return {"name": name, "acronym": acronym, "definition": definition, "key_points": points, "domain": domain}


LLM = [
    concept(
        "Multimodal Model",
        "A neural model that takes in and relates several kinds of input such as text, images and audio.",
        ["encodes images and text into one shared space", "answers questions about pictures"],
        "LLM",
    ),
    concept(
        "Large Language Model",
        "A neural network trained on very large text corpora to predict and generate natural language.",
        ["self-supervised next-token prediction", "billions of learned parameters"],
        "LLM",
        "LLM",
    ),
    concept(
        "Instruction Tuning",
        "Further training of a pretrained model on prompts paired with desired answers to follow requests.",
        ["supervised examples of instructions and responses", "improves zero-shot task following"],
        "LLM",
    ),
    concept(
        "Guardrails",
        "Programmable checks placed around a model that block or rewrite unsafe inputs and outputs.",
        ["filter harmful content before it reaches users", "enforce topic and format policies"],
        "LLM",
    ),
]
FORMATS = [
    concept(
        "JavaScript Object Notation",
        "A lightweight text format for structured data made of key-value objects and ordered arrays.",
        ["human-readable plain text", "widely used by web APIs"],
        "Data Formats",
        "JSON",
    ),
    concept(
        "Apache Parquet",
        "A columnar file format that stores tables column by column with compression and encoding.",
        ["efficient analytical scans", "stores schema with the data"],
        "Data Formats",
    ),
]
LONE = concept(
    "Public Cloud",
    "Computing resources such as servers and storage rented on demand from a shared provider.",
    ["pay only for what is used", "provider runs the data centres"],
    "Cloud",
)


def request(concepts, question_types=None, difficulty=3, session="s"):
    return GenerateQuestionsInput.model_validate(
        {
            "profile": PROFILE,
            "keywords": {
                "difficulty": difficulty,
                "category": "technical",
                "keywords": [],
                "concepts": concepts,
                "example_questions": [],
            },
            "session_id": session,
            "difficulty": difficulty,
            "category": "technical",
            "count": 8,
            "question_types": question_types,
        }
    )


def rounds(concepts, question_types, difficulties=(2, 5, 8)):
    for difficulty in difficulties:
        for seed in range(12):
            built = request(concepts, question_types, difficulty, f"s{seed}")
            yield from generate_offline(built, built.count, random.Random(seed))


def domain_of(concepts):
    return {c["name"]: c["domain"] for c in concepts}


def borrowed_from(stem, concepts, own):
    """The record's other concepts whose definition or key point the stem states."""
    return [
        c["name"]
        for c in concepts
        if c["name"] != own
        and any(text.rstrip(".").casefold() in stem.casefold() for text in (c["definition"], *c["key_points"]))
    ]


def test_true_false_statements_pair_a_concept_only_with_its_own_domain():
    concepts = [*LLM, *FORMATS, LONE]
    domains = domain_of(concepts)
    false_statements = 0
    for draft in rounds(concepts, ["true_false"]):
        own = draft.source.name
        for other in borrowed_from(draft.stem, concepts, own):
            assert domains[other] == domains[own], draft.stem
            false_statements += 1
    assert false_statements > 0  # false statements are still written, within a domain


def test_a_concept_alone_in_its_domain_gets_no_false_statement():
    concepts = [*LLM, *FORMATS, LONE]
    for draft in rounds(concepts, ["true_false"]):
        if draft.source.name == LONE["name"]:
            assert draft.correct_answer == "True", draft.stem
            assert not borrowed_from(draft.stem, concepts, LONE["name"])


def test_comparison_items_compare_concepts_of_one_domain():
    concepts = [*LLM, *FORMATS, LONE]
    names = [c["name"] for c in concepts]
    domains = domain_of(concepts)
    compared = 0
    for draft in rounds(concepts, ["short_answer"], difficulties=(8,)):
        mentioned = [n for n in names if re.search(re.escape(n), draft.reference_answer)]
        if len(mentioned) > 1:
            compared += 1
            assert len({domains[n] for n in mentioned}) == 1, draft.stem
    assert compared > 0


def test_multiple_choice_options_come_from_the_concepts_domain_when_it_has_enough():
    concepts = [*LLM, *FORMATS, LONE]
    domains = domain_of(concepts)
    by_text = {text.casefold(): c["name"] for c in concepts for text in (c["name"], c["definition"])}
    checked = 0
    for draft in rounds(concepts, ["multiple_choice"]):
        if draft.source.domain != "LLM":  # four LLM concepts: a full set of options in the domain
            continue
        options = [choice.split(") ", 1)[1] for choice in draft.choices]
        assert {domains[by_text[option.casefold()]] for option in options} == {"LLM"}, draft.choices
        checked += 1
    assert checked > 0


def test_english_stems_name_concepts_with_their_article_and_in_sentence_case():
    stems = [draft.stem for draft in rounds([*LLM, *FORMATS, LONE], None)]
    joined = "\n".join(stems)
    assert "What is a multimodal model?" in joined or "describes a multimodal model?" in joined
    assert not re.search(r"(is|describes|of|for|Explain) Multimodal Model", joined)
    assert not re.search(r"What is Guardrails", joined)
    assert "JavaScript Object Notation" in joined or "Apache Parquet" in joined  # proper names keep their case


def test_the_model_answer_opens_with_the_name_as_a_sentence_does():
    drafts = [d for d in rounds(LLM, ["short_answer"], difficulties=(2,)) if d.source.name == "Multimodal Model"]
    assert any(d.reference_answer.startswith("A multimodal model is a neural model") for d in drafts)


def test_a_concept_alone_in_its_domain_is_compared_with_nothing():
    bank = ItemBank(request([*LLM, *FORMATS, LONE], difficulty=8), random.Random(0))
    by_name = {c.name: c for c in bank.concepts}
    lone = [item.family for item in bank.concept_items(by_name[LONE["name"]], 0)]
    paired = [item.family for item in bank.concept_items(by_name["Multimodal Model"], 0)]
    assert "sa_compare" not in lone
    assert "sa_compare" in paired
    # Its true/false items are its own statements: every one keyed True.
    statements = [item.build() for item in bank.concept_items(by_name[LONE["name"]], 0) if item.type == "true_false"]
    assert statements
    assert {draft.correct_answer for draft in statements if draft} == {"True"}
