import threading
import unittest

from decision_service import (
    SDK_VERSION,
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    DeviceBindingError,
    EngineUnavailableError,
    MemoryBindingStore,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ValidationError,
)

from .stub_server import Answer, StubServer, json_answer
from .support import DEVICE_ID, client


def error_body(code: str, message: str = "refused", **extra):
    return {"error": {"code": code, "message": message, "request_id": "req-1", **extra}}


class RequestsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer().__enter__()
        self.addCleanup(self.stub.__exit__)

    def test_sends_the_key_the_sdk_version_and_the_device_headers(self) -> None:
        self.stub.script(json_answer(body={"organization": {"name": "Acme"}}))
        me = client(self.stub.base_url).me()
        self.assertEqual(me, {"organization": {"name": "Acme"}})
        seen = self.stub.seen[0]
        self.assertEqual((seen.method, seen.path), ("GET", "/v1/me"))
        self.assertEqual(seen.headers["authorization"], "Bearer sk-unit-test-key")
        self.assertEqual(seen.headers["x-service-sdk-version"], SDK_VERSION)
        self.assertEqual(seen.headers["x-service-device-id"], DEVICE_ID)
        self.assertEqual(seen.headers["x-service-platform"], "linux")
        self.assertRegex(seen.headers["x-service-hostname-hash"], r"^[0-9a-f]{64}$")
        self.assertNotIn("idempotency-key", seen.headers)
        self.assertNotIn("content-type", seen.headers)

    def test_keyword_arguments_are_the_json_body_and_none_leaves_a_field_out(self) -> None:
        client(self.stub.base_url).jobs.create(request={"runs": 10}, callback_url=None)
        seen = self.stub.seen[0]
        self.assertEqual((seen.method, seen.path), ("POST", "/v1/jobs"))
        self.assertEqual(seen.headers["content-type"], "application/json")
        self.assertEqual(seen.json(), {"request": {"runs": 10}})
        self.assertRegex(seen.headers["idempotency-key"], r"^[0-9a-f-]{36}$")

    def test_query_values_and_path_segments_are_encoded(self) -> None:
        sdk = client(self.stub.base_url)
        sdk.data.list(search="a b&c", compact=True).first_page()
        sdk.connectors.get("id/with space")
        self.assertEqual(self.stub.seen[0].path, "/v1/data?search=a+b%26c&compact=true")
        self.assertEqual(self.stub.seen[1].path, "/v1/connectors/id%2Fwith%20space")

    def test_request_options_set_headers_and_the_idempotency_key(self) -> None:
        client(self.stub.base_url).connectors.create(
            name="x", request_options={"idempotency_key": "my-key", "headers": {"X-Trace": "t1"}}
        )
        self.assertEqual(self.stub.seen[0].headers["idempotency-key"], "my-key")
        self.assertEqual(self.stub.seen[0].headers["x-trace"], "t1")

    def test_a_base_url_with_a_path_prefixes_every_request(self) -> None:
        client(self.stub.base_url + "/decisions/").health()
        self.assertEqual(self.stub.seen[0].path, "/decisions/v1/health")

    def test_a_204_answers_none(self) -> None:
        self.stub.script(Answer(204, None))
        self.assertIsNone(client(self.stub.base_url).connectors.delete("c1"))


class ErrorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer().__enter__()
        self.addCleanup(self.stub.__exit__)

    def raised(self, answer: Answer) -> APIError:
        self.stub.script(answer)
        with self.assertRaises(APIError) as caught:
            client(self.stub.base_url, max_retries=0).me()
        return caught.exception

    def test_each_status_raises_its_class_with_the_error_body(self) -> None:
        cases = [
            (401, "invalid_api_key", AuthenticationError),
            (403, "insufficient_role", PermissionDeniedError),
            (404, "not_found", NotFoundError),
            (409, "not_connected", ConflictError),
            (429, "rate_limited", RateLimitError),
            (503, "engine_unavailable", EngineUnavailableError),
            (400, "bad_request", APIError),
            (402, "device_limit_reached", DeviceBindingError),
            (401, "device_binding_token_required", DeviceBindingError),
        ]
        for status, code, error_class in cases:
            with self.subTest(code=code):
                error = self.raised(json_answer(status, error_body(code, "no", details={"a": 1})))
                self.assertIs(type(error), error_class)
                self.assertEqual(
                    (error.status, error.code, error.message, error.request_id, error.details),
                    (status, code, "no", "req-1", {"a": 1}),
                )

    def test_a_validation_error_carries_the_field_problems(self) -> None:
        details = [{"field": "runs", "problem": "must be at least 1"}]
        error = self.raised(json_answer(422, error_body("validation_failed", "bad", details=details)))
        self.assertIsInstance(error, ValidationError)
        self.assertEqual(error.details, details)
        self.assertIn("validation_failed", str(error))

    def test_an_answer_that_is_not_the_error_body_speaks_by_its_status(self) -> None:
        error = self.raised(Answer(502, b"<html>bad gateway</html>", {"Content-Type": "text/html", "X-Request-Id": "r9"}))
        self.assertIs(type(error), APIError)
        self.assertEqual((error.status, error.code, error.request_id), (502, "http_502", "r9"))

    def test_a_success_that_is_not_json_is_a_connection_error(self) -> None:
        error = self.raised(Answer(200, b"not json", {"Content-Type": "text/plain"}))
        self.assertIsInstance(error, APIConnectionError)
        self.assertIn("not JSON", error.message)

    def test_rate_limit_error_reads_retry_after(self) -> None:
        error = self.raised(json_answer(429, error_body("rate_limited"), Retry_After="120"))
        self.assertIsInstance(error, RateLimitError)
        self.assertEqual(error.retry_after_seconds, 120.0)


class RetriesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer().__enter__()
        self.addCleanup(self.stub.__exit__)

    def test_a_get_is_retried_after_a_5xx_honouring_retry_after(self) -> None:
        self.stub.script(json_answer(503, error_body("engine_unavailable"), Retry_After="0"), json_answer(body={"ok": 1}))
        self.assertEqual(client(self.stub.base_url).health(), {"ok": 1})
        self.assertEqual(len(self.stub.seen), 2)

    def test_a_post_is_retried_with_the_same_idempotency_key(self) -> None:
        self.stub.script(
            json_answer(500, error_body("internal"), Retry_After="0"),
            json_answer(409, error_body("idempotency_key_in_use"), Retry_After="0"),
            json_answer(202, {"job_id": "j1"}),
        )
        self.assertEqual(client(self.stub.base_url).jobs.create(request={"runs": 1}), {"job_id": "j1"})
        keys = {seen.headers["idempotency-key"] for seen in self.stub.seen}
        self.assertEqual(len(self.stub.seen), 3)
        self.assertEqual(len(keys), 1)

    def test_two_calls_send_two_idempotency_keys(self) -> None:
        sdk = client(self.stub.base_url)
        sdk.jobs.create(request={})
        sdk.jobs.create(request={})
        self.assertNotEqual(self.stub.seen[0].headers["idempotency-key"], self.stub.seen[1].headers["idempotency-key"])

    def test_a_dropped_connection_is_retried(self) -> None:
        self.stub.script(Answer(fault="drop"), json_answer(body={"status": "ok"}))
        self.assertEqual(client(self.stub.base_url).health(), {"status": "ok"})
        self.assertEqual(len(self.stub.seen), 2)

    def test_the_retries_are_bounded_by_max_retries(self) -> None:
        self.stub.script(*[json_answer(503, error_body("engine_unavailable"), Retry_After="0")] * 5)
        with self.assertRaises(EngineUnavailableError):
            client(self.stub.base_url, max_retries=1).health()
        self.assertEqual(len(self.stub.seen), 2)
        self.stub.seen.clear()
        with self.assertRaises(EngineUnavailableError):
            client(self.stub.base_url).health(request_options={"max_retries": 0})
        self.assertEqual(len(self.stub.seen), 1)

    def test_a_retry_after_over_a_minute_is_not_waited_out(self) -> None:
        self.stub.script(json_answer(429, error_body("rate_limited"), Retry_After="3600"))
        with self.assertRaises(RateLimitError) as caught:
            client(self.stub.base_url).health()
        self.assertEqual(caught.exception.retry_after_seconds, 3600.0)
        self.assertEqual(len(self.stub.seen), 1)

    def test_other_4xx_and_device_binding_errors_are_not_retried(self) -> None:
        for status, code in [(401, "invalid_api_key"), (422, "validation_failed"), (403, "invalid_device_binding_token")]:
            with self.subTest(code=code):
                self.stub.seen.clear()
                self.stub.script(json_answer(status, error_body(code)))
                with self.assertRaises(APIError):
                    client(self.stub.base_url).me()
                self.assertEqual(len(self.stub.seen), 1)

    def test_a_patch_that_may_have_run_is_not_repeated_but_a_rate_limited_one_is(self) -> None:
        self.stub.script(json_answer(500, error_body("internal"), Retry_After="0"))
        with self.assertRaises(APIError):
            client(self.stub.base_url).connectors.update("c1", name="n")
        self.assertEqual(len(self.stub.seen), 1)
        self.stub.script(json_answer(429, error_body("rate_limited"), Retry_After="0"), json_answer(body={"id": "c1"}))
        self.assertEqual(client(self.stub.base_url).connectors.update("c1", name="n"), {"id": "c1"})
        self.assertEqual(len(self.stub.seen), 3)

    def test_no_complete_answer_within_the_timeout_is_an_api_timeout_error(self) -> None:
        self.stub.script(Answer(200, {}, delay=1.0))
        with self.assertRaises(APITimeoutError) as caught:
            client(self.stub.base_url, timeout=0.2, max_retries=0).health()
        self.assertEqual(caught.exception.code, "connection_timeout")
        self.assertIsInstance(caught.exception, APIConnectionError)


class DeviceBindingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer().__enter__()
        self.addCleanup(self.stub.__exit__)

    def test_the_first_answers_token_is_kept_and_replayed(self) -> None:
        store = MemoryBindingStore()
        self.stub.script(json_answer(body={}, X_Service_Device_Binding_Token="dbt_one"))
        sdk = client(self.stub.base_url, binding_store=store)
        sdk.me()
        sdk.health()
        self.assertNotIn("x-service-device-binding-token", self.stub.seen[0].headers)
        self.assertEqual(self.stub.seen[1].headers["x-service-device-binding-token"], "dbt_one")
        (key,) = store._tokens
        self.assertTrue(key.startswith(f"{self.stub.base_url}|key:"))
        self.assertTrue(key.endswith(f"|device:{DEVICE_ID}"))
        self.assertEqual(store.get(key), "dbt_one")
        later = client(self.stub.base_url, binding_store=store)
        later.health()
        self.assertEqual(self.stub.seen[2].headers["x-service-device-binding-token"], "dbt_one")

    def test_concurrent_first_requests_wait_for_the_one_that_binds(self) -> None:
        self.stub.script(Answer(200, {}, {"X-Service-Device-Binding-Token": "dbt_once"}, delay=0.3))
        sdk = client(self.stub.base_url)
        threads = [threading.Thread(target=sdk.me) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        tokens = [seen.headers.get("x-service-device-binding-token") for seen in self.stub.seen]
        self.assertEqual(tokens, [None] + ["dbt_once"] * 4)


if __name__ == "__main__":
    unittest.main()
