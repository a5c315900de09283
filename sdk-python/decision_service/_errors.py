import email.utils
import re
import time
from typing import Any, Mapping, Optional, Type


class APIError(Exception):
    """Every error the client raises for a request: an error answer of the service or a failed connection."""

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: str = "api_error",
        request_id: Optional[str] = None,
        details: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: HTTP status; None when no answer arrived (connection errors).
        self.status = status
        #: The service's snake_case error code, e.g. `invalid_api_key`, or `connection_error`/`connection_timeout`.
        self.code = code
        #: X-Request-Id of the answer: quote it to the operator.
        self.request_id = request_id
        #: The `details` of the error body, e.g. `[{field, problem}]` for validation errors.
        self.details = details
        #: The answer's headers, names in lower case.
        self.headers = {name.lower(): value for name, value in (headers or {}).items()}

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status or '-'} {self.code}: {self.message}{where}"


class AuthenticationError(APIError):
    """401: no key, or a key that is invalid, expired or revoked."""


class PermissionDeniedError(APIError):
    """403: the key's role, the license or the appliance does not allow the call."""


class NotFoundError(APIError):
    """404."""


class ConflictError(APIError):
    """409: the request conflicts with the resource's state (not retried, except `idempotency_key_in_use`)."""


class ValidationError(APIError):
    """422: `details` lists `{field, problem}`."""


class _RetryAfter(APIError):
    @property
    def retry_after_seconds(self) -> Optional[float]:
        """The server's last Retry-After, in seconds."""
        return retry_after_seconds_of(self.headers)


class RateLimitError(_RetryAfter):
    """429, raised after the retries are spent."""


class EngineUnavailableError(_RetryAfter):
    """503: the engine (or another local dependency) cannot serve now, raised after the retries are spent."""


class DeviceBindingError(APIError):
    """A capped key's device binding failed (fails closed); never retried."""


class APIConnectionError(APIError):
    """No answer: the connection failed or closed before a complete answer arrived."""

    def __init__(self, message: str = "The connection to the service failed.", *, code: str = "connection_error"):
        super().__init__(message, code=code)


class APITimeoutError(APIConnectionError):
    """No complete answer within the request's timeout."""

    def __init__(self, message: str = "The request timed out."):
        super().__init__(message, code="connection_timeout")


#: The TypeScript SDK's name of APITimeoutError.
APIConnectionTimeoutError = APITimeoutError

#: The error codes of device binding (spec: Device binding, Errors); they surface as DeviceBindingError.
DEVICE_BINDING_CODES = frozenset(
    {
        "device_binding_required",
        "device_binding_token_required",
        "invalid_device_binding_token",
        "device_identity_mismatch",
        "device_limit_reached",
        "invalid_device_id",
    }
)

_BY_STATUS = {
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
    503: EngineUnavailableError,
}


def error_class_for(status: int, code: str) -> Type[APIError]:
    """The error class of an answer: the device-binding codes first, then the status family."""
    if code in DEVICE_BINDING_CODES:
        return DeviceBindingError
    return _BY_STATUS.get(status, APIError)


def retry_after_seconds_of(headers: Optional[Mapping[str, str]]) -> Optional[float]:
    """Seconds of a Retry-After header (delta seconds or an HTTP date); None when absent or unreadable."""
    value = (headers or {}).get("retry-after", "").strip()
    if not value:
        return None
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())
