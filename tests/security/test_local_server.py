"""The local server (`make serve`) stays responsive to everyone while one client stalls: a
connection that never finishes its request holds only its own thread, and is cut off."""

import socket
import urllib.request

from slea_local.http import serve_in_background


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
    import time

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
