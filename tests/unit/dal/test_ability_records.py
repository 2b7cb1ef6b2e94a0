"""The learner's ability records (slea.dal.abilities) as built from stored items, without AWS:
typed values from DynamoDB's numbers and sets, what an item may lack, and a history point's event."""

from decimal import Decimal

from slea.dal import abilities
from slea.dal.wire_format import from_item, to_item


def read_back(item):
    """An item as DynamoDB returns it to a read (to_item, then from_item as the reads do)."""
    return from_item(to_item(item))


def test_an_answered_item_reads_as_typed_values():
    stored = abilities.stored_ability(
        read_back(
            {
                "user_id": "u",
                "entry": "ability#technical",
                "category": "technical",
                "posterior": [Decimal("0"), Decimal("-1.5")],
                "theta": Decimal("1"),
                "se": Decimal("0.42"),
                "answers": 4,
                "skipped": 2,
                "pending_review": 1,
                "updated_at": "2026-11-24T10:00:00.000Z",
                "version": 7,
                "seen_items": {"q2", "q1"},
                "seen_recent": ["f1", "f2"],
                "review": {"reason": "aberrant answers", "flagged_at": "2026-11-27T06:00:00Z"},
            }
        )
    )
    assert stored == abilities.StoredAbility(
        category="technical",
        estimate=abilities.AbilityEstimate(
            category="technical",
            theta=1.0,
            se=0.42,
            answers=4,
            updated_at="2026-11-24T10:00:00.000Z",
            skipped=2,
            pending_review=1,
        ),
        posterior=(0.0, -1.5),
        version=7,
        seen_items=frozenset({"q1", "q2"}),
        seen_recent=("f1", "f2"),
        flagged=True,
    )
    # Numbers are floats and ints whatever DynamoDB's Decimal held (an integral theta reads back as 1).
    assert stored.estimate is not None
    assert [type(value) for value in (stored.estimate.theta, *stored.posterior)] == [float, float, float]


def test_an_item_mark_seen_created_before_any_answer_has_no_estimate():
    stored = abilities.stored_ability(
        read_back({"user_id": "u", "entry": "ability#business", "seen_items": {"q1"}, "seen_recent": ["f1"]})
    )
    assert stored == abilities.StoredAbility(category="business", seen_items=frozenset({"q1"}), seen_recent=("f1",))
    assert (stored.estimate, stored.posterior, stored.version, stored.flagged) == (None, (), None, False)


def test_an_item_put_by_hand_with_an_estimate_alone_reads_as_no_answer_counted():
    stored = abilities.stored_ability({"entry": "ability#technical", "theta": 0, "se": 1})
    assert stored.estimate == abilities.AbilityEstimate("technical", 0.0, 1.0, answers=0, updated_at="")
    assert abilities.stored_ability({"entry": "ability#technical", "theta": 0.3}).estimate is None  # no se


def test_a_history_points_event_is_read_from_the_key_it_was_written_under():
    def point(suffix):
        entry = abilities.history_entry("technical", "2026-11-24T10:00:00.000Z", suffix)
        item = {"entry": entry, "category": "technical", "at": "2026-11-24T10:00:00.000Z", "theta": 1, "se": 0.5}
        return abilities.history_point(read_back(item))

    answer = point("q1#abc")
    assert answer == abilities.HistoryPoint("technical", "2026-11-24T10:00:00.000Z", 1.0, 0.5, "answer")
    assert point(abilities.review_point("q1#abc")).event == "review"
    assert point(abilities.skipped_point("s1", "q2")).event == "skipped"


def test_a_change_applied_to_an_ability_adds_its_counts_and_keeps_what_it_does_not_write():
    before = abilities.StoredAbility(
        category="technical",
        estimate=abilities.AbilityEstimate("technical", 0.1, 0.8, 2, "t0", skipped=1, pending_review=1),
        posterior=(0.0, -1.0),
        version=3,
        seen_items=frozenset({"q1"}),
        seen_recent=("f1",),
        flagged=True,
    )
    change = abilities.AbilityChange(
        user_id="u",
        category="technical",
        posterior=[-0.5, 0.0],
        theta=-0.2,
        se=0.7,
        answers=2,
        read_version=3,
        at="t1",
        point_suffix=abilities.skipped_point("s", "q2"),
        skipped=3,
        pending=-1,
    )
    assert abilities.applied(change, before) == abilities.StoredAbility(
        category="technical",
        estimate=abilities.AbilityEstimate("technical", -0.2, 0.7, 2, "t1", skipped=4, pending_review=0),
        posterior=(-0.5, 0.0),
        version=4,
        seen_items=frozenset({"q1"}),
        seen_recent=("f1",),
        flagged=True,
    )
    first = abilities.applied(
        abilities.AbilityChange("u", "business", [0.0], 0.5, 0.9, 1, None, "t", "q#k", seen_item="q9", pending=1), None
    )
    assert first.estimate == abilities.AbilityEstimate("business", 0.5, 0.9, 1, "t", skipped=0, pending_review=1)
    assert (first.version, first.seen_items) == (1, frozenset({"q9"}))
