"""The local server (`make serve`) stays responsive to everyone while one client stalls: a
connection that never finishes its request holds only its own thread, and is cut off; `GET /mcp`
with `Accept: text/event-stream` (which once never returned, and the server stopped answering
every route) is answered at once. These are about the server `make serve` runs by default, in
its development token mode (the bearer string is the subject); authorisation is tested with
signed tokens elsewhere."""

import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator

import httpx2
import pytest

from slea_local import REPO_ROOT
from slea_local.http import serve_in_background
from tests.integration.test_api import ALICE
from tests.integration.test_mcp import LEARNER_TOOLS, LIST


def test_a_stalled_client_does_not_hold_up_other_requests(step_functions):
    with serve_in_background(step_functions.runtime) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as stalled:
            stalled.sendall(b"POST /sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")  # never finished
            with urllib.request.urlopen(f"{url}/config.json", timeout=10) as response:
                assert response.status == 200


def test_a_client_that_dribbles_its_request_is_cut_off_at_the_whole_request_deadline(step_functions, monkeypatch):
    """Each byte arrives well within the read timeout, but the whole request does not arrive in
    time: the connection is closed at the deadline, not held for as long as the client likes."""

    from slea_local.http import QuietRequestHandler

    monkeypatch.setattr(QuietRequestHandler, "request_seconds", 1.0)
    with serve_in_background(step_functions.runtime) as url:
        host, port = url.removeprefix("http://").split(":")
        started = time.monotonic()
        with socket.create_connection((host, int(port))) as slow:
            slow.settimeout(0.3)
            slow.sendall(b"POST /sessions HTTP/1.1\r\nHost: x\r\n")
            closed = False
            while time.monotonic() - started < 8 and not closed:
                try:
                    slow.sendall(b"X")  # a header byte every 0.3 s, never the blank line
                    closed = slow.recv(1024) == b""
                except TimeoutError:
                    continue
                except OSError:  # reset: cut off
                    closed = True
        assert closed
        assert time.monotonic() - started < 5
        # Everyone else is served as before.
        with urllib.request.urlopen(f"{url}/config.json", timeout=10) as response:
            assert response.status == 200


# ---------------------------------------------------------------- GET /mcp answers at once
@pytest.fixture
def served() -> Iterator[str]:
    """`python -m slea_local serve` (what `make serve` runs) on an ephemeral port, in a process of
    its own: a request that hangs it cannot hang the tests."""
    server = subprocess.Popen(
        [sys.executable, "-m", "slea_local", "serve", "--port", "0"],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": f"{REPO_ROOT / 'layers' / 'slea'}:{REPO_ROOT}", "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    found: list[str] = []

    def read() -> None:  # until the server says where it listens; then keep the pipe drained
        assert server.stdout is not None
        for line in server.stdout:
            if line.startswith("slea-ssem on ") and not found:
                found.append(line.split()[-1])

    threading.Thread(target=read, daemon=True).start()
    try:
        for _ in range(1200):
            if found or server.poll() is not None:
                break
            time.sleep(0.05)
        assert found, "the local server did not start"
        yield found[0]
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_get_and_delete_mcp_answer_405_at_once_and_the_server_keeps_serving(served):
    bearer = {"Authorization": f"Bearer {ALICE}"}

    def list_tools() -> set[str]:
        listed = httpx2.post(
            f"{served}/mcp",
            json=LIST,
            headers={**bearer, "Accept": "application/json, text/event-stream"},
            timeout=30,
        )
        assert listed.status_code == 200
        return {tool["name"] for tool in listed.json()["result"]["tools"]}

    # The server loads the MCP function first: the bound below is on the requests alone, not on
    # how long the machine takes to import the function.
    assert list_tools() == LEARNER_TOOLS
    for method in ("GET", "DELETE"):
        started = time.monotonic()
        response = httpx2.request(method, f"{served}/mcp", headers={**bearer, "Accept": "text/event-stream"}, timeout=5)
        assert time.monotonic() - started < 5  # a hang guard, not a performance test
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
    assert list_tools() == LEARNER_TOOLS
    assert httpx2.post(f"{served}/sessions", headers=bearer, timeout=30).status_code == 201
