"""The offline generator's short answers: every key term is one the item's own model answer states,
as Tool 6's grader finds a key term in an answer, so that a learner who restates the model answer is
never told it lacks one. Over every short answer it can write for every record of the demo seed, in
English and Korean, of every kind (explain a concept, compare two, explain a record keyword)."""

import json
import random
import re
from pathlib import Path

import pytest

from slea.authoring.offline_generator import ItemBank, generate_offline
from slea.constants import DEFAULT_KEYWORDS
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput
from slea.contracts.keywords import DifficultyKeywords
from slea.grading.evidence import Evidence, Material
from slea.language.korean_particles import PARTICLE_SOUNDS
from tests.unit.authoring.profiles import ML_ENGINEER

pytestmark = pytest.mark.slow  # sweeps every record the offline generator writes from

SEED = Path(__file__).resolve().parents[3] / "data" / "demo_seed.json"
KINDS = {"sa_explain", "sa_compare", "sa_keyword"}
LATIN_WITH_PARTICLE = re.compile(r"[A-Za-z0-9][\uac00-\ud7a3]+$")
PROFILE = ML_ENGINEER


def unstated(draft: DraftQuestion) -> list[str]:
    """Key terms the grader would not credit the model answer with, were it the learner's answer."""
    material = Material(answer=draft.reference_answer, reference="", keywords=list(draft.correct_keywords))
    found = set(Evidence(material).keyword_matches)
    return [keyword for keyword in draft.correct_keywords if keyword not in found]


def request_for(record: DifficultyKeywords | dict, language: str, **changes) -> GenerateQuestionsInput:
    keywords = DifficultyKeywords.model_validate(record)
    return GenerateQuestionsInput.model_validate(
        {
            "profile": {**PROFILE, "language": language},
            "keywords": keywords,
            "session_id": f"key-terms-{keywords.category}-{keywords.difficulty}-{language}",
            "difficulty": keywords.difficulty,
            "category": keywords.category,
            **changes,
        }
    )


def seed_records() -> list[DifficultyKeywords]:
    document = json.loads(SEED.read_text(encoding="utf-8"))
    return [DifficultyKeywords.model_validate(record) for record in document["keywords"]]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_every_short_answer_the_generator_can_write_states_its_key_terms(language):
    kinds: set[str] = set()
    checked = 0
    for record in seed_records():
        bank = ItemBank(request_for(record, language), random.Random(record.difficulty))
        assert bank.language == language
        items = [item for concept in bank.concepts for item in bank.concept_items(concept, 0)]
        for item in [*items, *bank.keyword_items()]:
            if item.type != "short_answer":
                continue
            draft = item.build()
            assert draft is not None, item
            assert draft.correct_keywords
            assert draft.language == language
            kinds.add(item.family)
            if draft.reference_answer.strip():
                checked += 1
                assert not unstated(draft), (draft.stem, draft.correct_keywords, draft.reference_answer)
            else:
                # No model answer only where no concept of the record mentions the keyword asked
                # about: Tool 6 then grades by that key term alone, the one the stem names.
                assert item.family == "sa_keyword", draft.stem
                assert draft.source is None
                assert draft.correct_keywords == [item.subject]
            for keyword in draft.correct_keywords:
                tail = LATIN_WITH_PARTICLE.search(keyword)
                assert not (tail and tail.group(0)[1:] in PARTICLE_SOUNDS), keyword
    assert kinds == KINDS
    assert checked > 2000


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_short_answers_of_rounds_state_their_key_terms(language):
    for record in seed_records()[::3]:
        request = request_for(record, language, count=12, question_types=["short_answer"])
        drafts = generate_offline(request, request.count, random.Random(request.session_id))
        assert len(drafts) == request.count
        for draft in drafts:
            assert not (draft.reference_answer.strip() and unstated(draft)), draft.stem


def test_korean_key_terms_are_nouns_as_the_model_answer_writes_them():
    """A Korean key term is stored bare ("데이터" of "데이터를") so that any inflection matches; taken
    from a verb, what is stored is a stem ("찾아내" of "찾아내는", "답하거" of "답하거나") that a
    reviewer editing the item reads as a typo, or a verb's whole form ("허용하거나"), which is no
    term. Every Korean key term of every short answer the writer can produce from the demo seed is
    a noun: the model answer (or explanation) writes it alone or with a noun's particle, and it
    does not read as a verb."""
    from slea.language.shown_terms import reads_as_a_verb, whole_term

    checked = 0
    for record in seed_records():
        bank = ItemBank(request_for(record, "ko"), random.Random(record.difficulty))
        items = [item for concept in bank.concepts for item in bank.concept_items(concept, 0)]
        for item in [*items, *bank.keyword_items()]:
            draft = item.build() if item.type == "short_answer" else None
            if draft is None:
                continue
            for keyword in draft.correct_keywords:
                if re.search("[\uac00-\ud7a3]", keyword):
                    checked += 1
                    texts = [draft.reference_answer, draft.explanation]
                    assert whole_term(keyword, texts) == keyword, (keyword, draft.reference_answer)
                    assert not reads_as_a_verb(keyword), (keyword, draft.stem)
    assert checked > 3000


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_key_term_the_stem_states_is_left_out_while_two_others_remain(language):
    """An answer that only repeats the question ("가상 문서 임베딩(HyDE)의 개념과 핵심 요소를
    설명하시오.") was credited with the key terms the stem states (HyDE, 임베딩) and scored 57. An
    explanation's or a comparison's key terms are terms beyond the stem: at most one item in a
    hundred keeps one the stem states (where fewer than two others were to be had)."""
    from slea.grading.evidence import keywords_stated

    items = kept = 0
    for record in seed_records():
        bank = ItemBank(request_for(record, language), random.Random(record.difficulty))
        for item in [item for concept in bank.concepts for item in bank.concept_items(concept, 0)]:
            if item.family not in {"sa_explain", "sa_compare"} or (draft := item.build()) is None:
                continue
            items += 1
            kept += bool(keywords_stated(draft.stem, draft.correct_keywords))
            assert len(draft.correct_keywords) >= 2, draft.stem  # leaving terms out never leaves too few
    assert items > 2000
    assert kept / items <= 0.01, (kept, items)


def concept(name, definition, points, acronym="", domain="LLM"):
    return {"name": name, "acronym": acronym, "definition": definition, "key_points": points, "domain": domain}


RECORD = {
    "difficulty": 8,
    "category": "technical",
    "keywords": ["retrieval"],
    "concepts": [
        concept(
            "Prompt Template",
            "A reusable prompt with fixed instructions and named slots that are filled in for each request.",
            ["retrieval of documents is not part of it", "keeps wording consistent across calls"],
        ),
        concept(
            "Retrieval-Augmented Generation",
            "RAG answers with a language model that is given documents retrieved for the question.",
            ["retrieves passages from an index at query time", "grounds the answer in the retrieved text"],
            "RAG",
        ),
        concept(
            "Problem-Solving Approach",
            "A systematic method for addressing challenges step by step.",
            ["define the problem", "generate and evaluate solutions"],
            domain="General",
        ),
    ],
    "example_questions": [],
}


def bank_items(family: str):
    bank = ItemBank(request_for(RECORD, "en"), random.Random(1))
    every = [item for c in bank.concepts for item in bank.concept_items(c, 0)] + bank.keyword_items()
    return [(item, item.build()) for item in every if item.family == family]


def test_a_comparison_takes_its_key_terms_from_the_definition_its_model_answer_gives():
    """The reported item: a model answer about prompt templates, keyed "retrieval" and "documents"
    (words of the concept's key points, which a comparison's model answer does not give)."""
    (_, draft), *_ = [(i, d) for i, d in bank_items("sa_compare") if i.subject == "Prompt Template"]
    assert draft is not None
    assert draft.reference_answer.startswith("Prompt Template: A reusable prompt")
    assert not {"retrieval", "documents"} & {keyword.casefold() for keyword in draft.correct_keywords}
    assert len(draft.correct_keywords) >= 2
    assert not unstated(draft)
    # Words of the names the stem shows are no key terms.
    assert not {"prompt", "template", "retrieval-augmented"} & {k.casefold() for k in draft.correct_keywords}


def test_an_explanation_keeps_its_key_point_terms_and_acronym():
    (_, draft), *_ = [(i, d) for i, d in bank_items("sa_explain") if i.subject == "Retrieval-Augmented Generation"]
    assert draft is not None
    # The most distinctive word of each key point; the acronym the record uses is left out here,
    # the stem states it ("… (RAG) …"): repeating the question would earn it.
    assert "(RAG)" in draft.stem
    assert draft.correct_keywords == ["query", "text"]
    assert not unstated(draft)


def test_a_keyword_item_is_explained_by_the_concepts_that_mention_it():
    ((_, draft),) = bank_items("sa_keyword")
    assert draft is not None
    assert draft.correct_keywords == ["retrieval"]
    assert draft.source is not None
    assert "retrieval" in draft.reference_answer.casefold()
    assert not unstated(draft)


def test_the_fallback_records_rounds_keep_their_keyword_items():
    """Tool 3's fallback record has two concepts and five keywords: a round asking for more than two
    items fills up with keyword items, which have no source concept for the session rule to refuse
    when no concept mentions the keyword letter for letter ("Problem Solving")."""
    record = {**DEFAULT_KEYWORDS, "difficulty": 5, "category": "general"}
    request = request_for(record, "en", count=10)
    drafts = generate_offline(request, request.count, random.Random(3))
    keyword_items = [draft for draft in drafts if draft.source is None]
    assert len(drafts) == 6
    assert {draft.correct_keywords[0] for draft in keyword_items} == {
        "Problem Solving",
        "Teamwork",
        "Critical Thinking",
        "Adaptability",
    }
    for draft in drafts:
        assert not (draft.type == "short_answer" and draft.reference_answer.strip() and unstated(draft))


def test_a_korean_keyword_item_names_its_category_in_korean():
    """A Korean stem read "technical 분야에서 …": the category as the request spells it."""
    record = {**RECORD, "keywords": ["검색"], "concepts": []}
    bank = ItemBank(request_for(record, "ko"), random.Random(1))
    stems = [item.build().stem for item in bank.keyword_items()]
    assert stems == ["기술 분야에서 검색의 역할을 구체적인 예를 들어 설명하시오."]
    english = ItemBank(request_for({**record, "keywords": ["search"]}, "en"), random.Random(1)).keyword_items()
    assert "in technical work" in english[0].build().stem
