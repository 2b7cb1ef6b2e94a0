"""A stand-in for the Gemini API on 127.0.0.1: scripted responses, recorded requests. The real
google-genai client talks to it (its base URL is configurable), so the provider's actual code
path — request building, retries, timeouts, parsing — is what the tests exercise."""

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay: float = 0.0


def model_reply(payload: Any, input_tokens: int = 120, output_tokens: int = 80) -> Reply:
    """A successful generateContent answer whose text is `payload` (JSON-encoded unless a str)."""
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return Reply(
        body={
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": input_tokens,
                "candidatesTokenCount": output_tokens,
                "totalTokenCount": input_tokens + output_tokens,
            },
        }
    )


def error_reply(status: int) -> Reply:
    return Reply(status=status, body={"error": {"code": status, "message": "stub error", "status": "UNAVAILABLE"}})


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        return "".join(part.get("text", "") for content in self.body["contents"] for part in content["parts"])

    @property
    def system(self) -> str:
        return "".join(part.get("text", "") for part in self.body["systemInstruction"]["parts"])


@dataclass
class GeminiStub:
    replies: list[Reply] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    url: str = ""

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def _next(self) -> Reply:
        return self.replies.pop(0) if self.replies else error_reply(500)


def start_stub() -> tuple[GeminiStub, ThreadingHTTPServer]:
    stub = GeminiStub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            stub.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = stub._next()
            time.sleep(reply.delay)
            payload = json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return stub, server
