"""Exposure spread in choose_items (`band`): among near-equally informative items the least shown
come first, nothing outside the band is drawn while the band holds enough, and without a band the
draw is the randomesque top five it was."""

import random
from collections import Counter

from slea.measurement import irt, selection


def _bank() -> list[selection.Candidate]:
    target = irt.aimed_difficulty(0.0, 0.7)
    near = [selection.Candidate(f"near{k}", b=target + 0.04 * (k - 10), exposure_rate=0.02 * k) for k in range(20)]
    far = [selection.Candidate(f"far{k}", b=target + 2.0 + 0.1 * k) for k in range(10)]
    return near + far


def test_the_band_prefers_the_least_shown_of_the_near_items():
    bank = _bank()
    shown = Counter()
    for seed in range(200):
        for chosen in selection.choose_items(bank, 0.0, 0.7, 3, rng=random.Random(seed), band=0.5):
            shown[chosen.item_id] += 1
    assert not any(item.startswith("far") for item in shown)  # the band holds enough near items
    # Only the least exposed are drawn: near0..near6 at most (top five, then the next as they go).
    assert set(shown) <= {f"near{k}" for k in range(7)}
    assert len(set(shown)) >= 5  # still at random among them


def test_a_shown_item_waits_until_fresher_near_items_catch_up():
    target = irt.aimed_difficulty(0.0, 0.7)
    harvested = [selection.Candidate(f"h{k}", b=target, exposure_rate=0.15) for k in range(10)]
    fresh = [selection.Candidate(f"f{k}", b=target + 0.3, exposure_rate=0.05) for k in range(10)]
    for seed in range(50):
        chosen = selection.choose_items(harvested + fresh, 0.0, 0.7, 5, rng=random.Random(seed), band=0.5)
        assert all(c.item_id.startswith("f") for c in chosen)
    # Without a band the nearest five are drawn, whatever they were shown to.
    chosen = selection.choose_items(harvested + fresh, 0.0, 0.7, 5, rng=random.Random(1))
    assert all(c.item_id.startswith("h") for c in chosen)


def test_the_band_keeps_the_cap_and_takes_the_nearest_when_the_band_is_thin():
    target = irt.aimed_difficulty(0.0, 0.7)
    bank = [
        selection.Candidate("capped", b=target, exposure_rate=0.9),
        selection.Candidate("a", b=target + 1.0),
        selection.Candidate("b", b=target + 1.5),
    ]
    chosen = selection.choose_items(bank, 0.0, 0.7, 2, rng=random.Random(3), band=0.1)
    assert {c.item_id for c in chosen} == {"a", "b"}


def test_information_weights_the_draw():
    theta = 0.0
    informative = selection.Candidate("informative", b=irt.aimed_difficulty(theta, 0.7))
    weak = selection.Candidate("weak", b=irt.aimed_difficulty(theta, 0.7) - 1.0)  # easier: less informative
    first = Counter(
        selection.choose_items([informative, weak], theta, 0.7, 1, rng=random.Random(seed), band=1.0)[0].item_id
        for seed in range(400)
    )
    assert first["informative"] > first["weak"] > 0
