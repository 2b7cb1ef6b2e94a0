"""Two rules compared on the same simulated cohorts (docs/measurement.md, "How well it measures").

Each seed draws one cohort of learners and runs bench/cat_simulation.py's world under both rules;
the figures are each rule's mean (SD) over cohorts, how many cohorts meet the target, and the
mean paired difference with its standard error (the cohorts' own spread, which dwarfs a small
change, cancels in the difference).

- `--compare types`: a round's slots laid out by information (the product's rule) against the
  product before (the requested mix cycled, the bank drawing any type for any slot);
- `--compare prior`: the product's survey prior (means -1 / 0 / +1, SD 0.71) against a prior
  matched to the simulated world's self-assessment (each self-level's mean and SD of ability,
  measured on 400,000 simulated learners): how much a prior that knows the population buys.

    python bench/paired_simulation.py [--compare types|prior] [--cohorts 60] [--learners 40] [--default-mix]
"""

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path
from typing import Any
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from bench import cat_simulation as simulation  # noqa: E402
from slea.measurement import learner  # noqa: E402

FIGURES = {  # name: (run, answers, figure)
    "RMSE after 20, new bank": ("engine_new_bank_cohort1", "20", "rmse"),
    "mean SE after 20, new bank": ("engine_new_bank_cohort1", "20", "mean_se"),
    "bias after 20, new bank": ("engine_new_bank_cohort1", "20", "bias"),
    "coverage after 10, new bank": ("engine_new_bank_cohort1", "10", "coverage"),
    "coverage after 20, new bank": ("engine_new_bank_cohort1", "20", "coverage"),
    "RMSE after 20, calibrated": ("engine_calibrated", "20", "rmse"),
    "coverage after 20, calibrated": ("engine_calibrated", "20", "coverage"),
}
WORLD_SAMPLE = 400_000


def world_self_levels(seed: int = 0) -> dict[str, tuple[float, float]]:
    """Each self-level's mean and SD of ability in the simulated world (cat_simulation.learners)."""
    rng = random.Random(seed)
    groups: dict[str, list[float]] = {"beginner": [], "intermediate": [], "advanced": []}
    for _ in range(WORLD_SAMPLE):
        theta = rng.gauss(0.0, 1.0)
        felt = theta + rng.gauss(0.0, simulation.SELF_ASSESSMENT_SD)
        cut = simulation.SELF_LEVEL_CUT
        groups["beginner" if felt < -cut else "advanced" if felt > cut else "intermediate"].append(theta)
    return {level: (statistics.fmean(values), statistics.pstdev(values)) for level, values in groups.items()}


def matched_prior(levels: dict[str, tuple[float, float]]) -> Any:
    """cat_simulation's learners take their prior from `levels` while this is entered."""

    def prior(self_level: str, years_experience: float, previous_score: float) -> tuple[float, float]:
        return levels.get(self_level, (0.0, learner.PRIOR_SD))

    return mock.patch.object(simulation, "prior_from_profile", prior)


def world(types: str, default_mix: bool) -> simulation.World:
    if default_mix:
        return simulation.World(simulation.TYPE_MIX, False, types, None)
    return simulation.World(simulation.CHOICE_MIX, False, types, simulation.CHOICE_TYPES)


def figures(result: dict[str, Any]) -> dict[str, float]:
    return {name: float(result["theta"][run][n][figure]) for name, (run, n, figure) in FIGURES.items()}


def compare(kind: str, cohorts: int, learners: int, default_mix: bool) -> dict[str, Any]:
    levels = world_self_levels() if kind == "prior" else {}
    rows: dict[str, list[dict[str, float]]] = {"before": [], "now": []}
    for seed in range(1, cohorts + 1):
        if kind == "types":
            rows["before"].append(figures(simulation.measure(learners, seed, True, world("cycled", default_mix))))
            rows["now"].append(figures(simulation.measure(learners, seed, True, world("laid-out", default_mix))))
        else:
            rows["before"].append(figures(simulation.measure(learners, seed, True, world("laid-out", default_mix))))
            with matched_prior(levels):
                rows["now"].append(figures(simulation.measure(learners, seed, True, world("laid-out", default_mix))))
    summary: dict[str, Any] = {"compare": kind, "cohorts": cohorts, "learners": learners, "default_mix": default_mix}
    if levels:
        summary["world_self_levels"] = {level: [round(m, 3), round(sd, 3)] for level, (m, sd) in levels.items()}
    low, high = simulation.TARGET_COVERAGE
    for name in FIGURES:
        entry: dict[str, Any] = {}
        for rule in ("before", "now"):
            values = [row[name] for row in rows[rule]]
            met = None
            if name.startswith("RMSE"):
                met = sum(value <= simulation.TARGET_THETA_RMSE_20 for value in values)
            elif name.startswith("coverage"):
                met = sum(low <= value <= high for value in values)
            entry[rule] = {"mean": round(statistics.fmean(values), 4), "sd": round(statistics.pstdev(values), 4)}
            if met is not None:
                entry[rule]["cohorts_meeting_target"] = met
        differences = [now[name] - before[name] for now, before in zip(rows["now"], rows["before"], strict=True)]
        entry["difference"] = round(statistics.fmean(differences), 4)
        spread = statistics.stdev(differences) if len(differences) > 1 else math.nan
        entry["difference_se"] = round(spread / math.sqrt(len(differences)), 4)
        summary[name] = entry
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", choices=("types", "prior"), default="types")
    parser.add_argument("--cohorts", type=int, default=60)
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--default-mix", action="store_true", help="the default mix, not the API bench's choice items")
    arguments = parser.parse_args()
    result = compare(arguments.compare, arguments.cohorts, arguments.learners, arguments.default_mix)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
