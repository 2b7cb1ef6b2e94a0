"""The filling rule of a round its concept record cannot write in full, and the reason a round
that still comes short gives (logic/rounds/shortfall.py), pure."""

import pytest

from slea.contracts.pipeline import PipelineOutput
from slea.logic.rounds.shortfall import FILL_DISTANCE, fill_difficulties, shortfall_reason


def test_neighbours_nearest_first_the_easier_before_the_harder():
    assert fill_difficulties(5, set_in_request=False) == [4, 6, 3, 7]


@pytest.mark.parametrize(("label", "expected"), [(1, [2, 3]), (2, [1, 3, 4]), (10, [9, 8]), (9, [8, 10, 7])])
def test_neighbours_stay_on_the_scale(label, expected):
    assert fill_difficulties(label, set_in_request=False) == expected


def test_neighbours_stay_within_the_banks_widest_window():
    from slea.logic.rounds.bank_draw import WINDOWS
    from slea.measurement import scale

    for label in range(1, 11):
        for other in fill_difficulties(label, set_in_request=False):
            assert abs(scale.label_to_b(other) - scale.label_to_b(label)) <= WINDOWS[-1]
            assert abs(other - label) <= FILL_DISTANCE


def test_a_difficulty_set_in_the_request_is_not_filled_from_others():
    assert fill_difficulties(5, set_in_request=True) == []


def test_a_whole_round_has_no_shortfall():
    assert shortfall_reason(10, 10, unwritten=0, rejected=3, refused=0) is None


@pytest.mark.parametrize(
    ("unwritten", "rejected", "refused", "reason"),
    [
        (2, 0, 0, "too_few_concepts"),
        (1, 4, 1, "too_few_concepts"),  # the writer's last pass came short: more passes would not help
        (0, 3, 0, "rejected"),
        (0, 0, 1, "not_saved"),
        (0, 0, 0, "generation_failed"),
    ],
)
def test_the_reason_for_a_short_round(unwritten, rejected, refused, reason):
    assert shortfall_reason(10, 6, unwritten=unwritten, rejected=rejected, refused=refused) == reason


def test_every_reason_is_one_the_contract_allows():
    for case in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 0)]:
        reason = shortfall_reason(2, 1, unwritten=case[0], rejected=case[1], refused=case[2])
        PipelineOutput(questions=[], total_generated=0, total_valid=0, total_rejected=0, shortfall_reason=reason)
