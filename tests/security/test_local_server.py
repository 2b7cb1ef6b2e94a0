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
