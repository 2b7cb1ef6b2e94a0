"""learner.js's pure functions run in Node (on the machine, v20): a test's harness script loads it
as the browser does (i18n.js first), with stubs for the page-wiring half."""

import json
import shutil
import subprocess
from typing import Any

from slea_local import REPO_ROOT

LEARNER_JS = REPO_ROOT / "functions" / "web" / "static" / "learner.js"


def run_in_node(harness: str, request: dict[str, Any]) -> Any:
    """What `harness` (a Node script: learner.js's path is its argument, `request` as JSON its
    input) writes as JSON; it must exit 0."""
    node = shutil.which("node")
    assert node, "the learner page's JS tests need Node.js (on the machine: /usr/bin/node)"
    done = subprocess.run(
        [node, "-e", harness, str(LEARNER_JS)],
        input=json.dumps(request),
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
