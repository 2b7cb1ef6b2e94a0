"""Near-duplicate stems (slea.authoring.question_quality), shared by Tool 4 and the offline generator."""

import difflib

from slea.authoring.question_quality import StemIndex, near_duplicate_of, normalised

# 238 characters each, differing in two words ("travel"/"expense", "stage"/"step").
LONG = (
    "A retrieval-augmented generation pipeline answers questions about internal policy documents, but users "
    "report that answers cite outdated versions of the travel policy. Which change to the retrieval stage most "
    "directly addresses this problem?"
)
LONG_REWORDED = LONG.replace("travel", "expense").replace("retrieval stage", "retrieval step")
LONG_OTHER = (
    "An agent that plans multi-step tasks calls external tools through a gateway and sometimes repeats a payment "
    "call after a timeout. Which design change makes the repeated call safe without losing the ability to retry "
    "failed requests?"
)


def test_a_long_near_duplicate_is_found_where_difflib_missed_it():
    mine, other = normalised(LONG), normalised(LONG_REWORDED)
    assert len(mine) >= 200
    # difflib's autojunk heuristic ignores characters common in strings of 200+: it saw these as different.
    assert difflib.SequenceMatcher(None, mine, other).ratio() < 0.9
    assert near_duplicate_of(LONG_REWORDED, [LONG]) == 0


def test_distinct_long_stems_are_not_near_duplicates():
    assert near_duplicate_of(LONG_OTHER, [LONG, LONG_REWORDED]) is None
    assert near_duplicate_of(LONG, [LONG_OTHER]) is None


def test_short_stems_count_only_when_identical():
    assert near_duplicate_of("What is RAG?", ["What is LoRA?"]) is None
    assert near_duplicate_of("What is RAG?", ["what is  rag"]) == 0


def test_the_first_matching_stem_is_named_and_empty_ones_are_skipped():
    others = ["", "Explain LoRA fine tuning in practice", LONG_OTHER, "Explain LoRA fine-tuning in practice."]
    assert near_duplicate_of("Explain LoRA fine-tuning in practice", others) == 1
    assert near_duplicate_of("", ["", "x"]) is None


def test_the_earliest_match_wins_whether_identical_or_similar():
    assert near_duplicate_of("A, B!", ["c", "a b", "a b"]) == 1  # "A, B!" normalises to "a b"
    assert near_duplicate_of(LONG, ["Unrelated", LONG_REWORDED, LONG]) == 1
    assert near_duplicate_of(LONG_REWORDED, [LONG_OTHER, LONG_REWORDED, LONG]) == 1


def test_an_index_grown_one_stem_at_a_time_answers_as_the_list_does():
    stems = [LONG, "What is RAG?", "", LONG_OTHER, "What is RAG", LONG_REWORDED]
    index = StemIndex()
    for position, stem in enumerate(stems):
        assert index.first_match(stem) == near_duplicate_of(stem, stems[:position])
        index.add(stem)
    assert len(index) == len(stems)
