import base64
import hashlib
import hmac
import http.client
import json
import unittest

from decision_service import WebhookVerificationError, verify_webhook

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
PREVIOUS = "whsec_" + base64.b64encode(b"p" * 32).decode()
NOW = 1_800_000_000
BODY = json.dumps({"event": "job.completed", "job_id": "j1"}).encode()


def signed(body=BODY, secrets=(SECRET,), message_id="msg_1", timestamp=NOW):
    """The headers the service sends (docs/webhook-signatures.md), computed independently of the SDK."""
    headers = {
        "X-Webhook-Signature": "sha256=" + hmac.new(secrets[0].encode(), body, hashlib.sha256).hexdigest(),
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
    }
    if len(secrets) > 1:
        headers["X-Webhook-Signature-Previous"] = (
            "sha256=" + hmac.new(secrets[1].encode(), body, hashlib.sha256).hexdigest()
        )
    entries = []
    for secret in secrets:
        key = base64.b64decode(secret[len("whsec_"):])
        digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        entries.append("v1," + base64.b64encode(digest).decode())
    headers["webhook-signature"] = " ".join(entries)
    return headers


class VerifyWebhookTest(unittest.TestCase):
    def test_a_delivery_with_both_signatures_returns_its_event(self) -> None:
        event = verify_webhook(BODY, signed(), SECRET, now=NOW)
        self.assertEqual(event, {"event": "job.completed", "job_id": "j1"})
        self.assertEqual(verify_webhook(BODY.decode(), signed(), SECRET, now=NOW + 299)["job_id"], "j1")

    def test_headers_may_be_an_http_message_or_pairs(self) -> None:
        message = http.client.HTTPMessage()
        for name, value in signed().items():
            message[name.upper()] = value
        self.assertEqual(verify_webhook(BODY, message, SECRET, now=NOW)["job_id"], "j1")
        self.assertEqual(verify_webhook(BODY, list(signed().items()), SECRET, now=NOW)["job_id"], "j1")

    def test_during_a_rotation_either_secret_verifies(self) -> None:
        headers = signed(secrets=(SECRET, PREVIOUS))
        self.assertEqual(verify_webhook(BODY, headers, SECRET, now=NOW)["job_id"], "j1")
        self.assertEqual(verify_webhook(BODY, headers, PREVIOUS, now=NOW)["job_id"], "j1")

    def test_refusals(self) -> None:
        legacy_only = {k: v for k, v in signed().items() if not k.startswith("webhook-")}
        no_legacy = {k: v for k, v in signed().items() if k != "X-Webhook-Signature"}
        standard_from_other = {**signed(), "webhook-signature": signed(secrets=(PREVIOUS,))["webhook-signature"]}
        cases = {
            "tampered body": (BODY + b" ", signed(), NOW, "X-Webhook-Signature does not match"),
            "wrong secret": (BODY, signed(secrets=(PREVIOUS,)), NOW, "X-Webhook-Signature does not match"),
            "no legacy signature": (BODY, no_legacy, NOW, "no X-Webhook-Signature"),
            "no standard headers": (BODY, legacy_only, NOW, "no webhook-id"),
            "standard signature of another secret": (BODY, standard_from_other, NOW, "webhook-signature does not"),
            "replayed too late": (BODY, signed(), NOW + 301, "away from now"),
            "timestamp in the future": (BODY, signed(), NOW - 301, "away from now"),
            "timestamp not seconds": (BODY, {**signed(), "webhook-timestamp": "soon"}, NOW, "not Unix seconds"),
        }
        for name, (body, headers, now, message) in cases.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError) as caught:
                verify_webhook(body, headers, SECRET, now=now)
            self.assertIn(message, str(caught.exception))

    def test_a_body_that_is_not_json_and_a_secret_that_is_not_whsec(self) -> None:
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(b"nope", signed(body=b"nope"), SECRET, now=NOW)
        with self.assertRaises(TypeError):
            verify_webhook(BODY, signed(), "secret", now=NOW)


if __name__ == "__main__":
    unittest.main()
