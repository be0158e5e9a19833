"""A loopback HTTP server that answers each request with the next step of a script, and records the requests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, NamedTuple, Optional, Tuple


class Seen(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Step(NamedTuple):
    """``status`` 0: drop the connection without an answer; ``sse``: write these chunks as an event stream."""

    status: int
    body: Any = None
    headers: Tuple[Tuple[str, str], ...] = ()
    sse: Optional[List[str]] = None
    stall: float = 0.0


def answer(status: int, body: Any = None, **headers: str) -> Step:
    return Step(status, body, tuple((k.replace("_", "-"), v) for k, v in headers.items()))


def error(status: int, code: str, message: str = "m", **headers: str) -> Step:
    return answer(status, {"error": {"code": code, "message": message}, "requestId": "req_1"}, **headers)


DROP = Step(0)


def events(*chunks: str, stall: float = 0.0) -> Step:
    """An event stream of these chunks; ``stall``: then keep the connection open and silent that long."""
    return Step(200, sse=list(chunks), stall=stall)


class ScriptedServer:
    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.seen: List[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                server.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                step = server.steps.pop(0) if server.steps else error(500, "INTERNAL", "script ran out")
                if step.status == 0:
                    self.close_connection = True
                    return
                self.send_response(step.status)
                for k, v in step.headers:
                    self.send_header(k, v)
                if step.sse is not None:
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for chunk in step.sse:
                        self.wfile.write(chunk.encode("utf-8"))
                        self.wfile.flush()
                    time.sleep(step.stall)
                    return
                payload = b"" if step.body is None else (
                    step.body if isinstance(step.body, bytes) else json.dumps(step.body).encode("utf-8")
                )
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True  # a stalled answer must not hold up the shutdown
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
