"""Feedback in parts and references from sources only: the pure pieces, without moto."""

import pytest
from pydantic import ValidationError

from slea.contracts.keywords import ChoiceNote, Concept, SourceLink
from slea.contracts.llm import Explanation, GradingItem
from slea.contracts.scoring import ReferenceLink
from slea.feedback.details import PHRASES, compose, details_of, next_steps, without_repeats
from slea.feedback.references import cited

SOURCE = ReferenceLink(title="Wikipedia: Overfitting", url="https://en.wikipedia.org/wiki/Overfitting")


# ---------------------------------------------------------------- sources on concept records
def test_a_concept_may_carry_https_sources_and_omits_them_when_it_has_none():
    base = {"name": "Overfitting", "acronym": "", "definition": "Fitting noise.", "key_points": ["noise"]}
    assert "sources" not in Concept.model_validate(base).model_dump()  # the spec's shape is unchanged
    concept = Concept.model_validate({**base, "sources": [SOURCE.model_dump()]})
    assert concept.model_dump()["sources"] == [SOURCE.model_dump()]


@pytest.mark.parametrize(
    "url",
    [
        "http://en.wikipedia.org/wiki/Overfitting",
        "javascript:alert(1)",
        "https://localhost/x",
        " https://en.wikipedia.org/wiki/X",
        "https://" + "a" * 600 + ".org/",
    ],
)
def test_a_source_must_be_an_https_address_of_a_named_host(url):
    with pytest.raises(ValidationError) as error:
        SourceLink.model_validate({"title": "t", "url": url})
    assert "url" in str(error.value)


def test_a_concept_has_at_most_five_sources():
    base = {"name": "X", "acronym": "", "definition": "d", "key_points": ["p"]}
    with pytest.raises(ValidationError):
        Concept.model_validate({**base, "sources": [SOURCE.model_dump()] * 6})


# ---------------------------------------------------------------- references
def test_only_the_items_sources_are_cited_and_an_invented_url_is_dropped():
    invented = ReferenceLink(title="Overfitting explained", url="https://example.com/overfitting")
    renamed = ReferenceLink(title="the model's own title", url="https://EN.wikipedia.org/wiki/Overfitting/")
    assert cited([SOURCE], [invented, renamed]) == [SOURCE]
    assert cited([], [invented]) == []  # none rather than noise
    assert cited([SOURCE], []) == [SOURCE]


def test_the_demo_seed_sources_are_valid_and_never_a_search():
    import json
    from pathlib import Path

    from ops.seed import SeedDocument

    seed = SeedDocument.model_validate(json.loads(Path("data/demo_seed.json").read_text(encoding="utf-8")))
    sources = [source for record in seed.keywords for concept in record.concepts for source in concept.sources or []]
    assert len(sources) > 100
    # No search page (the issue saw "Wikipedia: developer" searches): an article, paper or document.
    assert not [source.url for source in sources if "?" in source.url or "index.php" in source.url]
    korean = [source for source in sources if source.url.startswith("https://ko.wikipedia.org/")]
    assert korean  # Korean concepts cite Korean articles where one is known


# ---------------------------------------------------------------- details and prose
def mc_item(language="en", picked="C", is_correct=False, notes=True):
    names = {
        "en": ["Overfitting", "Underfitting", "Regularisation", "Dropout"],
        "ko": ["과적합", "과소적합", "정규화", "드롭아웃"],
    }[language]
    definitions = [f"{name} definition text." for name in names]
    return GradingItem(
        question_type="multiple_choice",
        user_answer=picked,
        stem={"en": "Which concept is this?", "ko": "이것은 어떤 개념입니까?"}[language],
        choices=[f"{label}) {name}" for label, name in zip("ABCD", names, strict=True)],
        correct_answer="A",
        reference_explanation=f"{names[0]}: {definitions[0]}",
        is_correct=is_correct,
        choice_notes=[
            {"option": name, "concept": name, "definition": definition}
            for name, definition in zip(names, definitions, strict=True)
        ]
        if notes
        else [],
        sources=[SOURCE],
    )


def test_a_wrong_pick_without_a_note_has_no_made_up_reason():
    """Without a note nothing is said of what the option means (no made-up meaning), but the pick
    is still told why it does not fit (test changed to the new behaviour: it was told nothing)."""
    details = details_of(mc_item(notes=False), Explanation(), [SOURCE], needs_review=False)
    assert details.your_answer == "Regularisation"
    assert details.why_yours_is_wrong == (
        "The option you chose does not fit what the question says about Overfitting; the correct answer does,"
        " for the reason given with it."
    )
    assert "Regularisation" not in details.why_yours_is_wrong


def definitions_item(language="en"):
    """A name-to-definition item: the stem names the concept, the options are definitions."""
    item = mc_item(language)
    names = [choice[3:] for choice in item.choices]
    definitions = [f"{name} definition text." for name in names]
    return item.model_copy(
        update={
            "stem": {"en": "Which describes Overfitting?", "ko": "과적합을 설명하는 것은?"}[language],
            "choices": [f"{label}) {text}" for label, text in zip("ABCD", definitions, strict=True)],
            "choice_notes": [
                ChoiceNote(option=text, concept=name, definition=text)
                for name, text in zip(names, definitions, strict=True)
            ],
        }
    )


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("shape", ["names", "definitions"])
def test_a_wrong_pick_is_told_why_it_does_not_fit_while_the_round_is_open_and_what_it_means_after(language, shape):
    """While the round is open a wrong pick's concept is not named (KeyGuard.naming), which once left
    only "The option you chose is a different concept."; now the first sentence says why it does not
    fit, against the key's record and without the pick's name, and the key's reason is there; the
    pick's name and definition come with the history."""
    from slea.logic.answering.explaining import explain
    from slea.logic.answering.grades import Grade
    from slea.security.key_leaks import KeyedItem

    item = mc_item(language) if shape == "names" else definitions_item(language)
    picked = "정규화" if language == "ko" else "Regularisation"
    key = "과적합" if language == "ko" else "Overfitting"
    later = KeyedItem(
        question_type="multiple_choice",
        stem="Which concept is the unrelated process described here?",
        choices=("A) Gradient Boosting", "B) Something else entirely"),
        correct_answer="A",
        item_id="later",
    )
    explained = explain(item, Grade(score=0.0, is_correct=False), [later], None, cacheable=False)
    wrong = explained.shown.details.why_yours_is_wrong or ""
    phrase = "stem_defines_key" if shape == "names" else "pick_not_definition"
    assert wrong == PHRASES[language][phrase].format(concept=key)
    assert picked not in wrong  # (the prose quotes the learner's own pick, "Your answer: ...", and no more)
    assert explained.shown.details.why_correct  # why the key is right, from its record
    assert wrong.split(".")[0] in explained.shown.explanation
    whole = explained.withheld["unguarded"]["details"]["why_yours_is_wrong"]
    assert whole.startswith(wrong)
    meaning = whole.removeprefix(wrong).strip()  # what the pick means: its name and definition, after the round
    assert picked in meaning
    assert meaning not in explained.shown.explanation


@pytest.mark.parametrize("language", ["en", "ko"])
def test_next_steps_for_a_wrong_answer_never_suggest_a_harder_question(language):
    wrong = next_steps(mc_item(language), [SOURCE], needs_review=False, language=language)
    right = next_steps(mc_item(language, picked="A", is_correct=True), [SOURCE], needs_review=False, language=language)
    harder = {"en": "harder", "ko": "어려운"}[language]
    assert not any(harder in step for step in wrong)
    assert any(harder in step for step in right)
    # Sent to the references, without naming one: the title is listed once, under References
    # (test changed to the new behaviour: a step named the first reference's title).
    assert any(step == PHRASES[language]["reread"] for step in wrong)
    assert not any(SOURCE.title in step or SOURCE.url in step for step in [*wrong, *right])


@pytest.mark.parametrize("language", ["en", "ko"])
def test_no_link_is_said_twice_in_the_prose(language):
    """The next steps name no reference, and a link the explainer wrote into its prose is left out:
    the references list each link once."""
    item = mc_item(language)
    written = Explanation(explanation=f"See {SOURCE.url} for more. Overfitting is common.", reference_links=[SOURCE])
    details = details_of(item, written, [SOURCE], needs_review=False)
    text = compose(details, item, written, ["Overfitting"])
    assert SOURCE.url not in text
    assert SOURCE.title not in text
    assert "Overfitting is common." in text


def test_without_repeats_drops_a_sentence_already_said():
    paragraphs = [("A model answer:", "It fits noise. It generalises badly."), ("Why:", "It fits noise."), "New point."]
    assert without_repeats(paragraphs) == ["A model answer: It fits noise. It generalises badly.", "New point."]
    assert without_repeats(["Same.", "same.", "Other. Same."]) == ["Same.", "Other."]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_prose_meets_the_minimum_length_with_no_sentence_twice_even_when_parts_are_thin(language):
    item = mc_item(language)
    item.reference_explanation = None
    item.choice_notes = []
    repeated = Explanation(explanation="Study it. Study it. Study it.")
    details = details_of(item, repeated, [], needs_review=True)
    text = compose(details, item, repeated, ["Overfitting"])
    assert len(text) >= 500
    sentences = [" ".join(part.split()) for part in text.replace("\n", " ").split(". ") if part.strip()]
    assert len(sentences) == len(set(sentences))
    assert text.count("Study it") == 1


def test_the_cache_variant_names_the_wrong_option_picked_and_is_bounded_by_the_options():
    from slea.logic.answering.explaining import cache_variant as _cache_variant

    variants = {_cache_variant(mc_item(picked=picked)) for picked in ["B", "C", "D", "b", "Regularisation"]}
    assert len(variants) == 3  # B, C, D: the same option named by letter or text shares one
    right = {_cache_variant(mc_item(picked=picked, is_correct=True)) for picked in ["A", "Overfitting"]}
    assert len(right) == 1
    tf = GradingItem(question_type="true_false", user_answer="True", stem="S", correct_answer="False", is_correct=False)
    assert "picked" not in _cache_variant(tf)  # one wrong answer only: no option in the key


@pytest.mark.parametrize("language", ["en", "ko"])
def test_what_a_wrong_pick_is_told_is_the_same_whatever_the_unanswered_items_are_keyed_on(language):
    """No oracle: the feedback once switched to "a different concept than the one this question asks
    about" when the pick keyed another item not answered yet, and later held the naming back (with
    a note) only then: either told the learner the option keys an item still to come. Now the pick
    is named and defined from this item's own choice notes, and while any other item is unanswered
    that naming is held back for every wrong pick, with one note at the end; the whole text is kept
    for the history. Everything shown (text, parts, note) is identical whether the pick is the
    name, or the text, another unanswered item is keyed on, or neither."""
    from slea.logic.answering.explaining import explain
    from slea.logic.answering.grades import Grade
    from slea.security.key_leaks import NOTE, KeyedItem

    item = mc_item(language, picked="C")
    picked_name = item.choices[2][3:]
    details = details_of(item, Explanation(), [], False)
    assert details.your_answer == picked_name
    assert f"{picked_name} definition text." in (details.why_yours_is_wrong or "")

    def unanswered(key: str, item_id: str) -> KeyedItem:
        return KeyedItem(
            question_type="multiple_choice",
            stem="Which concept is the unrelated process described here?",
            choices=(f"A) {key}", "B) Something else entirely"),
            correct_answer="A",
            item_id=item_id,
        )

    grade = Grade(score=0.0, is_correct=False)
    alone = explain(item, grade, [], None, cacheable=False)
    assert alone.shown.details.why_yours_is_wrong == details.why_yours_is_wrong
    assert alone.withheld is None
    assert NOTE[language] not in alone.shown.explanation
    assert alone.shown.note is None
    shown = {}
    for case, key in {
        "keyed on the pick's name": picked_name,
        "keyed on the pick's definition": f"{picked_name} definition text.",
        "keyed elsewhere": "Gradient Boosting",
    }.items():
        beside = explain(item, grade, [unanswered(key, "later")], None, cacheable=False)
        shown[case] = repr((beside.shown.explanation, beside.shown.details, beside.shown.feedback, beside.shown.links))
        assert f"{picked_name} definition text" not in beside.shown.explanation
        assert f"{picked_name} definition text" not in (beside.shown.details.why_yours_is_wrong or "")
        # The note is its own field (the page says it once per round), never in the text or its parts
        # (test changed to the new behaviour: it once ended every explanation and its next steps).
        assert beside.shown.note == NOTE[language]
        assert NOTE[language] not in beside.shown.explanation
        assert NOTE[language] not in beside.shown.details.next_steps
        assert NOTE[language] not in (beside.shown.details.why_yours_is_wrong or "")
        assert beside.withheld is not None  # kept whole with the attempt, for the history
        assert beside.withheld["withheld_for"] == ["later"]
        assert f"{picked_name} definition text." in beside.withheld["unguarded"]["details"]["why_yours_is_wrong"]
    assert len(set(shown.values())) == 1, "the feedback depends on what the unanswered item is keyed on"
    assert "other_concept" not in PHRASES[language]


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_right_answers_note_and_what_waits_for_the_history_do_not_depend_on_what_is_held_back(language):
    """A right answer's explanation loses what would answer an open item (that is the guard's
    job), but the note and the items its full text waits for are the same whether anything was held
    back or not: a note, or a history completing the text after one particular item is answered,
    only when it was would tell the learner which question to come it touches."""
    from slea.logic.answering.explaining import explain
    from slea.logic.answering.grades import Grade
    from slea.security.key_leaks import NOTE, KeyedItem

    said_too = {
        "en": "Dropout randomly zeroes hidden activations during each training step.",
        "ko": "드롭아웃은 학습 단계마다 은닉 활성값을 무작위로 0으로 만듭니다.",
    }[language]
    item = mc_item(language, picked="A", is_correct=True)
    item = item.model_copy(update={"reference_explanation": f"{item.reference_explanation} {said_too}"})

    def open_item(key: str, item_id: str) -> KeyedItem:
        return KeyedItem(
            question_type="true_false",
            stem=f"True or false: {key}",
            correct_answer="True",
            item_id=item_id,
        )

    grade = Grade(score=1.0, is_correct=True)
    alone = explain(item, grade, [], None, cacheable=False)
    assert NOTE[language] not in alone.shown.explanation
    assert alone.withheld is None  # no other item open: nothing could be held back, nothing waits
    assert alone.shown.note is None
    related = explain(item, grade, [open_item(said_too, "later"), open_item("Sky", "other")], None, False)
    unrelated = explain(item, grade, [open_item("Gradient boosting", "later"), open_item("Sky", "other")], None, False)
    assert said_too not in related.shown.explanation  # held back: it is the open item's key
    assert said_too in unrelated.shown.explanation
    for explained in (related, unrelated):
        assert explained.shown.note == NOTE[language]  # its own field, said once per round by the page
        assert NOTE[language] not in explained.shown.explanation
        assert NOTE[language] not in explained.shown.details.next_steps
        assert explained.withheld is not None
        assert explained.withheld["withheld_for"] == ["later", "other"]  # every open item, not the touched one
        assert NOTE[language] not in explained.withheld["unguarded"]["explanation"]
        assert explained.withheld["unguarded"]["held_back_note"] is None  # delivered whole: no note
    assert related.withheld["unguarded"] == unrelated.withheld["unguarded"]
    assert said_too in related.withheld["unguarded"]["explanation"]  # what the history delivers later


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_text_cut_short_by_the_key_check_is_padded_back_to_the_minimum(language):
    from slea.feedback.details import padded

    text = padded("Kept sentence.\n\n(Part of this explanation is held back.)", language, ["Overfitting"])
    assert len(text) >= 500
    assert text.startswith("Kept sentence.")
    assert len(without_repeats([text])) == 1
    assert padded("x" * 600, language, ["Overfitting"]) == "x" * 600  # long enough: untouched


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "That is the definition of Overfitting."), ("ko", "정답 보기는 다음 개념의 정의입니다: Overfitting.")],
)
def test_a_definition_key_is_not_restated_in_why(language, said):
    """The generator's explanation opens "Name: <definition>", the key of a definition item: the
    page shows the key just above, so "why" names the concept instead of repeating it."""
    definition = "A model that fits the noise of its training data and generalises badly."
    stems = {"en": "Which is the definition of overfitting?", "ko": "과적합의 정의는 무엇입니까?"}
    item = GradingItem(
        question_type="multiple_choice",
        user_answer="A",
        stem=stems[language],
        choices=[f"A) {definition}", "B) b b b", "C) c c c", "D) d d d"],
        correct_answer="A",
        reference_explanation=f"Overfitting: {definition} Key points: noise; variance.",
        is_correct=True,
    )
    details = details_of(item, Explanation(), [], False)
    assert details.correct_answer == definition
    assert details.why_correct == f"{said} Key points: noise; variance."
    assert compose(details, item, Explanation(), []).count(definition) == 1
