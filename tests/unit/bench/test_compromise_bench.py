"""bench/compromise.py on a few hundred items: the shipped setting keeps false rests rare and
rests leaked items more often when the key-holders sit below them; a grid setting is applied
for its run only."""

import argparse

from bench import compromise as bench
from slea.measurement import compromise


def _arguments(**changes):
    values = {"items": 300, "leak_after": 20, "key_share": 1.0, "theta_sd": 0.5, "seed": 1} | changes
    return argparse.Namespace(**values)


def test_the_shipped_setting_rests_few_good_items_and_more_leaked_ones():
    row = bench.run(bench.Setting(compromise.K, compromise.H, compromise.CAP), _arguments())
    assert row["false_rests"]["within_200"] <= 0.02
    at_level, below = row["leaked"]
    assert (at_level["holder_bias"], below["holder_bias"]) == (0.0, 1.0)
    assert below["rested_by_10"] > row["false_rests"]["within_200"]
    assert below["rested_by_10"] >= at_level["rested_by_10"]


def test_a_looser_setting_rests_more_of_both_and_the_module_is_left_as_it_was():
    shipped = (compromise.K, compromise.H, compromise.CAP)
    loose = bench.run(bench.Setting(0.5, 3.0, 3.0), _arguments())
    assert shipped == (compromise.K, compromise.H, compromise.CAP)
    strict = bench.run(bench.Setting(*shipped), _arguments())
    assert loose["false_rests"]["within_200"] > strict["false_rests"]["within_200"]
    assert loose["leaked"][1]["rested_by_10"] > strict["leaked"][1]["rested_by_10"]
