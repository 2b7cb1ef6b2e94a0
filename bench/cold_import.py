"""Cold import of each handler module in a fresh interpreter, as a ratio to `import boto3` plus
creating one client (what any Lambda function talking to DynamoDB pays anyway). Median of runs.

    python bench/cold_import.py [--runs 9]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from slea_local.template import repository_template  # noqa: E402

BASELINE = "import boto3; boto3.client('dynamodb', region_name='us-east-1')"
TIMED = """
import time, importlib.util
start = time.perf_counter()
{code}
print((time.perf_counter() - start) * 1000)
"""
IMPORT_HANDLER = """
spec = importlib.util.spec_from_file_location("app", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
"""


def _milliseconds(code: str, environment: dict[str, str]) -> float:
    output = subprocess.run(
        [sys.executable, "-c", TIMED.format(code=code)], capture_output=True, text=True, check=True, env=environment
    )
    return float(output.stdout.strip().splitlines()[-1])


def measure(runs: int) -> dict[str, dict[str, float]]:
    template = repository_template()
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT / "layers" / "slea"),
        "AWS_DEFAULT_REGION": "us-east-1",
        "POWERTOOLS_SERVICE_NAME": "bench",
        "POWERTOOLS_METRICS_NAMESPACE": "bench",
        # As in a real execution environment: the X-Ray SDK and Powertools' Tracer detect Lambda
        # from LAMBDA_TASK_ROOT (local sampling, no sampling client; tracing on, boto patched).
        "LAMBDA_TASK_ROOT": str(REPO_ROOT),
        "AWS_LAMBDA_FUNCTION_NAME": "bench",
    }
    handlers = {
        Path(spec["Properties"]["CodeUri"]).name: REPO_ROOT / spec["Properties"]["CodeUri"] / "app.py"
        for spec in template.of_type("AWS::Serverless::Function").values()
    }
    results: dict[str, list[float]] = {"baseline": [], **{name: [] for name in handlers}}
    for _ in range(runs):  # interleaved, so drift in machine load hits all alike
        results["baseline"].append(_milliseconds(BASELINE, environment))
        for name, path in handlers.items():
            results[name].append(_milliseconds(IMPORT_HANDLER.format(path=str(path)), environment))
    baseline = statistics.median(results["baseline"])
    return {
        name: {"median_ms": round(statistics.median(times), 1), "ratio": round(statistics.median(times) / baseline, 2)}
        for name, times in results.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    print(json.dumps(measure(parser.parse_args().runs), indent=2))


if __name__ == "__main__":
    main()
