"""bench/item_quality.py: the test-wise answerer picks what each cue points at, the round figures
count what they claim to, and the offline generator meets the targets on the held-out input."""

import json
from typing import Any

import pytest

from bench import item_quality
from slea.authoring.offline_generator import matches_interest
from slea.contracts.generation import DraftQuestion, GenerateQuestionsInput

PROFILE = {
    "user_id": "3f2b8c1e-7a4d-4e29-9b6f-1c5d8e2a7b40",
    "self_level": "intermediate",
    "years_experience": 6,
    "job_role": "Data Platform Engineer",
    "duty": "Runs pipelines",
    "interests": ["Databases"],
    "previous_score": 60,
    "language": "en",
}
CONCEPTS = [
    {"name": name, "acronym": "", "definition": f"The {name} definition.", "key_points": ["a point"], "domain": domain}
    for name, domain in (("Index", "Databases"), ("Replica", "Databases"), ("Sharding", "Networking"))
]


def draft(concept: dict[str, Any] | None, **fields: Any) -> DraftQuestion:
    return DraftQuestion.model_validate(
        {"type": "short_answer", "stem": "Explain it.", "difficulty": 5, "language": "en", "source": concept, **fields}
    )


def round_of(drafts: list[DraftQuestion], count: int = 3) -> item_quality.Round:
    request = GenerateQuestionsInput.model_validate(
        {
            "profile": PROFILE,
            "keywords": {
                "difficulty": 5,
                "category": "technical",
                "keywords": [],
                "concepts": CONCEPTS,
                "example_questions": [],
            },
            "session_id": "s",
            "difficulty": 5,
            "category": "technical",
            "count": count,
        }
    )
    return item_quality.Round(request, drafts)


# ---------------------------------------------------------------- the test-wise answerer
def test_labels_are_removed_and_the_key_letter_is_a_position():
    assert item_quality.option_texts(["A) First", "B) Second) part"]) == ["First", "Second) part"]
    assert item_quality.key_index(draft(None, type="multiple_choice", choices=["A) x"] * 4, correct_answer="C")) == 2


def test_longest_option_and_its_tie_break():
    assert item_quality.longest_option("", ["short", "a much longer option", "mid size", "tiny"]) == 1
    assert item_quality.longest_option("", ["abc", "xyz", "ab", "a"]) == 0


def test_most_overlap_picks_the_option_echoing_the_stem():
    stem = "Which protocol retransmits lost segments?"
    options = ["Resolves domain names", "Caches web content", "Retransmits lost segments", "Shares one address"]
    assert item_quality.stem_overlaps(stem, options)[2] >= 2
    assert item_quality.most_stem_overlap(stem, options) == 2


def test_most_overlap_reads_korean_by_character_bigrams():
    stem = "다음 중 벡터 데이터베이스에 대한 설명으로 가장 적절한 것은?"
    options = [
        "문서를 나누는 청킹",
        "모델을 조정하는 미세 조정",
        "임베딩을 저장하는 벡터 데이터베이스",
        "토큰 수를 세는 방법",
    ]
    assert item_quality.most_stem_overlap(stem, options) == 2


def test_odd_one_out_picks_the_option_least_like_the_others():
    options = [
        "cache hit ratio at the edge",
        "cache miss ratio at the edge",
        "banana split with cherries",
        "cache fill",
    ]
    assert item_quality.odd_one_out("", options) == 2


def test_no_cue_at_all_picks_the_first_option():
    same = ["alpha beta", "alpha beta", "alpha beta", "alpha beta"]
    for strategy in item_quality.STRATEGIES.values():
        assert strategy("Pick one.", same) == 0


def test_combined_trusts_a_single_echo_before_a_longest_option():
    stem = "Which store answers vector search queries?"
    options = ["a long option about something else entirely, unrelated to it", "vector search index", "one", "two"]
    assert item_quality.combined_cues(stem, options) == 1


def test_combined_falls_back_to_a_clearly_longest_option_when_echoes_tie():
    stem = "Which tool handles retries?"
    options = ["retries with backoff", "retries", "a considerably longer option without that word", "queue"]
    assert item_quality.stem_overlaps(stem, options)[:2] == [1, 1]
    assert item_quality.combined_cues(stem, options) == 2


def test_combined_falls_back_to_the_odd_one_out_when_lengths_are_close():
    options = [
        "cache hit ratio at the edge",
        "cache miss ratio at the edge",
        "banana split with cherries!",
        "cache fill ratio at edge",
    ]
    assert not item_quality.longest_stands_out(options)
    assert item_quality.combined_cues("Pick one.", options) == 2


# ---------------------------------------------------------------- round figures
def test_a_repeat_counts_only_while_another_concept_is_unused():
    index, replica, sharding = CONCEPTS
    early = round_of([draft(index), draft(index), draft(replica), draft(sharding)])
    assert len(item_quality.repeats_while_unused(early)) == 1
    late = round_of([draft(index), draft(replica), draft(sharding), draft(index)])
    assert item_quality.repeats_while_unused(late) == []
    assert item_quality.most_items_on_one_concept(late) == 2


def test_interest_share_applies_only_to_records_holding_a_full_round_of_interest_concepts():
    index, replica, sharding = CONCEPTS
    two_items = round_of([draft(index), draft(sharding)], count=2)
    assert item_quality.interest_share(two_items) == 0.5
    assert item_quality.interest_share(round_of([draft(index), draft(replica), draft(sharding)])) is None
    partial = round_of([draft(index), draft(sharding), draft(sharding)])
    assert item_quality.interest_concepts_used(partial) == 0.5


def test_language_checks_flag_mixed_items():
    korean = {"type": "multiple_choice", "stem": "다음 중 옳은 것은?", "language": "ko", "correct_answer": "A"}
    lone_terms = draft(None, **korean, choices=["A) TCP", "B) 전송 계층", "C) 응용 계층", "D) UDP"])
    english_phrase = draft(None, **korean, choices=["A) Transport layer", "B) 전송 계층", "C) 응용 계층", "D) UDP"])
    assert item_quality.in_language(lone_terms, "ko")
    assert not item_quality.in_language(english_phrase, "ko")
    assert not item_quality.in_language(lone_terms, "en")
    assert not item_quality.in_language(draft(None, explanation="Index: 색인"), "en")
    assert item_quality.in_language(draft(None, explanation="An index."), "en")


# ---------------------------------------------------------------- the held-out input
def test_the_heldout_input_is_what_the_bench_says_it_is():
    document = json.loads(item_quality.HELDOUT.read_text(encoding="utf-8"))
    records, profiles = document["keywords"], document["profiles"]
    assert len(records) >= 3
    assert len(profiles) == 4
    for record in records:
        assert len(record["concepts"]) >= 24
        assert 3 <= len({concept["domain"] for concept in record["concepts"]}) <= 4
        assert all(len(concept["key_points"]) == 3 for concept in record["concepts"])
    assert any(all(concept["language"] == "ko" for concept in record["concepts"]) for record in records)
    assert any(profile.get("language") == "ko" for profile in profiles)
    domains = {concept["domain"] for record in records for concept in record["concepts"]}
    assert any(not any(matches_interest(domain, profile["interests"]) for domain in domains) for profile in profiles)


@pytest.fixture(scope="module")
def heldout() -> dict[str, Any]:
    return item_quality.measure({"heldout": item_quality.HELDOUT})["heldout"]


def test_heldout_surface_cues_stay_near_chance(heldout: dict[str, Any]):
    cues = heldout["cue_accuracy"]
    assert cues["items"] >= 200
    assert cues["combined"] <= item_quality.TARGET_COMBINED_CUE_MAX


def test_heldout_rounds_follow_the_learners_interests(heldout: dict[str, Any]):
    shares = heldout["interest_share"]
    # Three learners each match a full round of concepts in one record, in both mixes.
    assert shares["rounds"] == 6
    assert shares["min"] >= item_quality.TARGET_INTEREST_SHARE_MIN, shares["examples"]


def test_heldout_rounds_repeat_no_concept_while_others_are_unused(heldout: dict[str, Any]):
    repeats = heldout["concept_repeats"]
    assert repeats["repeats_while_concepts_unused"] == 0, repeats["examples"]


def test_heldout_items_are_wholly_in_the_rounds_language(heldout: dict[str, Any]):
    language = heldout["language_consistency"]
    assert language["items"] == 480
    assert language["share_consistent"] == 1.0, language["examples"]


# ---------------------------------------------------------------- statements that make sense
def test_a_false_statement_borrowed_from_another_domain_is_a_cross_domain_pairing():
    index, replica, sharding = (item_quality.Concept.model_validate(c) for c in CONCEPTS)
    generated = round_of([])
    own_domain = draft(
        CONCEPTS[0], type="true_false", stem='True or False: "The Replica definition" holds for an index.'
    )
    other_domain = draft(
        CONCEPTS[0], type="true_false", stem='True or False: "The Sharding definition" holds for an index.'
    )
    true_one = draft(CONCEPTS[0], type="true_false", stem='True or False: "The Index definition" holds for an index.')
    assert [c.name for c in item_quality.partners(generated, own_domain)] == ["Replica"]
    assert not item_quality.cross_domain(index, replica)
    assert item_quality.cross_domain(index, sharding)
    assert item_quality.partners(generated, true_one) == []
    figures = item_quality.pairing_sense([round_of([own_domain, other_domain, true_one])])
    assert figures["true_false"] | {"keyed_true_share": None} == {
        "items": 3,
        "paired_items": 2,
        "cross_domain": 1,
        "cross_domain_rate": 0.5,
        "cross_domain_where_the_domain_had_enough": 0,
        "keyed_true_share": None,
    }


def test_a_distractor_of_another_domain_is_a_cross_domain_pairing():
    choices = ["A) The Index definition.", "B) The Replica definition.", "C) The Sharding definition."]
    item = draft(CONCEPTS[0], type="multiple_choice", stem="What is an index?", choices=choices, correct_answer="A")
    assert [c.name for c in item_quality.partners(round_of([]), item)] == ["Replica", "Sharding"]
    assert item_quality.pairing_sense([round_of([item])])["multiple_choice"]["cross_domain"] == 1


@pytest.mark.parametrize(
    ("stem", "errors"),
    [
        ("What is an multimodal model?", ["an multimodal"]),
        ("What is a API gateway? A user story, an hour, an LLM, a GPU.", ["a API"]),
        ("A NAT gateway or an NAT gateway; record types such as A, AAAA and CNAME.", []),
    ],
)
def test_a_or_an_is_checked_against_the_next_words_sound(stem, errors):
    assert item_quality.article_mismatches(stem) == errors


def test_a_count_noun_name_with_no_article_and_title_case_mid_sentence_are_found():
    names = ["Multimodal Model"]
    assert item_quality.missing_articles("What is Multimodal Model?", names) == ["is Multimodal Model"]
    assert item_quality.missing_articles("What is a multimodal model?", names) == []
    assert item_quality.missing_articles("What is cloud computing?", ["Cloud Computing"]) == []  # a mass noun
    assert item_quality.title_cased_mid_sentence("What is Multimodal Model?", names, frozenset()) == [
        "Multimodal Model"
    ]
    assert item_quality.title_cased_mid_sentence("Multimodal Model: a model.", names, frozenset()) == []
    proper = frozenset({"kubernetes"})
    assert item_quality.title_cased_mid_sentence("What is Kubernetes?", ["Kubernetes"], proper) == []
    assert item_quality.title_cased_mid_sentence("What is the Kano model?", ["Kano Model"], frozenset(), {"Kano"}) == []


def test_korean_particle_errors_are_alternations_left_and_forms_that_do_not_fit():
    names = ["모델", "API", "LLM"]
    assert item_quality.particle_errors("PyTorch은(는) 무엇인가?", names) == ["은(는)"]
    assert item_quality.particle_errors("모델는 무엇인가? API은 무엇인가?", names) == ["모델는", "API은"]
    assert item_quality.particle_errors("모델은 무엇인가? API는 무엇인가? LLM은 무엇인가?", names) == []


def test_heldout_statements_pair_concepts_of_one_domain(heldout: dict[str, Any]):
    pairing = heldout["pairing_sense"]
    assert pairing["true_false"]["paired_items"] > 0  # false statements are still written
    assert pairing["true_false"]["cross_domain"] == 0, pairing["examples"]
    assert pairing["multiple_choice"]["cross_domain_where_the_domain_had_enough"] == 0, pairing["examples"]
    assert pairing["multiple_choice"]["cross_domain"] == 0, pairing["examples"]


def test_heldout_english_stems_have_their_articles_and_sentence_case(heldout: dict[str, Any]):
    articles = heldout["english_articles"]
    assert articles["items"] == 320
    for check in ("a_an_mismatch", "missing_article", "title_case_mid_sentence"):
        assert articles[check]["items"] == 0, articles["examples"][check]


def test_heldout_korean_particles_fit_their_words(heldout: dict[str, Any]):
    particles = heldout["korean_particles"]
    assert particles["items"] == 160
    assert particles["items_with_errors"] == 0, particles["examples"]


# ---------------------------------------------------------------- key terms the model answer states
def test_unstated_key_terms_read_the_model_answer_as_the_grader_reads_an_answer():
    reference = "A prompt template is a reusable prompt with named slots filled in for each request."
    keyed = draft(CONCEPTS[0], correct_keywords=["retrieval", "slot", "documents"], reference_answer=reference)
    assert item_quality.unstated_key_terms(keyed) == ["retrieval", "documents"]
    korean = draft(None, correct_keywords=["PyTorch", "검색"], reference_answer="PyTorch는 딥러닝 프레임워크입니다.")
    assert item_quality.unstated_key_terms(korean) == ["검색"]


def test_stated_figures_count_items_without_a_model_answer_apart():
    stated = draft(None, correct_keywords=["index"], reference_answer="An index speeds up lookups.")
    unstated = draft(None, correct_keywords=["replica"], reference_answer="An index speeds up lookups.")
    bare = draft(None, correct_keywords=["sharding"])
    figures = item_quality.stated_figures([stated, unstated, bare, None])
    assert figures == {
        "items": 3,
        "not_written": 1,
        "with_a_model_answer": 2,
        "key_terms_all_stated": 1,
        "share_all_stated": 0.5,
        "without_a_model_answer": 1,
    }


def test_heldout_short_answers_state_their_key_terms(heldout: dict[str, Any]):
    figures = heldout["key_terms_stated"]
    every = figures["every_item"]
    assert every["share_all_stated"] == 1.0, figures["examples"]
    assert every["with_a_model_answer"] >= 300
    for language in ("en", "ko"):
        kinds = every["by_language_and_kind"][language]
        assert set(kinds) == {"sa_explain", "sa_compare", "sa_keyword"}
        assert all(kind["share_all_stated"] == 1.0 for kind in kinds.values())
    assert figures["rounds"]["share_all_stated"] == 1.0
