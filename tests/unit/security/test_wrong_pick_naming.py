"""A wrong pick's feedback names the concept the option came from; when that concept is the key
of a choice item the learner has not answered, the option's text on the page and the name answer
that item together, so the naming sentence is held back (and delivered with the rest later)."""

from slea.security.key_leaks import NOTE, KeyedItem, KeyGuard

OWN = KeyedItem(
    question_type="multiple_choice",
    stem="What is TRIZ?",
    choices=("A) An inventive problem-solving method.", "B) A structured evaluation before deployment."),
    correct_answer="A",
    item_id="own",
)
OTHER = KeyedItem(
    question_type="multiple_choice",
    stem="A team observes: performed before deployment; examines effects on affected groups. Which concept?",
    choices=("A) Algorithmic Impact Assessment", "B) TRIZ"),
    correct_answer="A",
    item_id="other",
)
SAID = "The option you chose is the definition of a different concept: Algorithmic Impact Assessment."


def test_naming_an_unanswered_items_key_is_held_back_and_noted():
    guard = KeyGuard(OWN, [OTHER])
    assert guard.naming(SAID, "Algorithmic Impact Assessment") == NOTE["en"]
    assert guard.withheld_for == {"other"}
    assert guard.withheld.sentences == 1


def test_the_rest_of_a_paragraph_stays_and_other_names_pass():
    guard = KeyGuard(OWN, [OTHER])
    text = f"Review the concept this question is about. {SAID}"
    assert (
        guard.naming(text, "algorithmic  impact assessment")
        == f"Review the concept this question is about. {NOTE['en']}"
    )
    assert KeyGuard(OWN, [OTHER]).naming(SAID, "Decision Tree Analysis") == SAID
    assert KeyGuard(OWN, []).naming(SAID, "Algorithmic Impact Assessment") == SAID  # nothing unanswered
