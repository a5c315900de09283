"""A loopback HTTP server that answers what a test scripts, and records what it received."""
import http.server
import json
import threading
import time
from typing import Any, Dict, List, NamedTuple, Optional


class Seen(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class Answer(NamedTuple):
    status: int = 200
    body: Any = None
    headers: Optional[Dict[str, str]] = None
    #: drop: close the connection without answering; hang: answer after `delay` seconds.
    fault: Optional[str] = None
    delay: float = 0.0


def json_answer(status: int = 200, body: Any = None, **headers: str) -> Answer:
    return Answer(status, {} if body is None else body, {k.replace("_", "-"): v for k, v in headers.items()})


class StubServer:
    """Answers the scripted answers in order (then `{}` with 200); `seen` lists the requests."""

    def __init__(self, tls_context=None) -> None:
        self.answers: List[Answer] = []
        self.seen: List[Seen] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with stub._lock:
                    stub.seen.append(
                        Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    answer = stub.answers.pop(0) if stub.answers else Answer(200, {})
                if answer.fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if answer.delay:
                    time.sleep(answer.delay)
                payload = b"" if answer.body is None else (
                    answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode("utf-8")
                )
                self.send_response(answer.status)
                headers = {"Content-Type": "application/json", **(answer.headers or {})}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # A client that timed out and left: nothing to report.

        self._server = Server(("127.0.0.1", 0), Handler)
        if tls_context is not None:
            self._server.socket = tls_context.wrap_socket(self._server.socket, server_side=True)
        scheme = "https" if tls_context is not None else "http"
        self.base_url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> "StubServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, *answers: Answer) -> None:
        self.answers.extend(answers)
