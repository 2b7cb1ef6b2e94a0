"""Without a Gemini key, google-genai is never imported (it would dominate the cold start)."""

import json
import os
import subprocess
import sys

import pytest

from slea_local import REPO_ROOT

pytestmark = pytest.mark.slow  # a fresh interpreter

# The generation step reads the id secret (the order of choices is keyed): it runs against the
# local cloud, with its template environment.
SCRIPT = """
import json, sys
from slea_local.cloud import LocalCloud, prepare_process_environment
prepare_process_environment()
from slea_local.runtime import LocalRuntime

with LocalCloud() as cloud:
    runtime = LocalRuntime(cloud)
    event = json.load(open("events/generate_questions/valid.json"))
    drafts = runtime.invoke("generate_questions", event)["questions"]
    runtime.invoke(
        "validate_question_quality",
        {"stem": [d["stem"] for d in drafts], "question_type": [d["type"] for d in drafts], "batch": True},
    )
print(json.dumps(sorted(name for name in sys.modules if name.startswith("google"))))
"""


def test_google_genai_is_not_imported_on_the_offline_path():
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("GEMINI", "LLM_"))}
    environment["PYTHONPATH"] = f"{REPO_ROOT / 'layers' / 'slea'}:{REPO_ROOT}"
    environment["POWERTOOLS_LOG_LEVEL"] = "ERROR"
    output = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO_ROOT, env=environment, capture_output=True, text=True, check=True
    )
    assert json.loads(output.stdout.strip().splitlines()[-1]) == []
