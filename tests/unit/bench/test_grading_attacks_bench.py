"""bench/grading_attacks.py in both languages: no attack is finalised as correct, another
question's reference is never marked correct, a shuffled or spliced one seldom even
provisionally, every non-answer is final and incorrect, and honest
answers are graded the same with the defences in the way as without them."""

from bench import grading_attacks


def test_no_attack_is_finalised_and_honest_answers_are_unchanged():
    results = grading_attacks.measure()
    assert set(results) == {"english", "korean"}
    for kinds in results.values():
        for kind in ("shuffled", "spliced", "word_salad", "other_reference", "non_answer"):
            assert kinds[kind]["cases"] > 0
            assert kinds[kind]["finalised_correct"] == 0, kind
        assert kinds["other_reference"]["marked_correct"] == 0
        # Shuffled and spliced references marked correct even provisionally: at most 1 in 12 (10 of
        # 150 English splices, 3 of 100 Korean shuffles when written; 97 and 13 before the rules).
        for kind in ("shuffled", "spliced"):
            assert kinds[kind]["marked_correct"] <= kinds[kind]["cases"] / 12, kind
        assert kinds["non_answer"]["finalised_incorrect"] == kinds["non_answer"]["cases"]
        assert kinds["non_answer"]["queued"] == 0
        for honest in ("honest_textbook", "honest_paraphrase"):
            assert kinds[honest] == kinds[f"{honest}_alone"]
