"""The official Python client of the Decision Service HTTP API (standard library only)."""
from ._binding_store import BindingStore, FileBindingStore, MemoryBindingStore
from ._client import DecisionClient, DecisionService
from ._device import DeviceIdentity
from ._errors import (
    DEVICE_BINDING_CODES,
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    DeviceBindingError,
    EngineUnavailableError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ValidationError,
)
from ._options import (
    API_KEY_VARIABLES,
    BASE_URL_VARIABLES,
    CA_FILE_VARIABLES,
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    DEVICE_ID_VARIABLES,
    ConfigurationError,
)
from ._pagination import PagedList
from ._resources.jobs import FINISHED_JOB_STATES, JobWaitTimeoutError
from ._transport import RequestOptions
from ._version import SDK_VERSION
from ._webhooks import DEFAULT_WEBHOOK_TOLERANCE_S, WebhookVerificationError, verify_webhook

__version__ = SDK_VERSION

__all__ = [
    "API_KEY_VARIABLES",
    "BASE_URL_VARIABLES",
    "CA_FILE_VARIABLES",
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_WEBHOOK_TOLERANCE_S",
    "DEVICE_BINDING_CODES",
    "DEVICE_ID_VARIABLES",
    "FINISHED_JOB_STATES",
    "SDK_VERSION",
    "APIConnectionError",
    "APIConnectionTimeoutError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "BindingStore",
    "ConfigurationError",
    "ConflictError",
    "DecisionClient",
    "DecisionService",
    "DeviceBindingError",
    "DeviceIdentity",
    "EngineUnavailableError",
    "FileBindingStore",
    "JobWaitTimeoutError",
    "MemoryBindingStore",
    "NotFoundError",
    "PagedList",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestOptions",
    "ValidationError",
    "WebhookVerificationError",
    "verify_webhook",
]
