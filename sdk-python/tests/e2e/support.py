"""The real daemon for the e2e suite: one per test run, booted from the built checkout (dist/main.js) on the
project's Node with a fresh data dir, an owner signed up, a webhook receiver it may deliver to, and a loopback
proxy in front of it that can drop a connection after the daemon answered."""
import atexit
import base64
import http.client
import http.server
import json
import os
import queue
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from typing import Any, Dict, List, NamedTuple, Optional

SDK_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO_ROOT = os.path.dirname(SDK_ROOT)
NODE = os.environ.get("SDK_TEST_DAEMON_NODE") or os.path.join(REPO_ROOT, "node_modules", ".bin", "node")


class Delivery(NamedTuple):
    event: str
    headers: Dict[str, str]
    body: bytes


class _Loopback:
    """A threaded loopback HTTP server around one handler function."""

    def __init__(self, handle) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                handle(self, self.rfile.read(length) if length else b"")

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhookReceiver:
    """Takes every delivery (200) and queues it for the test."""

    def __init__(self) -> None:
        self.deliveries: "queue.Queue[Delivery]" = queue.Queue()
        self._loopback = _Loopback(self._take)
        self.url = f"http://127.0.0.1:{self._loopback.port}/hooks"

    def _take(self, request: http.server.BaseHTTPRequestHandler, body: bytes) -> None:
        headers = {name.lower(): value for name, value in request.headers.items()}
        self.deliveries.put(Delivery(headers.get("x-webhook-event", ""), headers, body))
        request.send_response(200)
        request.send_header("Content-Length", "0")
        request.end_headers()

    def next(self, event: str, timeout: float = 60.0) -> Delivery:
        deadline = time.monotonic() + timeout
        while True:
            delivery = self.deliveries.get(timeout=max(0.01, deadline - time.monotonic()))
            if delivery.event == event:
                return delivery

    def stop(self) -> None:
        self._loopback.stop()


class Seen(NamedTuple):
    method: str
    path: str
    headers: Dict[str, str]


class FaultProxy:
    """Forwards to the daemon; `drop_after(n)` makes the next n requests run on the daemon and then lose their
    answer (the connection closes before a byte of it arrives)."""

    def __init__(self, target_port: int) -> None:
        self._target_port = target_port
        self._drops = 0
        self._lock = threading.Lock()
        self.seen: List[Seen] = []
        self._loopback = _Loopback(self._forward)
        self.base_url = f"http://127.0.0.1:{self._loopback.port}"

    def drop_after(self, count: int = 1) -> None:
        with self._lock:
            self._drops = count

    def _forward(self, request: http.server.BaseHTTPRequestHandler, body: bytes) -> None:
        headers = {name: value for name, value in request.headers.items() if name.lower() != "host"}
        with self._lock:
            self.seen.append(Seen(request.command, request.path, {k.lower(): v for k, v in headers.items()}))
            drop = self._drops > 0
            self._drops -= 1 if drop else 0
        upstream = http.client.HTTPConnection("127.0.0.1", self._target_port, timeout=120)
        upstream.request(request.command, request.path, body=body or None, headers=headers)
        answer = upstream.getresponse()
        payload = answer.read()
        upstream.close()
        if drop:
            request.close_connection = True
            request.connection.shutdown(2)
            return
        request.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                request.send_header(name, value)
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    def stop(self) -> None:
        self._loopback.stop()


class Daemon:
    def __init__(self) -> None:
        self.receiver = WebhookReceiver()
        self.data_dir = tempfile.mkdtemp(prefix="pysdk-daemon-")
        self._output: List[str] = []
        env = {
            "PATH": os.environ.get("PATH", ""),
            "NODE_ENV": "test",
            "SERVICE_RUNTIME_SUPERVISE": "false",
            "SERVICE_PORT": "0",
            "SERVICE_DATA_DIR": self.data_dir,
            "ENGINE_POOL_SIZE": "1",
            "SERVICE_LOG_LEVEL": "info",
            "SERVICE_EGRESS_ALLOW": f"127.0.0.1:{self.receiver._loopback.port}",
            "SERVICE_CONFIG_ENCRYPTION_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
        }
        self._process = subprocess.Popen(
            [NODE, os.path.join(REPO_ROOT, "dist", "main.js")],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._read_output, args=(started,), daemon=True).start()
        try:
            self.base_url = started.get(timeout=120)
        except queue.Empty:
            self.stop()
            raise RuntimeError("the daemon did not start in time:\n" + "".join(self._output)) from None
        if not self.base_url:
            self.stop()
            raise RuntimeError("the daemon exited early:\n" + "".join(self._output))
        self.port = int(self.base_url.rsplit(":", 1)[1])
        self.owner_key = self.sign_up("owner@pysdk.test")
        self.proxy = FaultProxy(self.port)

    def _read_output(self, started: "queue.Queue[str]") -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._output.append(line)
            if '"event":"daemon_started"' in line:
                started.put(json.loads(line)["address"])
        started.put("")

    def sign_up(self, email: str) -> str:
        """POST /auth/signup (the SDK has no sign-up method); returns the organization's bootstrap key."""
        body = json.dumps({"email": email, "password": "correct horse battery staple", "name": "Py SDK"}).encode()
        request = urllib.request.Request(
            f"{self.base_url}/auth/signup", data=body, headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())["api_key"]["raw_key"]

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
        for part in ("proxy", "receiver"):
            if hasattr(self, part):
                getattr(self, part).stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)


_daemon: Optional[Daemon] = None


def daemon() -> Daemon:
    """The run's daemon, booted on first use and stopped when the run ends."""
    global _daemon
    if _daemon is None:
        _daemon = Daemon()
        atexit.register(_daemon.stop)
    return _daemon
