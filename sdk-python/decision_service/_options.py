import os
import re
import urllib.parse
from typing import Mapping, NamedTuple, Optional, Sequence, Tuple

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 2

#: Environment variables in the order they are read; the first non-empty one wins (as in the TypeScript SDK).
API_KEY_VARIABLES = ("SERVICE_API_KEY", "SERVICE_TOKEN")
BASE_URL_VARIABLES = ("SERVICE_BASE_URL", "SERVICE_URL", "SERVICE_API_URL")
DEVICE_ID_VARIABLES = ("SERVICE_DEVICE_ID", "SERVICE_DEVICE")
CA_FILE_VARIABLES = ("SERVICE_CA_FILE",)

_DEVICE_ID = re.compile(r"[\x21-\x7e]{16,64}")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ConfigurationError(ValueError):
    """An option (or the environment variable it came from) is missing or malformed."""


class ResolvedOptions(NamedTuple):
    api_key: str
    base_url: str
    device_id: Optional[str]
    timeout: float
    max_retries: int
    ca_file: Optional[str]


def _from_env(env: Mapping[str, str], names: Sequence[str]) -> Optional[Tuple[str, str]]:
    for name in names:
        value = (env.get(name) or "").strip()
        if value:
            return name, value
    return None


def _non_empty(value: Optional[str]) -> Optional[str]:
    trimmed = (value or "").strip()
    return trimmed or None


def normalize_base_url(raw: str, source: str) -> str:
    """The service root as the TypeScript SDK writes it (WHATWG URL: lower-case scheme and host, no default port,
    no trailing slash), so both SDKs key their device bindings alike."""
    try:
        parts = urllib.parse.urlsplit(raw)
        port = parts.port
    except ValueError:
        raise ConfigurationError(f'DecisionService: the base URL from {source} is not a URL: "{raw}".') from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise ConfigurationError(
            f'DecisionService: the base URL from {source} must be http or https, not "{scheme}:".'
        )
    if not parts.hostname:
        raise ConfigurationError(f'DecisionService: the base URL from {source} is not a URL: "{raw}".')
    if parts.query or parts.fragment:
        raise ConfigurationError(f"DecisionService: the base URL from {source} must not carry a query or fragment.")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path}".rstrip("/")


def _count(value: object, name: str, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= minimum:
        raise ConfigurationError(f"DecisionService: {name} must be a number of at least {minimum}, got {value!r}.")
    return float(value)


def resolve_options(
    *,
    api_key: Optional[str] = None,
    base_url: Optional[str] = None,
    device_id: Optional[str] = None,
    timeout: Optional[float] = None,
    max_retries: Optional[int] = None,
    ca_file: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> ResolvedOptions:
    """The argument, then the environment variables in their documented order, then the defaults."""
    env = os.environ if env is None else env
    key = _non_empty(api_key) or (_from_env(env, API_KEY_VARIABLES) or (None, None))[1]
    if not key:
        raise ConfigurationError(
            "DecisionService: no API key. Pass api_key= or set SERVICE_API_KEY "
            "(the legacy SERVICE_TOKEN is also read)."
        )

    explicit_url = _non_empty(base_url)
    env_url = _from_env(env, BASE_URL_VARIABLES)
    if explicit_url:
        url = normalize_base_url(explicit_url, "the base_url option")
    elif env_url:
        url = normalize_base_url(env_url[1], env_url[0])
    else:
        url = DEFAULT_BASE_URL

    explicit_device = _non_empty(device_id)
    env_device = _from_env(env, DEVICE_ID_VARIABLES)
    device = explicit_device or (env_device[1] if env_device else None)
    if device is not None and not _DEVICE_ID.fullmatch(device):
        source = "the device_id option" if explicit_device else env_device[0]  # type: ignore[index]
        raise ConfigurationError(
            f"DecisionService: the device id from {source} must be 16 to 64 printable characters without spaces."
        )

    explicit_ca = _non_empty(ca_file)
    env_ca = _from_env(env, CA_FILE_VARIABLES)
    ca = explicit_ca or (env_ca[1] if env_ca else None)
    if ca is not None and not os.path.isfile(ca):
        source = "the ca_file option" if explicit_ca else env_ca[0]  # type: ignore[index]
        raise ConfigurationError(f"DecisionService: the CA file from {source} does not exist: {ca}.")

    return ResolvedOptions(
        api_key=key,
        base_url=url,
        device_id=device,
        timeout=float(_count(DEFAULT_TIMEOUT_S if timeout is None else timeout, "timeout", 0.001)),
        max_retries=int(_count(DEFAULT_MAX_RETRIES if max_retries is None else max_retries, "max_retries", 0)),
        ca_file=ca,
    )
