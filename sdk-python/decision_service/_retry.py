import random
from typing import Callable, Optional

from ._errors import APIConnectionError, APIError, DeviceBindingError, retry_after_seconds_of

BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0
#: A longer Retry-After is not waited out: the error is raised at once and carries the header.
MAX_RETRY_AFTER_S = 60.0
#: Methods that may be repeated as they are. A POST is repeated with the same Idempotency-Key.
REPEATABLE_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "POST"})


def _never_reached_the_handler(error: APIError) -> bool:
    """The service did not run the request: it refused the connection or rate-limited the call up front."""
    return error.status == 429 or (isinstance(error, APIConnectionError) and error.code == "connection_refused")


def is_retryable(error: BaseException, method: str) -> bool:
    """Connection errors, 408, 429, 5xx and the in-flight idempotency conflict; never device binding, TLS
    failures or other 4xx. A PATCH, which repeating could apply twice, only when the service never ran it."""
    if not isinstance(error, APIError) or isinstance(error, DeviceBindingError):
        return False
    if isinstance(error, APIConnectionError):
        retryable = error.code != "tls_error"
    else:
        status = error.status or 0
        retryable = (
            status in (408, 429) or status >= 500 or (status == 409 and error.code == "idempotency_key_in_use")
        )
    return retryable and (method in REPEATABLE_METHODS or _never_reached_the_handler(error))


def retry_delay(retry: int, error: APIError, draw: Callable[[], float] = random.random) -> Optional[float]:
    """Seconds before retry number `retry` (0 for the first): the server's Retry-After when it gives one, else
    exponential backoff from 0.5 s, capped at 8 s, less up to a quarter of jitter. None: do not retry."""
    retry_after = retry_after_seconds_of(error.headers)
    if retry_after is not None:
        return retry_after if retry_after <= MAX_RETRY_AFTER_S else None
    backoff = min(MAX_DELAY_S, BASE_DELAY_S * 2**retry)
    return backoff * (1 - 0.25 * draw())
