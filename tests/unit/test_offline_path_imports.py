"""Without a Gemini key, google-genai is never imported (it would dominate the cold start)."""

import json
import os
import subprocess
import sys

from slea_local import REPO_ROOT

SCRIPT = """
import json, sys
from slea_local.cloud import prepare_process_environment
prepare_process_environment()
from slea_local.runtime import LambdaContext
import importlib.util

def handler(name):
    spec = importlib.util.spec_from_file_location(name, f"functions/{name}/app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.lambda_handler

event = json.load(open("events/generate_questions/valid.json"))
drafts = handler("generate_questions")(event, LambdaContext("generate"))["questions"]
handler("validate_question_quality")(
    {"stem": [d["stem"] for d in drafts], "question_type": [d["type"] for d in drafts], "batch": True},
    LambdaContext("validate"),
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
