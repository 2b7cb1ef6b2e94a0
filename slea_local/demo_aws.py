"""The local AWS most callers want: template.yaml's resources in moto, the demo seed loaded, and
a runtime to invoke the functions (the CLI, the demo and bench/ share it)."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from slea_local import REPO_ROOT
from slea_local.cloud import LocalCloud, prepare_process_environment
from slea_local.runtime import LocalRuntime

if TYPE_CHECKING:  # the demo loads moto's Step Functions interpreter: only when asked for
    from slea_local.review_demo import ReviewDemo

DEMO_SEED = REPO_ROOT / "data" / "demo_seed.json"
DEMO_USER = "550e8400-e29b-41d4-a716-446655440000"


@dataclass
class SeededAWS:
    cloud: LocalCloud
    runtime: LocalRuntime
    written: dict[str, int]
    review_demo: "ReviewDemo | None" = None  # what the simulated learners left for reviewers, if asked for


@contextmanager
def seeded_local_aws(
    seed: Path = DEMO_SEED, fast_transactions: bool = True, review_demo: bool = False
) -> Iterator[SeededAWS]:
    """`review_demo`: simulated learners also answer shared short-answer items, so the review
    desk opens on groups of several answers (slea_local.review_demo; `serve` asks for it, tests
    and benchmarks that count records do not)."""
    prepare_process_environment()
    from ops.seed import load_seed

    with LocalCloud(fast_transactions=fast_transactions) as cloud:
        with cloud.environment(cloud.seed_environment()):
            written = load_seed(json.loads(seed.read_text(encoding="utf-8")))
        runtime = LocalRuntime(cloud)
        demo = None
        if review_demo:
            from slea_local.review_demo import seed_review_groups

            demo = seed_review_groups(runtime)
        yield SeededAWS(cloud, runtime, written, demo)
