"""The MCP server (functions/mcp) warm, in-process, through its Lambda handler as API Gateway
invokes it: tools/list latency (target p95 < 100 ms) and a tools/call of each read tool (target:
every call < 25 s).

    python bench/mcp_server.py [--runs 200]
"""

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "layers" / "slea"))

from bench.command import print_measure  # noqa: E402
from slea_local.demo_aws import DEMO_USER, seeded_local_aws  # noqa: E402

USER = DEMO_USER
CALLS = {
    "get_difficulty_keywords": {"difficulty": 5, "category": "technical"},
    "search_question_templates": {"interests": ["LLM", "RAG"], "difficulty": 7, "category": "technical"},
    "get_user_profile": {"user_id": USER},
}


def _event(body: dict[str, Any]) -> dict[str, Any]:
    from slea_local.http import http_api_event

    headers = {
        "host": "bench.execute-api.us-east-1.amazonaws.com",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    return http_api_event(
        "POST",
        "/mcp",
        "",
        headers,
        body=json.dumps(body),
        claims={"sub": USER, "cognito:groups": ["authors"]},  # Tools 2 and 3 are authoring tools
        route_key="POST /mcp",
    )


def _p95(samples: list[float]) -> float:
    return round(statistics.quantiles(samples, n=20)[18], 2)


def measure(runs: int = 200) -> dict[str, Any]:
    with seeded_local_aws() as aws:
        runtime = aws.runtime
        listing = _event({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert runtime.invoke("McpFunction", listing)["statusCode"] == 200  # the cold one
        list_ms = []
        for _ in range(runs):
            started = time.perf_counter()
            answer = runtime.invoke("McpFunction", listing)
            list_ms.append((time.perf_counter() - started) * 1000)
            assert answer["statusCode"] == 200
        call_ms: dict[str, float] = {}
        for name, arguments in CALLS.items():
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
            started = time.perf_counter()
            answer = runtime.invoke("McpFunction", _event(body))
            call_ms[name] = round((time.perf_counter() - started) * 1000, 2)
            assert not json.loads(answer["body"])["result"].get("isError"), answer
    return {
        "tools_list_warm_p95_ms": _p95(list_ms),
        "tools_list_warm_median_ms": round(statistics.median(list_ms), 2),
        "tools_list_target_p95_ms": 100,
        "tool_call_ms": call_ms,
        "tool_call_target_ms": 25_000,
    }


def main() -> None:
    print_measure(measure, __doc__, ("--runs", 200))


if __name__ == "__main__":
    main()
