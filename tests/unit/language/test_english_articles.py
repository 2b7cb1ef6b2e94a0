"""A concept's name inside an English sentence (slea.language.english_articles): its article, its
case mid-sentence and the number its verb takes."""

import pytest

from slea.language.english_articles import indefinite_article, noun_phrase, sentence_start


@pytest.mark.parametrize(
    ("name", "phrase", "plural"),
    [
        ("Multimodal Model", "a multimodal model", False),  # a count noun: article, lower case
        ("API Gateway", "an API gateway", False),  # "an" before a vowel-named capital; acronym kept
        ("Uniform Resource Locator", "a uniform resource locator", False),  # "u" said "yu"
        ("One-on-One Meeting", "a one-on-one meeting", False),
        ("NAT Gateway", "a NAT gateway", False),  # an acronym said as a word
        ("Cloud Computing", "cloud computing", False),  # a mass noun (-ing): no article
        ("Quantization", "quantization", False),
        ("Data Governance", "data governance", False),
        ("Generative AI", "generative AI", False),
        ("Clarifying Question", "a clarifying question", False),  # a count noun despite -tion
        ("Guardrails", "guardrails", True),  # plural: no article, "are"
        ("Acceptance Criteria", "acceptance criteria", True),
        ("Root Cause Analysis", "root cause analysis", False),  # "analysis" is no plural
        ("Pareto Principle", "the Pareto principle", False),  # one of a kind; a proper word kept
        ("Kano Model", "the Kano model", False),
        ("Cost of Delay", "cost of delay", False),  # the head noun is before "of"
        ("Kubernetes", "Kubernetes", False),  # proper name: no article, case kept
        ("Conway's Law", "Conway's Law", False),  # an eponym
        ("LoRA", "LoRA", False),  # one acronym-like word
        ("GraphRAG", "GraphRAG", False),
        ("Retrieval-Augmented Generation", "retrieval-augmented generation", False),
        ("LLM-as-a-Judge", "LLM-as-a-judge", False),
        ("Cross-Selling", "cross-selling", False),
    ],
)
def test_noun_phrase(name, phrase, plural):
    found = noun_phrase(name)
    assert (found.text, found.plural) == (phrase, plural)
    assert found.be == ("are" if plural else "is")


@pytest.mark.parametrize(
    ("word", "article"),
    [
        ("model", "a"),
        ("embedding", "an"),
        ("LLM", "an"),  # "el-el-em"
        ("GPU", "a"),
        ("user", "a"),
        ("unit", "a"),
        ("hour", "an"),
        ("8-step", "an"),
        ("5-step", "a"),
        ("RACI", "a"),
        ("SQL", "an"),
    ],
)
def test_a_or_an_by_the_first_sound(word, article):
    assert indefinite_article(word) == article


def test_a_phrase_opening_a_sentence_is_capitalised_unless_it_is_a_coined_name():
    assert sentence_start("a multimodal model") == "A multimodal model"
    assert sentence_start("cloud computing") == "Cloud computing"
    assert sentence_start("mTLS") == "mTLS"
