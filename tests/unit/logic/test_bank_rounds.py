"""Bank-first rounds without AWS: which saved questions join the bank's index, what an item is
written for, which items a round may draw, and the round's target from theta or a label."""

import pytest

from slea.contracts.exposure import SessionExposure, ShownItem
from slea.contracts.generation import IdentifiedDraft
from slea.contracts.keywords import Concept
from slea.contracts.questions import SaveQuestionInput
from slea.contracts.round import RoundPlan, RoundProgress
from slea.dal.bank import bank_item
from slea.logic.generation.saving import question_item
from slea.logic.rounds import target as round_target
from slea.logic.rounds.bank_draw import DrawRequest, _eligible
from slea.logic.rounds.collection import _topics
from slea.measurement import irt, scale

QUESTION = {
    "item_type": "true_false",
    "stem": "RAG retrieves documents before generating.",
    "correct_key": "True",
    "difficulty": 7,
    "categories": ["technical"],
    "round_id": "sess_1_1_2026-11-24T10:00:00Z",
}


def saved(placement=None, **changes):
    return question_item(SaveQuestionInput(**{**QUESTION, **changes}), "q-1", "2026-11-24T10:00:01Z", placement)


# ---------------------------------------------------------------- which questions join the bank
def test_a_validated_question_is_a_drawable_bank_item_with_its_prior():
    item = saved(validation_score=0.9, language="ko", topics=["rag"])
    assert item["item_id"] == "q-1"
    assert item["bank_key"] == "technical#ko"
    assert item["difficulty_b"] == scale.label_to_b(7)
    assert item["difficulty_precision"] == pytest.approx(1 / scale.LABEL_B_SD**2)
    assert (item["item_answers"], item["language"], item["topics"]) == (0, "ko", ["rag"])


@pytest.mark.parametrize(
    ("changes", "placement"),
    [
        ({"validation_score": 0.75}, None),  # Tool 4's revise band: waits for a reviewer
        ({"validation_score": None}, None),  # never validated (a direct Tool 5 save)
        ({"validation_score": 0.95}, {"origin": "author", "session_id": "authored#x"}),  # an author's item
    ],
)
def test_questions_waiting_for_a_reviewer_or_unvalidated_are_bank_items_not_yet_drawable(changes, placement):
    item = saved(placement, **changes)
    assert item["item_id"] == "q-1"
    assert "difficulty_b" in item
    assert "bank_key" not in item


def test_the_language_defaults_to_english():
    assert saved(validation_score=0.9)["bank_key"] == "technical#en"


def test_a_question_written_for_an_account_farms_round_is_a_bank_item_saved_rested():
    item = saved(validation_score=0.9, rest_reason="farm")
    assert item["item_id"] == "q-1"  # its stem and key are claimed: they never join the bank later
    assert "bank_key" not in item
    assert (item["rest_reason"], item["rested_at"]) == ("farm", "2026-11-24T10:00:01Z")


# ---------------------------------------------------------------- what an item was written for
def plan(interests):
    return RoundPlan(
        session_id="s",
        round=1,
        round_id="s_1_t",
        category="technical",
        count=3,
        difficulty=5,
        difficulty_reason="r",
        interests=interests,
        progress=RoundProgress(attempt=0, missing=3),
    )


def draft(domain=None):
    source = Concept(name="RAG", acronym="RAG", definition="d", key_points=["k"], domain=domain) if domain else None
    return IdentifiedDraft(
        type="true_false",
        stem="s",
        correct_answer="True",
        difficulty=5,
        question_id="0f8e4c6a-2b7d-4f1e-9a3c-5d6b7e8f9a01",
        source=source,
    )


def test_an_item_is_written_for_its_concepts_domain_else_the_rounds_interests():
    assert _topics(draft(" RAG "), plan(["LLM", "RAG"])) == ["rag"]
    assert _topics(draft(), plan(["LLM", " Agent Architecture", "llm", "x" * 101])) == ["llm", "agent architecture"]


# ---------------------------------------------------------------- which items a round may draw
def request(**changes):
    fields = {
        "user_id": "u",
        "session_id": "s",
        "round": 1,
        "round_id": "s_1_t",
        "category": "technical",
        "language": "en",
        "interests": ["RAG"],
        "question_types": None,
        "count": 3,
        "theta": 0.0,
        "success_rate": 0.7,
        "execution": "e",
    }
    return DrawRequest(**{**fields, **changes})


def item(**changes):
    """A bank item as the window reads it (dal/bank.py's record)."""
    return bank_item(
        {
            "question_id": "i",
            "item_id": "i",
            "item_type": "true_false",
            "stem": "A stem",
            "topics": ["rag"],
        }
        | changes
    )


def test_a_round_draws_only_unseen_bank_items_of_its_types_and_interests():
    interests = {"rag"}
    assert _eligible(item(), request(), interests)
    assert _eligible(item(topics=None), request(), interests)  # written for the category at large
    assert not _eligible(item(topics=["mlops"]), request(), interests)
    assert not _eligible(item(item_id="other"), request(), interests)  # a copy, not a bank item
    assert not _eligible(item(), request(exclude_items=frozenset({"i"})), interests)  # seen
    in_session = SessionExposure(shown=[ShownItem(type="true_false", stem="A  stem.")])
    assert not _eligible(item(), request(exposure=in_session), interests)  # in the session (by stem, not id)
    assert not _eligible(item(), request(question_types=["short_answer"]), interests)


# ---------------------------------------------------------------- the target
def test_the_success_rate_is_a_setting_and_placement_aims_at_half(monkeypatch):
    monkeypatch.delenv(round_target.SUCCESS_RATE_VARIABLE, raising=False)
    assert round_target.success_rate() == 0.7
    monkeypatch.setenv(round_target.SUCCESS_RATE_VARIABLE, "0.8")
    assert round_target.success_rate() == 0.8
    assert round_target.success_rate("placement") == 0.5
    monkeypatch.setenv(round_target.SUCCESS_RATE_VARIABLE, "1.5")
    with pytest.raises(RuntimeError, match="TARGET_SUCCESS_RATE"):
        round_target.success_rate()


def test_the_target_follows_theta_and_the_types_guessing_floors():
    low, high = round_target.target_b(-1.0, 0.7, None), round_target.target_b(1.0, 0.7, None)
    assert high - low == pytest.approx(2.0)
    # True/false at 70% would lie past its most informative b: the round aims at that b instead.
    assert irt.target_difficulty(0.0, 0.7, 0.5) > irt.most_informative_difficulty(0.0, 0.5)
    assert round_target.target_b(0.0, 0.7, ["true_false"]) == pytest.approx(irt.most_informative_difficulty(0.0, 0.5))
    # Four options at 70% are easier than their informative b: the success rate decides there.
    assert round_target.target_b(0.0, 0.7, ["multiple_choice"]) == pytest.approx(irt.target_difficulty(0.0, 0.7, 0.25))
    assert round_target.target_b(0.0, 0.7, ["true_false"]) > round_target.target_b(0.0, 0.7, ["short_answer"])
    assert round_target.target_b(0.0, 0.5, None) > round_target.target_b(0.0, 0.7, None)


def test_a_target_from_the_ability_explains_itself():
    target = round_target.from_ability(0.42, 0.51, 0.7, ["short_answer"])
    b = irt.target_difficulty(0.42, 0.7, 0.0)
    assert target.label == scale.b_to_label(b)
    assert target.reason == f"theta 0.42 (standard error 0.51), target 70%: b {b:.2f} -> label {target.label}"
    assert target.from_ability


def test_a_label_target_chooses_items_for_the_ability_it_implies():
    target = round_target.from_label(6, "heuristic", 0.7, None)
    assert target.b == scale.label_to_b(6)
    assert round_target.target_b(target.theta, 0.7, None) == pytest.approx(target.b)
    assert not target.from_ability


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (None, False),
        ({"seen_items": ["a"]}, False),  # only items marked seen: no answer yet
        ({"theta": 0.1, "se": 0.9, "answers": 0}, False),
        ({"theta": 0.1, "se": 0.9, "answers": 3}, True),
    ],
)
def test_an_estimate_needs_an_answer_behind_it(item, expected):
    from slea.dal.abilities import stored_ability

    ability = stored_ability({"entry": "ability#technical", **item}) if item is not None else None
    assert (round_target.estimate_of(ability) is not None) is expected
