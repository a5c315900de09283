import hashlib
import http.client
import json
import platform
import socket
import ssl
import threading
import time
import urllib.parse
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypedDict, TypeVar, Union

from ._binding_store import BindingStore
from ._device import DeviceIdentity, device_headers, device_identity, node_platform, read_machine_id
from ._errors import APIConnectionError, APIError, APITimeoutError, error_class_for
from ._options import ResolvedOptions
from ._retry import is_retryable, retry_delay
from ._version import SDK_VERSION

QueryValue = Union[str, int, float, bool, None]
T = TypeVar("T")

_BINDING_TOKEN_HEADER = "x-service-device-binding-token"
_CHUNK = 64 * 1024


class RequestOptions(TypedDict, total=False):
    """Per-call options, the `request_options=` of every method (a plain dict)."""

    #: Seconds for each attempt; overrides the client's timeout.
    timeout: float
    #: Overrides the client's max_retries.
    max_retries: int
    #: For POST: the Idempotency-Key to send; by default one is generated per call and kept across its retries.
    idempotency_key: str
    #: Extra request headers.
    headers: Dict[str, str]


class RawBody:
    """A request body that is not JSON (a file upload)."""

    def __init__(self, data: bytes, content_type: str) -> None:
        self.data = data
        self.content_type = content_type


class Transport:
    """Sends requests: headers, device binding, timeouts, retries with backoff, and typed errors."""

    def __init__(self, options: ResolvedOptions, store: BindingStore) -> None:
        self.options = options
        self._store = store
        self._identity: Optional[DeviceIdentity] = None
        self._token: Optional[str] = None
        self._token_loaded = False
        #: Set once an answer came back: from then on a missing token means the key needs none.
        self._binding_settled = False
        #: Held by the first request of an unbound device, so that only one binds.
        self._binding_gate = threading.Lock()
        self._state = threading.Lock()
        self._tls = ssl.create_default_context(cafile=options.ca_file)
        parts = urllib.parse.urlsplit(options.base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path

    @property
    def base_url(self) -> str:
        return self.options.base_url

    def device(self) -> DeviceIdentity:
        """The device this client speaks for (derived once per client)."""
        with self._state:
            if self._identity is None:
                self._identity = device_identity(read_machine_id(), self.options.device_id)
            return self._identity

    def binding_key(self) -> str:
        """The binding store's key: base URL, a fingerprint of the key (never the key) and the device id."""
        key_id = hashlib.sha256(self.options.api_key.encode("utf-8")).hexdigest()[:16]
        return f"{self.options.base_url}|key:{key_id}|device:{self.device().device_id}"

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = None,
        options: Optional[RequestOptions] = None,
    ) -> Any:
        options = options or {}
        idempotency_key = (options.get("idempotency_key") or str(uuid.uuid4())) if method == "POST" else None
        max_retries = options.get("max_retries")
        max_retries = self.options.max_retries if max_retries is None else max_retries
        retry = 0
        while True:
            try:
                return self._with_binding(lambda: self._attempt(method, path, query, body, options, idempotency_key))
            except APIError as error:
                if retry >= max_retries or not is_retryable(error, method):
                    raise
                delay = retry_delay(retry, error)
                if delay is None:
                    raise
                time.sleep(delay)
                retry += 1

    def _needs_binding(self) -> bool:
        return not self._binding_settled and self._token is None

    def _with_binding(self, send: Callable[[], T]) -> T:
        if not self._token_loaded:
            key = self.binding_key()
            with self._state:
                if not self._token_loaded:
                    self._token = self._token or self._store.get(key)
                    self._token_loaded = True
        if self._needs_binding():
            with self._binding_gate:
                if self._needs_binding():
                    return send()
        return send()

    def _attempt(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, QueryValue]],
        body: Any,
        options: RequestOptions,
        idempotency_key: Optional[str],
    ) -> Any:
        timeout = float(options.get("timeout") or self.options.timeout)
        deadline = time.monotonic() + timeout
        data, content_type = _encode(body)
        target = self._target(path, query)
        connection = self._connection(timeout)
        try:
            connection.connect()
            sock = connection.sock
            connection.request(method, target, body=data, headers=self._headers(content_type, idempotency_key, options))
            response = connection.getresponse()
            self._binding_settled = True
            self._keep_binding_token(response.getheader(_BINDING_TOKEN_HEADER))
            raw = _read_before(response, sock, deadline)
        except APIError:
            raise
        except ssl.SSLCertVerificationError as error:
            raise APIConnectionError(
                f"{method} {path}: the certificate of {self.options.base_url} is not trusted ({error.verify_message}); "
                "pass ca_file= or set SERVICE_CA_FILE to the appliance's CA.",
                code="tls_error",
            ) from error
        except (socket.timeout, TimeoutError) as error:
            raise APITimeoutError(f"{method} {path}: no complete answer within {timeout:g} s.") from error
        except ConnectionRefusedError as error:
            raise APIConnectionError(
                f"{method} {path}: the connection to {self.options.base_url} was refused.", code="connection_refused"
            ) from error
        except (OSError, http.client.HTTPException) as error:
            raise APIConnectionError(
                f"{method} {path}: the connection to {self.options.base_url} failed ({_describe(error)})."
            ) from error
        finally:
            connection.close()
        headers = {name.lower(): value for name, value in response.getheaders()}
        if response.status >= 400:
            raise _error_from_answer(response.status, response.reason, raw, headers)
        if not raw:
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError as error:
            raise APIConnectionError(f"{method} {path}: the answer is not JSON.") from error

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=self._tls)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _target(self, path: str, query: Optional[Mapping[str, QueryValue]]) -> str:
        pairs = [(name, _query_text(value)) for name, value in (query or {}).items() if value is not None]
        return self._prefix + path + (f"?{urllib.parse.urlencode(pairs)}" if pairs else "")

    def _headers(
        self, content_type: Optional[str], idempotency_key: Optional[str], options: RequestOptions
    ) -> Dict[str, str]:
        headers = {
            "Accept": "application/json",
            "User-Agent": f"decision-service-sdk/{SDK_VERSION} python/{platform.python_version()} "
            f"{node_platform()}-{platform.machine()}",
            **({"Content-Type": content_type} if content_type else {}),
            **device_headers(self.device()),
            **({"X-Service-Device-Binding-Token": self._token} if self._token else {}),
            **({"Idempotency-Key": idempotency_key} if idempotency_key else {}),
            **dict(options.get("headers") or {}),
            "Authorization": f"Bearer {self.options.api_key}",
            "X-Service-SDK-Version": SDK_VERSION,
            "Connection": "close",
        }
        return headers

    def _keep_binding_token(self, header: Optional[str]) -> None:
        token = (header or "").strip()
        if not token or token == self._token:
            return
        self._token = token
        self._store.set(self.binding_key(), token)


def _encode(body: Any) -> Tuple[Optional[bytes], Optional[str]]:
    if body is None:
        return None, None
    if isinstance(body, RawBody):
        return body.data, body.content_type
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), "application/json"


def _query_text(value: QueryValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _read_before(response: http.client.HTTPResponse, sock: Optional[socket.socket], deadline: float) -> bytes:
    """The whole answer body, or a timeout when it has not arrived by the deadline (the timeout bounds the
    attempt, body included, not each read)."""
    chunks: List[bytes] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("the answer body did not arrive in time")
        if sock is not None:
            sock.settimeout(remaining)
        chunk = response.read1(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _describe(error: BaseException) -> str:
    return type(error).__name__ + (f": {error}" if str(error) else "")


def _error_from_answer(status: int, reason: str, raw: bytes, headers: Dict[str, str]) -> APIError:
    error: Dict[str, Any] = {}
    try:
        body = json.loads(raw.decode("utf-8"))
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            error = body["error"]
    except ValueError:
        pass  # Not the service's error body (a proxy's page, say): the status speaks alone.
    code = error["code"] if isinstance(error.get("code"), str) else f"http_{status}"
    message = error["message"] if isinstance(error.get("message"), str) else f"HTTP {status} {reason}".strip()
    request_id = error["request_id"] if isinstance(error.get("request_id"), str) else headers.get("x-request-id")
    return error_class_for(status, code)(
        message, status=status, code=code, request_id=request_id, details=error.get("details"), headers=headers
    )
