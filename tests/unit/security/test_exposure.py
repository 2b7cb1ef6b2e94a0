"""security/exposure.py: one item per concept per session, nothing shown answers a later item,
and a learner's recent items do not come back under new ids."""

import json
import random
from pathlib import Path

from slea.authoring.offline_generator import generate_offline
from slea.contracts.exposure import Fact, SessionExposure, ShownItem
from slea.contracts.generation import GenerateQuestionsInput
from slea.contracts.questions import SaveQuestionInput
from slea.logic.generation.saving import question_item
from slea.security import exposure
from slea.security.exposure import RECENT_MAX, SessionContext, drafted_item, stored_item

SEED = json.loads((Path(__file__).resolve().parents[3] / "data" / "demo_seed.json").read_text(encoding="utf-8"))
NN = "A model of layered units whose weighted connections are learned from examples."
SL = "Learning a mapping from inputs to outputs using examples labelled with the right answer."
RL = "Learning which actions to take from rewards received while interacting with an environment."
CL = "Grouping examples by similarity without any labels telling which group is right."


def mc(stem: str, options: list[str], key: str = "A", concept: str | None = None, facts=()) -> ShownItem:
    return ShownItem(
        type="multiple_choice",
        stem=stem,
        choices=[f"{label}) {text}" for label, text in zip("ABCD", options, strict=False)],
        correct_answer=key,
        concept=concept,
        facts=list(facts),
    )


def stored(stem: str, options: list[tuple[str, str]], key: str = "A") -> dict:
    """A stored multiple-choice question whose options are (concept, definition) pairs."""
    request = SaveQuestionInput(
        item_type="multiple_choice",
        stem=stem,
        choices=[f"{label}) {definition}" for label, (_, definition) in zip("ABCD", options, strict=False)],
        correct_key=key,
        difficulty=3,
        categories=["technical"],
        round_id="s_1_t",
        validation_score=0.9,
        explanation=f"{options[0][0]}: {options[0][1]}",
        choice_notes=[{"option": text, "concept": name, "definition": text} for name, text in options],
    )
    return question_item(request, "q1", "2026-11-26T00:00:00Z")


OPTIONS = [("Neural network", NN), ("Supervised learning", SL), ("Reinforcement learning", RL), ("Clustering", CL)]


def test_the_same_stem_is_the_same_question_whatever_its_id_spacing_or_case():
    context = SessionContext(SessionExposure(shown=[mc("Which describes a neural network?", [NN, SL, RL, CL])]))
    assert context.conflict(mc("which  describes a NEURAL network ?", [SL, NN, RL, CL])) == (
        "Repeats a question of this session"
    )


def test_one_item_per_concept_per_session_whatever_the_lead_in():
    """Round 2 once carried round 1's LoRA item again under another lead-in."""
    first = mc("A team fine-tunes a frozen model with small low-rank matrices. Which technique?", ["LoRA"], "A", "LoRA")
    context = SessionContext(SessionExposure(shown=[first]))
    again = mc("Which technique fits: small low-rank matrices on a frozen model?", ["LoRA", "RAG"], "A", "LoRA")
    assert "already tested" in (context.conflict(again, strict=False) or "")


ELIMINABLE = "An option is a concept this session explained: it is picked or eliminated unseen"


def test_an_option_the_session_explained_can_be_eliminated_so_it_is_refused():
    """Round 2 of an English learner: the neural network definition, keyed in Q1, returned as an
    option of Q2, Q4 and Q5, which elimination answered."""
    shown = stored_item(stored("Which option describes a neural network?", OPTIONS), picked="A", answered=True)
    context = SessionContext(SessionExposure(shown=[shown]))
    later = mc("Which option describes transfer learning?", ["Reusing a trained model for a new task.", NN])
    assert context.conflict(later, strict=False) == ELIMINABLE  # never relaxed
    # The options the learner did not pick were not named to them: free to come back.
    assert context.conflict(mc("Which option describes clustering?", [CL, "Another definition of a thing."])) is None


def test_what_a_wrong_pick_named_is_told_and_before_an_answer_every_option_may_be():
    answered = stored_item(stored("Which option describes a neural network?", OPTIONS), picked="B", answered=True)
    assert [fact.name for fact in answered.facts] == ["Neural network", "Supervised learning"]
    told = SessionContext(SessionExposure(shown=[answered]))
    asks_supervised = mc("Which describes supervised learning?", [SL, "Another definition."])
    assert told.conflict(asks_supervised, strict=False) == ELIMINABLE  # its key is the definition told
    named = asks_supervised.model_copy(update={"concept": "Supervised learning"})
    assert "already tested" in (told.conflict(named, strict=False) or "")
    pending = stored_item(stored("Which option describes a neural network?", OPTIONS))
    assert {fact.name for fact in pending.facts} == {name for name, _ in OPTIONS}
    unanswered = SessionContext(SessionExposure(shown=[pending]))
    asks_clustering = mc("Which describes clustering?", [CL, "Another definition."], concept="Clustering")
    assert unanswered.conflict(asks_clustering, strict=False) is None
    assert "may have explained" in (unanswered.conflict(asks_clustering) or "")


def test_an_item_answered_by_an_earlier_explanation_is_refused():
    earlier = ShownItem(
        type="short_answer",
        stem="Explain supervised learning.",
        correct_keywords=["labelled", "mapping"],
        reference_answer=f"Supervised learning: {SL}",
        answered=True,  # its model answer was shown (before, the show-time guard holds it back)
    )
    context = SessionContext(SessionExposure(shown=[earlier]))
    later = ShownItem(
        type="true_false",
        stem=f"True or false: supervised learning is {SL[0].lower()}{SL[1:]}",
        choices=["True", "False"],
        correct_answer="True",
    )
    assert context.conflict(later, strict=False) == "Answerable from what this session has already shown"


def test_recent_items_return_neither_under_a_new_id_nor_with_the_same_concept_and_key_in_practice():
    item = mc("Which option describes a neural network?", [NN, SL, RL, CL], concept="Neural network")
    recent = exposure.recent([], [item])
    regenerated = item.model_copy(update={"stem": "Which of these describes a neural network?"})
    for candidate in (item, regenerated):  # same stem; same concept and key under another stem
        assert "recent session" in (SessionContext(SessionExposure(recent=recent)).conflict(candidate) or "")
        assert SessionContext(SessionExposure(recent=recent, practice=False)).conflict(candidate) is None


def test_the_recent_fingerprints_are_bounded_newest_last():
    items = [mc(f"Question number {n}?", [f"Answer number {n} is a long definition."]) for n in range(RECENT_MAX)]
    kept = exposure.recent([], items)
    assert len(kept) == RECENT_MAX
    assert kept[-2:] == exposure.fingerprints(items[-1])
    assert exposure.recent(kept, items[:1])[-2:] == exposure.fingerprints(items[0])  # met again: newest


def generator_request(shown: list[ShownItem], count: int = 5, session: str = "s") -> GenerateQuestionsInput:
    record = next(r for r in SEED["keywords"] if r["difficulty"] == 3 and r["category"] == "technical")
    profile = next(p for p in SEED["profiles"] if p.get("language", "en") == "en")
    return GenerateQuestionsInput.model_validate(
        {
            "profile": profile,
            "keywords": record,
            "session_id": session,
            "difficulty": 3,
            "category": "technical",
            "count": count,
            "question_types": ["multiple_choice", "true_false", "multiple_choice"],
            "exposure": SessionExposure(shown=shown).model_dump(),
        }
    )


def test_generated_items_keep_apart_from_a_bank_draw_and_from_each_other():
    """Bank draws and generation mixed: a drawn item is in the round; nothing generated tests its
    concept, offers its key as an option or is answerable from it, and no two generated items
    share a concept or offer each other's keys (the rules never relaxed)."""
    record = next(r for r in SEED["keywords"] if r["difficulty"] == 3 and r["category"] == "technical")
    concepts = [c for c in record["concepts"] if c.get("language", "en") == "en"][:4]
    options = [(concept["name"], concept["definition"]) for concept in concepts]
    drawn = stored_item(stored("Which option describes the first concept?", options))
    for seed in range(5):
        drafts = generate_offline(generator_request([drawn], session=f"s{seed}"), 5, random.Random(seed))
        assert len(drafts) == 5
        context = SessionContext(SessionExposure(shown=[drawn]))
        for draft in drafts:
            item = drafted_item(draft)
            assert context.conflict(item, strict=False) is None, (draft.stem, draft.choices)
            assert item.concept != concepts[0]["name"]
            assert all(concepts[0]["definition"] not in choice for choice in draft.choices)
            context.add(item)
        assert len({draft.source.name for draft in drafts}) == 5


def test_a_drafts_facts_are_its_concept_and_every_options_concept():
    drafts = generate_offline(generator_request([], count=1), 1, random.Random(1))
    item = drafted_item(drafts[0])
    assert item.concept == drafts[0].source.name
    assert {fact.name for fact in item.facts} >= {note.concept for note in drafts[0].choice_notes}
    assert Fact(name=drafts[0].source.name, definition=drafts[0].source.definition) in item.facts
