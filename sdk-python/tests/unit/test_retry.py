import email.utils
import time
import unittest

from decision_service import APIConnectionError, APIError, DeviceBindingError, JobWaitTimeoutError
from decision_service._errors import retry_after_seconds_of
from decision_service._retry import is_retryable, retry_delay

from .stub_server import StubServer, json_answer
from .support import client


def answer(status: int, code: str = "x", **headers: str) -> APIError:
    return APIError("m", status=status, code=code, headers=headers)


class RetryRulesTest(unittest.TestCase):
    def test_retry_after_reads_seconds_and_http_dates(self) -> None:
        self.assertEqual(retry_after_seconds_of({"retry-after": "2.5"}), 2.5)
        in_a_minute = email.utils.formatdate(time.time() + 60, usegmt=True)
        self.assertAlmostEqual(retry_after_seconds_of({"retry-after": in_a_minute}), 60, delta=2)
        self.assertEqual(retry_after_seconds_of({"retry-after": email.utils.formatdate(0, usegmt=True)}), 0.0)
        self.assertIsNone(retry_after_seconds_of({"retry-after": "soon"}))
        self.assertIsNone(retry_after_seconds_of({}))

    def test_backoff_doubles_from_half_a_second_to_eight_less_a_quarter_of_jitter(self) -> None:
        self.assertEqual([retry_delay(n, answer(503), lambda: 0.0) for n in range(6)], [0.5, 1, 2, 4, 8, 8])
        self.assertEqual(retry_delay(0, answer(503), lambda: 1.0), 0.375)
        self.assertEqual(retry_delay(3, answer(503, **{"Retry-After": "7"})), 7.0)
        self.assertIsNone(retry_delay(0, answer(429, **{"Retry-After": "61"})))

    def test_what_is_retried_for_which_method(self) -> None:
        cases = [
            (answer(503), "GET", True),
            (answer(500), "POST", True),
            (answer(408), "DELETE", True),
            (answer(409, "idempotency_key_in_use"), "POST", True),
            (answer(409, "not_connected"), "POST", False),
            (answer(400), "GET", False),
            (DeviceBindingError("m", status=503, code="device_limit_reached"), "GET", False),
            (APIConnectionError(), "PUT", True),
            (APIConnectionError(code="tls_error"), "GET", False),
            (answer(503), "PATCH", False),
            (APIConnectionError(), "PATCH", False),
            (answer(429), "PATCH", True),
            (APIConnectionError(code="connection_refused"), "PATCH", True),
            (ValueError("not an API error"), "GET", False),
        ]
        for error, method, expected in cases:
            with self.subTest(error=repr(error), method=method):
                self.assertIs(is_retryable(error, method), expected)


class JobWaitTest(unittest.TestCase):
    def test_wait_polls_until_the_job_finishes_or_gives_up(self) -> None:
        with StubServer() as stub:
            stub.script(json_answer(body={"job_id": "j1", "status": "queued"}),
                        json_answer(body={"job_id": "j1", "status": "succeeded", "result": {}}))
            self.assertEqual(client(stub.base_url).jobs.wait("j1", poll_interval=0.01)["status"], "succeeded")
            self.assertEqual([seen.path for seen in stub.seen], ["/v1/jobs/j1", "/v1/jobs/j1"])
            stub.script(*[json_answer(body={"job_id": "j2", "status": "running"})] * 20)
            with self.assertRaises(JobWaitTimeoutError) as caught:
                client(stub.base_url).jobs.wait("j2", poll_interval=0.05, wait_timeout=0.1)
            self.assertEqual(caught.exception.job["status"], "running")


if __name__ == "__main__":
    unittest.main()
