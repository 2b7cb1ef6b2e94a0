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
