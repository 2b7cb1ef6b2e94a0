"""A wrong pick's feedback names the concept the option came from; beside the option's text on the
page, that name answers any choice item keyed on it. Holding the naming back only when it did
would tell the learner so (an oracle), so while any other item of the session is unanswered the
naming is held back for every wrong pick, whatever those items are keyed on, and delivered with
the rest once they are answered. One note says so, at the end (`KeyGuard.note`), never beside the
paragraph text came from."""

import pytest

from slea.security.key_leaks import NOTE, KeyedItem, KeyGuard


def keyed_on_a(item_id: str, stem: str, *choices: str) -> KeyedItem:
    """A multiple-choice item whose key is choice A."""
    return KeyedItem(question_type="multiple_choice", stem=stem, choices=choices, correct_answer="A", item_id=item_id)


OWN = keyed_on_a(
    "own", "What is TRIZ?", "A) An inventive problem-solving method.", "B) A structured evaluation before deployment."
)
KEYED_ON_THE_PICK = keyed_on_a(
    "other",
    "A team observes: performed before deployment; examines effects on affected groups. Which concept?",
    "A) Algorithmic Impact Assessment",
    "B) TRIZ",
)
KEYED_ELSEWHERE = keyed_on_a(
    "elsewhere", "Which method splits data on feature thresholds?", "A) Decision Tree Analysis", "B) TRIZ"
)
SAID = "The option you chose is the definition of a different concept: Algorithmic Impact Assessment."


@pytest.mark.parametrize("unanswered", [KEYED_ON_THE_PICK, KEYED_ELSEWHERE], ids=["keyed-on-pick", "keyed-elsewhere"])
def test_the_naming_is_held_back_whatever_the_unanswered_items_are_keyed_on(unanswered):
    guard = KeyGuard(OWN, [unanswered])
    text = f"Review the concept this question is about. {SAID}"
    assert guard.naming(text, "algorithmic  impact assessment") == "Review the concept this question is about."
    assert guard.naming(SAID, "Algorithmic Impact Assessment") is None  # nothing left of it
    assert guard.withheld_for == {unanswered.item_id}
    assert guard.withheld.sentences == 2
    assert guard.note() == NOTE["en"]  # one note, which the caller puts at the end


def test_nothing_is_held_back_once_every_other_item_is_answered_nor_what_the_page_shows():
    alone = KeyGuard(OWN, [])
    assert alone.naming(SAID, "Algorithmic Impact Assessment") == SAID
    assert alone.note() is None
    quoted = "Your answer: Algorithmic Impact Assessment"
    guard = KeyGuard(OWN, [KEYED_ON_THE_PICK], on_page=frozenset({quoted}))
    assert guard.naming(f"{quoted}\n\n{SAID}", "Algorithmic Impact Assessment") == quoted
