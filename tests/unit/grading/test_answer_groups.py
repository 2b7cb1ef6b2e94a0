"""Answer groups and exemplars (slea.grading.answer_groups): a reviewed verdict reaches a new answer
only from exemplars that agree, never to an answer that negates them, never as "correct" to a
flagged answer; waiting answers that say the same thing share a group."""

from slea.grading import answer_groups
from slea.grading.answer_groups import (
    Closeness,
    Exemplar,
    Graded,
    Group,
    assign,
    contradicts,
    negations_differ,
    propagate,
)

RIGHT = "the bulb is in a closed path with the battery"
RIGHT_AGAIN = "The bulb is in a closed path with the battery."
RIGHT_TYPO = "the bulb is in a closed pathh with the batery"
WRONG = "the switch is open so no current can flow to anything"
NEGATED = "the bulb is not in a closed path with the battery"


def exemplar(text: str, correct: bool, name: str = "", probability: float | None = None) -> Exemplar:
    return Exemplar(name or text[:12], text, correct, 100 if correct else 0, probability)


def test_closeness_is_one_for_the_same_words_and_low_for_other_words():
    closeness = Closeness([RIGHT, RIGHT_AGAIN, RIGHT_TYPO, WRONG])
    assert closeness(RIGHT, RIGHT_AGAIN) == 1.0
    assert closeness(RIGHT, RIGHT_TYPO) > 0.6
    assert closeness(RIGHT, WRONG) < 0.3
    assert closeness(RIGHT, RIGHT_TYPO) == closeness(RIGHT_TYPO, RIGHT)


def test_closeness_reads_hangul():
    closeness = Closeness(
        ["전구가 배터리와 닫힌 회로에 있다", "전구는 배터리와 닫힌 회로에 있어요", "스위치가 열려 있다"]
    )
    assert closeness("전구가 배터리와 닫힌 회로에 있다", "전구는 배터리와 닫힌 회로에 있어요") > closeness(
        "전구가 배터리와 닫힌 회로에 있다", "스위치가 열려 있다"
    )


def test_no_exemplar_no_verdict():
    assert propagate(Graded(RIGHT), []).correct is None


def test_agreeing_close_exemplars_finalise_their_verdict():
    exemplars = [exemplar(RIGHT, True, "e1"), exemplar(RIGHT_TYPO, True, "e3"), exemplar(WRONG, False, "e2")]
    found = propagate(Graded(RIGHT_AGAIN), exemplars)
    assert found.correct is True
    assert found.exemplar_ids == ("e1", "e3")
    assert found.score == 100
    # one exemplar alone is not enough support with the chosen constants
    assert answer_groups.PROPAGATE_SUPPORT == 2
    assert propagate(Graded(RIGHT_AGAIN), exemplars[:1]).correct is None


def test_wrong_exemplars_finalise_a_copy_of_them_as_incorrect():
    exemplars = [exemplar(WRONG, False, "e2"), exemplar(WRONG + "!", False, "e4"), exemplar(RIGHT, True, "e1")]
    found = propagate(Graded(WRONG + "."), exemplars)
    assert found.correct is False


def test_disagreeing_exemplars_near_the_answer_send_it_to_review():
    exemplars = [exemplar(RIGHT, True, "e1"), exemplar(RIGHT_TYPO, False, "e3")]
    found = propagate(Graded(RIGHT_AGAIN), exemplars)
    assert found.correct is None
    assert found.conflict


def test_a_negated_copy_of_a_correct_exemplar_is_not_given_its_verdict():
    assert contradicts(NEGATED, RIGHT)
    settings = answer_groups.Settings(propagate_similarity=0.5, propagate_support=1)
    assert propagate(Graded(NEGATED), [exemplar(RIGHT, True)], settings=settings).correct is None
    assert propagate(Graded(RIGHT_AGAIN), [exemplar(RIGHT, True)], settings=settings).correct is True


def test_a_flagged_answer_is_never_finalised_as_correct_by_exemplars():
    rights = [exemplar(RIGHT, True, "e1"), exemplar(RIGHT + ".", True, "e2")]
    assert propagate(Graded(RIGHT_AGAIN, flagged=True), rights).correct is None
    # ... but a flagged copy of a wrong answer may be failed like it
    wrongs = [exemplar(WRONG, False, "e3"), exemplar(WRONG + ".", False, "e4")]
    assert propagate(Graded(WRONG + "!", flagged=True), wrongs).correct is False


def test_grader_evidence_far_apart_keeps_a_close_text_from_the_verdict():
    settings = answer_groups.Settings(propagate_probability_gap=0.2, propagate_support=1)
    near = propagate(Graded(RIGHT_AGAIN, 0.7), [exemplar(RIGHT, True, probability=0.8)], settings=settings)
    far = propagate(Graded(RIGHT_AGAIN, 0.2), [exemplar(RIGHT, True, probability=0.8)], settings=settings)
    assert near.correct is True
    assert far.correct is None


def test_support_asks_for_several_agreeing_exemplars():
    settings = answer_groups.Settings(propagate_support=2)
    assert propagate(Graded(RIGHT_AGAIN), [exemplar(RIGHT, True, "e1")], settings=settings).correct is None
    two = [exemplar(RIGHT, True, "e1"), exemplar(RIGHT_TYPO, True, "e2")]
    assert propagate(Graded(RIGHT_AGAIN), two, settings=settings).correct is True


def test_waiting_answers_that_say_the_same_thing_share_a_group():
    groups = [Group("g1", Graded(RIGHT, 0.8), ["a1"]), Group("g2", Graded(WRONG, 0.1), ["a2"])]
    settings = answer_groups.Settings(group_similarity=0.5, group_probability_gap=0.2)
    assert assign(Graded(RIGHT_TYPO, 0.75), groups, settings=settings) == 0
    assert assign(Graded(WRONG + ".", 0.15), groups, settings=settings) == 1
    assert assign(Graded("a completely different idea about magnets", 0.5), groups, settings=settings) is None
    assert assign(Graded(RIGHT), [], settings=settings) is None


def test_groups_keep_flagged_answers_and_contradictions_apart():
    groups = [Group("g1", Graded(RIGHT, 0.8), ["a1"])]
    settings = answer_groups.Settings(group_similarity=0.3, group_probability_gap=1.0)
    assert assign(Graded(RIGHT_AGAIN, 0.8, flagged=True), groups, settings=settings) is None
    assert assign(Graded(NEGATED, 0.8), groups, settings=settings) is None


def test_grader_evidence_groups_answers_in_other_words_only_within_its_band():
    groups = [Group("g1", Graded(RIGHT, 0.9), ["a1"])]
    settings = answer_groups.Settings(group_similarity=0.0, group_probability_gap=0.2, group_same_wording=0.7)
    assert assign(Graded("current flows around the loop", 0.85), groups, settings=settings) == 0
    assert assign(Graded("current flows around the loop", 0.3), groups, settings=settings) is None
    # the same wording joins whatever the grader thought
    assert assign(Graded(RIGHT_AGAIN, 0.3), groups, settings=settings) == 0


def test_a_negation_more_or_less_is_a_different_claim():
    # The reference-comparison rules may let this pass (a reference stating a term both ways); between
    # an answer and the near copy whose verdict it would take, it is a different claim.
    negated = "a security group is not stateful and is attached to instances"
    plain = "a security group is stateful and is attached to instances"
    assert negations_differ(negated, plain)
    assert not negations_differ(plain + ".", plain)
    exemplars = [exemplar(plain, True, "e1"), exemplar(plain + ".", True, "e2")]
    settings = answer_groups.Settings(propagate_similarity=0.5)
    assert propagate(Graded(negated), exemplars, settings=settings).correct is None
    assert propagate(Graded(plain + "!"), exemplars, settings=settings).correct is True


# ---------------------------------------------------------------- leans and item-calibrated propagation
LOOP = "current flows around the closed loop through the bulb"
OPEN = "the battery is strong so the bulb shines very bright"


def test_an_answers_lean_moves_from_the_graders_probability_toward_its_nearest_exemplars():
    rights = [exemplar(LOOP, True, "e1"), exemplar(LOOP + " and back", True, "e2")]
    wrongs = [exemplar(OPEN, False, "e3"), exemplar(OPEN + " at all", False, "e4")]
    closeness = Closeness([LOOP, OPEN, *(e.text for e in rights + wrongs)])
    assert answer_groups.lean(Graded(LOOP + ".", 0.5), [], closeness) == 0.5
    assert answer_groups.lean(Graded("anything", None), [], closeness) is None
    near_rights = answer_groups.lean(Graded(LOOP + ".", 0.5), rights + wrongs, closeness)
    near_wrongs = answer_groups.lean(Graded(OPEN + ".", 0.5), rights + wrongs, closeness)
    assert near_rights is not None
    assert near_wrongs is not None
    assert near_rights > 0.7
    assert near_wrongs < 0.3


def test_with_exemplars_answers_the_grader_scored_alike_but_reviewers_would_not_are_kept_apart():
    exemplars = [
        exemplar(LOOP, True, "e1"),
        exemplar(LOOP + " and back", True, "e2"),
        exemplar(OPEN, False, "e3"),
        exemplar(OPEN + " at all", False, "e4"),
    ]
    groups = [Group("g1", Graded(LOOP + " again", 0.5), ["a1"])]
    settings = answer_groups.Settings(group_probability_gap=0.3)
    # The grader gave both 0.5: on its probability alone they share a group ...
    assert assign(Graded(OPEN + " now", 0.5), groups, settings=settings) == 0
    # ... the item's reviews say one is right and the other wrong: two groups.
    assert assign(Graded(OPEN + " now", 0.5), groups, settings=settings, exemplars=exemplars) is None
    assert assign(Graded(LOOP + " once more", 0.5), groups, settings=settings, exemplars=exemplars) == 0


def test_an_item_whose_reviews_split_between_near_copies_propagates_nothing_that_close():
    # Reviewers graded two near copies apart (0.9+ close): on this item closeness that high does
    # not decide a verdict, so an answer as close to agreeing exemplars is not finalised.
    split = [exemplar(RIGHT, True, "e1"), exemplar(RIGHT_AGAIN + " indeed", False, "e2")]
    agreeing = [exemplar(WRONG, False, "e3"), exemplar(WRONG + " at all", False, "e4")]
    answer = Graded("the switch is open so no current flows")
    closeness = Closeness([RIGHT, RIGHT_AGAIN + " indeed", WRONG, WRONG + " at all", answer.text])
    ceiling = answer_groups.disagreement_ceiling(split + agreeing, closeness)
    assert ceiling == closeness(RIGHT, RIGHT_AGAIN + " indeed")
    assert ceiling > 0.7
    calibrated = answer_groups.Settings(
        propagate_similarity=0.5, propagate_disagreement_margin=0.05, propagate_same_terms=False
    )
    plain = answer_groups.Settings(
        propagate_similarity=0.5, propagate_disagreement_margin=None, propagate_same_terms=False
    )
    assert 0.5 < closeness(answer.text, WRONG) < ceiling + 0.05  # the answer is not that close to its exemplars
    assert propagate(answer, split + agreeing, closeness, plain).correct is False
    assert propagate(answer, split + agreeing, closeness, calibrated).correct is None
    # Where the item's reviews agreed with the wording, the same answer is finalised.
    assert propagate(answer, agreeing, closeness, calibrated).correct is False
    assert answer_groups.disagreement_ceiling(agreeing, closeness) == 0.0


def test_a_near_copy_that_leaves_out_part_of_a_wrong_answer_or_adds_to_a_right_one_is_not_given_its_verdict():
    # Graders failed the answer naming the extra private range; the one without it was right,
    # though its characters are nearly all the wrong answer's.
    wrong = "0.0.0.0/8 10.0.0.0/8 127.0.0.0/8"
    wrongs = [exemplar(wrong, False, "e1"), exemplar(wrong + ".", False, "e2")]
    assert answer_groups.claims_beyond(wrong, "0.0.0.0/8 127.0.0.0/8")
    shorter = Graded("0.0.0.0/8 127.0.0.0/8")
    loose = answer_groups.Settings(propagate_similarity=0.5, propagate_same_terms=False)
    assert propagate(shorter, wrongs, settings=loose).correct is False
    assert propagate(shorter, wrongs).correct is None
    # A right answer with a claim added is not vouched for by the right answer.
    rights = [exemplar(RIGHT, True, "e3"), exemplar(RIGHT + ".", True, "e4")]
    assert propagate(Graded(RIGHT + " and a fuse"), rights, settings=loose).correct is True
    assert propagate(Graded(RIGHT + " and a fuse"), rights).correct is None
    # What only restates, in other function words or inflections, still is.
    assert propagate(Graded("The bulb is in the closed path with the battery!"), rights).correct is True


def test_a_slip_of_the_keyboard_is_not_a_claim_of_its_own():
    assert not answer_groups.claims_beyond(RIGHT_TYPO, RIGHT)
    assert answer_groups.claims_beyond("the current will decrease", "the current will increase")
    assert answer_groups.claims_beyond("0.0.0.0/8 10.0.0.0/8", "0.0.0.0/8 127.0.0.0/8")
