import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Union

DEFAULT_WEBHOOK_TOLERANCE_S = 300


class WebhookVerificationError(Exception):
    """A delivery whose signature, headers or timestamp do not check out: answer 400 and drop it."""


def _header(headers: Any, name: str) -> Optional[str]:
    items = headers.items() if hasattr(headers, "items") else headers
    found = None
    for key, value in items:
        if key.lower() == name:
            found = value[-1] if isinstance(value, (list, tuple)) else value
    if isinstance(found, bytes):
        found = found.decode("latin-1")
    return found


def _required(headers: Any, name: str) -> str:
    value = (_header(headers, name) or "").strip()
    if not value:
        raise WebhookVerificationError(f"The delivery has no {name} header.")
    return value


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def verify_webhook(
    body: Union[bytes, str],
    headers: Union[Mapping[str, Any], Any],
    secret: str,
    *,
    tolerance_seconds: float = DEFAULT_WEBHOOK_TOLERANCE_S,
    now: Optional[float] = None,
) -> Any:
    """Verifies a delivery of the service (job.completed, webhook.test, trigger events) against the organization's
    signing secret (`whsec_...`) and returns its parsed body. Both signatures the service sends must hold:
    `X-Webhook-Signature` (or `X-Webhook-Signature-Previous` during a rotation) and the Standard Webhooks
    `webhook-id` / `webhook-timestamp` / `webhook-signature`, whose timestamp must be within the tolerance of `now`
    (Unix seconds, default the clock). Pass the raw body bytes as received, not a re-serialised object; headers may
    be a dict, a list of pairs or an `http.client.HTTPMessage` / `email.message.Message`."""
    if not isinstance(secret, str) or not secret.startswith("whsec_") or len(secret) <= len("whsec_"):
        raise TypeError("verify_webhook: the secret must be the whsec_... signing secret of GET /v1/webhooks/signing-secret.")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)

    legacy = "sha256=" + hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).hexdigest()
    presented = [_header(headers, "x-webhook-signature"), _header(headers, "x-webhook-signature-previous")]
    if all(value is None for value in presented):
        raise WebhookVerificationError("The delivery has no X-Webhook-Signature header.")
    if not any(value is not None and _same(value.strip(), legacy) for value in presented):
        raise WebhookVerificationError("X-Webhook-Signature does not match the body and secret.")

    message_id = _required(headers, "webhook-id")
    timestamp = _required(headers, "webhook-timestamp")
    signatures = _required(headers, "webhook-signature")
    if not re.fullmatch(r"\d{1,12}", timestamp):
        raise WebhookVerificationError("webhook-timestamp is not Unix seconds.")
    skew = abs((time.time() if now is None else now) - int(timestamp))
    if skew > tolerance_seconds:
        raise WebhookVerificationError(
            f"webhook-timestamp is {round(skew)} s away from now (tolerance {tolerance_seconds:g} s)."
        )
    try:
        key = base64.b64decode(secret[len("whsec_"):])
    except (binascii.Error, ValueError):
        raise TypeError("verify_webhook: the secret is not whsec_ followed by base64.") from None
    signed = f"{message_id}.{timestamp}.".encode("utf-8") + raw
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")
    if not any(_same(entry, expected) for entry in signatures.split(" ")):
        raise WebhookVerificationError("webhook-signature does not match the body and secret.")

    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        raise WebhookVerificationError("The delivery body is not JSON.") from None
