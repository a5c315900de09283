"""Retries against the real daemon: a POST whose answer was lost is retried with its Idempotency-Key and runs once."""
import unittest

from decision_service import APIConnectionError, DecisionService, MemoryBindingStore

from .support import daemon

REQUEST = {"runs": 500, "seed": 3, "scenario": {"variables": {"gain": {"low": 1, "high": 2}}, "objective": "maximize_net_value"}}


class LostAnswerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = daemon()
        cls.proxy = cls.daemon.proxy
        cls.owner = DecisionService(cls.daemon.owner_key, base_url=cls.daemon.base_url, binding_store=MemoryBindingStore())
        cls.client = DecisionService(cls.daemon.owner_key, base_url=cls.proxy.base_url, binding_store=MemoryBindingStore())

    def test_a_job_post_retried_after_a_dropped_answer_creates_one_job(self) -> None:
        before = self.owner.jobs.list().to_list()
        first_seen = len(self.proxy.seen)
        self.proxy.drop_after(1)
        job = self.client.jobs.create(request=REQUEST)
        attempts = [seen for seen in self.proxy.seen[first_seen:] if seen.path == "/v1/jobs"]
        self.assertEqual(len(attempts), 2)
        self.assertEqual(attempts[0].headers["idempotency-key"], attempts[1].headers["idempotency-key"])
        after = self.owner.jobs.list().to_list()
        self.assertEqual(len(after), len(before) + 1)
        self.assertEqual(after[0]["job_id"], job["job_id"])

    def test_a_connector_post_retried_after_a_dropped_answer_creates_one_connector(self) -> None:
        before = {c["id"] for c in self.owner.connectors.list()}
        self.proxy.drop_after(1)
        made = self.client.connectors.create(name="once", connector_type="csv", config={"content": "a\n1\n"})
        after = {c["id"] for c in self.owner.connectors.list()}
        self.assertEqual(after - before, {made["id"]})

    def test_without_retries_the_lost_answer_is_a_connection_error(self) -> None:
        self.proxy.drop_after(1)
        with self.assertRaises(APIConnectionError):
            self.client.health(request_options={"max_retries": 0})


if __name__ == "__main__":
    unittest.main()
