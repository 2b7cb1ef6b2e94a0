"""Another concept's reference pasted from ANOTHER session (through the HTTP API on the local AWS,
bench/pasted_references.py --across) is never marked correct: the first session's items left their
reference prints when Tool 5 saved them, and the second session's answers are checked against them."""

from bench import pasted_references


def test_references_of_another_sessions_items_are_never_marked_correct():
    found = pasted_references.measure(sessions=2, count=3, across=True)
    assert found["pasted"] > 0
    assert found["marked_correct"] == 0
    assert found["finalised"] == 0
