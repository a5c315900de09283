"""Every resource of the client against the real daemon."""
import unittest

from decision_service import (
    ConflictError,
    DecisionService,
    MemoryBindingStore,
    NotFoundError,
    ValidationError,
    verify_webhook,
)

from .support import daemon

CSV = "region,units,price\nnorth,10,2.5\nsouth,20,3\neast,5,4\n"
SCENARIO = {
    "runs": 2000,
    "seed": 42,
    "scenario": {
        "variables": {"revenue": {"low": 100, "high": 200}, "cost": {"low": -150, "high": -60}},
        "objective": "maximize_net_value",
    },
}
ENGINE_MODES = ("pool", "subprocess_fallback")


class ResourcesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = daemon()
        cls.client = DecisionService(
            cls.daemon.owner_key, base_url=cls.daemon.base_url, binding_store=MemoryBindingStore()
        )

    def live_connector(self, name: str) -> str:
        connector = self.client.connectors.create(name=name, connector_type="csv", config={"content": CSV})
        self.client.connectors.test(connector["id"])
        return connector["id"]

    def test_me_health_ready_infrastructure_license_openapi_and_audit_log(self) -> None:
        me = self.client.me()
        self.assertEqual((me["auth"], me["key"]["role"], me["organization"]["is_operator"]), ("api_key", "owner", True))
        self.assertEqual(self.client.health()["status"], "ok")
        self.assertIn("status", self.client.ready())
        self.assertIn(self.client.infrastructure()["engine_mode"], ENGINE_MODES)
        self.assertEqual(self.client.license()["edition"], "community")
        self.assertEqual(self.client.openapi()["openapi"], "3.1.0")
        events = [event["event"] for event in self.client.audit_log(limit=50)]
        self.assertIn("signup", events)

    def test_privacy_report_and_the_kept_reports(self) -> None:
        report = self.client.privacy_report()
        self.assertIs(report["cloud_free"], True)
        self.assertTrue(report["signature"])
        self.assertIn("public_key_pem", self.client.privacy_reports.public_key())
        kept = self.client.privacy_reports.list(limit=1).to_list()
        self.assertGreaterEqual(len(kept), 1)
        self.assertEqual(self.client.privacy_reports.get(kept[0]["id"])["report_id"], kept[0]["id"])

    def test_simulate_answers_the_same_numbers_for_the_same_seed(self) -> None:
        first = self.client.simulate(**SCENARIO)
        second = self.client.simulate(runs=2000, seed=42, scenario=SCENARIO["scenario"])
        self.assertEqual((first["seed"], first["runs"]), (42, 2000))
        self.assertEqual(first["expected_value"], second["expected_value"])
        self.assertIn(first["engine_mode"], ENGINE_MODES)

    def test_simulate_refuses_a_bad_body_with_validation_error_and_its_details(self) -> None:
        with self.assertRaises(ValidationError) as caught:
            self.client.simulate(**{**SCENARIO, "runs": 0})
        error = caught.exception
        self.assertEqual((error.status, error.code), (422, "validation_failed"))
        self.assertIn("runs", [detail["field"] for detail in error.details])
        self.assertTrue(error.request_id)

    def test_api_keys_create_list_and_revoke(self) -> None:
        created = self.client.api_keys.create(label="py-made", device_limit=0)
        self.assertEqual(created["label"], "py-made")
        self.assertRegex(created["raw_key"], r"_(live|test)_")
        listed = list(self.client.api_keys.list())
        self.assertTrue(any(key["id"] == created["id"] and "raw_key" not in key for key in listed))
        self.assertIs(self.client.api_keys.revoke(created["id"])["revoked"], True)
        self.assertNotIn(created["id"], [key["id"] for key in self.client.api_keys.list()])
        with self.assertRaises(NotFoundError) as caught:
            self.client.api_keys.revoke("key_does_not_exist")
        self.assertEqual(caught.exception.code, "api_key_not_found")

    def test_devices_register_license_key_list_and_revoke(self) -> None:
        registration = self.client.devices.register()
        self.assertEqual(registration["device_id"], self.client.device.device_id)
        self.assertIsInstance(registration["license_token"], str)
        self.assertIn("public_key_pem", self.client.devices.license_key())
        ids = [device["registration_id"] for device in self.client.devices.list()]
        self.assertIn(registration["registration_id"], ids)
        self.assertIs(self.client.devices.revoke(registration["registration_id"])["revoked"], True)

    def test_provider_keys_set_list_and_delete(self) -> None:
        self.client.provider_keys.set(backend="engine", api_key="sk-engine-secret-value")
        listed = self.client.provider_keys.list().to_list()
        self.assertEqual([key["backend"] for key in listed], ["engine"])
        self.assertNotIn("sk-engine-secret-value", repr(listed))
        self.client.provider_keys.delete("engine")
        self.assertEqual(self.client.provider_keys.list().to_list(), [])
        with self.assertRaises(NotFoundError):
            self.client.provider_keys.delete("engine")

    def test_connectors_every_call(self) -> None:
        self.assertIn("file", self.client.connectors.types()["types"])
        created = self.client.connectors.create(name="sales", connector_type="csv", config={"content": CSV})
        self.assertEqual((created["status"], created["connector_type"]), ("untested", "file"))
        with self.assertRaises(ConflictError) as caught:
            self.client.connectors.browse(created["id"])
        self.assertEqual(caught.exception.code, "not_connected")
        self.assertIs(self.client.connectors.test(created["id"])["success"], True)
        self.assertEqual(self.client.connectors.get(created["id"])["status"], "live")
        self.assertEqual(self.client.connectors.browse(created["id"])["connector_type"], "file")
        self.assertEqual(self.client.connectors.update(created["id"], name="sales-2024")["name"], "sales-2024")
        inline = {"connector_type": "csv", "config": {"content": CSV}}
        self.assertIs(self.client.connectors.test_inline(**inline)["success"], True)
        self.assertEqual(self.client.connectors.browse_inline(**inline)["connector_type"], "file")
        uploaded = self.client.connectors.upload("units.csv", CSV.encode())
        self.assertIn("file_path", uploaded)
        self.assertIsNone(self.client.connectors.delete(created["id"]))
        with self.assertRaises(NotFoundError):
            self.client.connectors.get(created["id"])

    def test_connectors_list_iterates_every_page(self) -> None:
        made = [
            self.client.connectors.create(name=f"paged-{i}", connector_type="csv", config={"content": CSV})["id"]
            for i in range(5)
        ]
        first = self.client.connectors.list(limit=2).first_page()
        self.assertEqual(len(first["connectors"]), 2)
        self.assertIsInstance(first["next_cursor"], str)
        every = [connector["id"] for connector in self.client.connectors.list(limit=2)]
        self.assertEqual(len(every), len(set(every)))
        self.assertTrue(set(made) <= set(every))

    def test_data_and_query(self) -> None:
        connected = self.client.data.connect(
            connection_type="file", dataset_name="units", connection_id=self.live_connector("units"), visibility="private"
        )
        self.assertEqual(connected["status"], "ready")
        dataset_id = connected["dataset_id"]
        self.assertTrue(any(d["id"] == dataset_id and d["rows"] == 3 for d in self.client.data.list()))
        self.assertTrue(any(d["id"] == dataset_id for d in self.client.data.list(compact=True, search="units")))
        self.assertEqual(self.client.data.get(dataset_id)["id"], dataset_id)
        schema = self.client.data.schema(dataset_id)
        self.assertEqual([column["name"] for column in schema["columns"]], ["region", "units", "price"])
        self.assertIn("columns", self.client.data.summary(dataset_id))
        self.assertEqual([d["version"] for d in self.client.data.versions(dataset_id)["datasets"]], [1])
        with_formula = self.client.data.set_formulas(dataset_id, formulas=[{"name": "revenue", "expression": "units * price"}])
        self.assertEqual([formula["name"] for formula in with_formula["formulas"]], ["revenue"])

        rows = self.client.query(dataset_id=dataset_id, select=["region", "units"], limit=2)["rows"]
        self.assertEqual([row["region"] for row in rows], ["north", "south"])
        self.assertEqual(self.client.data.query(dataset_id=dataset_id, select=["region"], limit=1)["rows"], [{"region": "north"}])
        batch = self.client.query.batch(queries=[{"dataset_id": dataset_id, "select": ["units"], "limit": 1}])
        self.assertEqual(len(batch["results"]), 1)
        report = self.client.query.sql(dataset_id=dataset_id, sql="SELECT region FROM dataset ORDER BY units DESC LIMIT 1")
        self.assertEqual(report["rows"], [{"region": "south"}])

        self.assertIsNone(self.client.data.delete(dataset_id))
        with self.assertRaises(NotFoundError):
            self.client.data.get(dataset_id)

    def test_jobs_create_get_wait_list_and_cancel(self) -> None:
        created = self.client.jobs.create(request=SCENARIO)
        self.assertEqual(self.client.jobs.get(created["job_id"])["job_id"], created["job_id"])
        finished = self.client.jobs.wait(created["job_id"], poll_interval=0.1)
        self.assertEqual(finished["status"], "succeeded")
        self.assertEqual(finished["result"]["expected_value"], self.client.simulate(**SCENARIO)["expected_value"])
        self.assertIn(created["job_id"], [job["job_id"] for job in self.client.jobs.list(limit=10)])
        with self.assertRaises(ConflictError):
            self.client.jobs.cancel(created["job_id"])

    def test_triggers_every_call(self) -> None:
        receiver = self.daemon.receiver
        created = self.client.triggers.create(
            name="py trigger",
            condition={"source": {"kind": "push"}, "operator": "lt", "threshold": 100},
            simulation=SCENARIO,
            webhook_url=receiver.url,
        )
        trigger_id = created["id"]
        self.assertEqual(created["state"], "inactive")
        self.assertEqual(self.client.triggers.get(trigger_id)["name"], "py trigger")
        self.assertIn(trigger_id, [trigger["id"] for trigger in self.client.triggers.list(limit=1)])
        self.assertEqual(self.client.triggers.update(trigger_id, name="renamed", cooldown_s=60)["cooldown_s"], 60)
        dry = self.client.triggers.evaluate(trigger_id, current_value=5)
        self.assertEqual((dry["condition_met"], dry["would_fire"]), (True, True))
        fired = self.client.triggers.fire(trigger_id, current_value=5)
        self.assertRegex(fired["run_id"], r"^run_")
        self.assertEqual(receiver.next("trigger.fired").event, "trigger.fired")
        quiet = self.client.triggers.fire(trigger_id, current_value=500)
        self.assertIs(quiet["condition_met"], False)
        history = [fire["fire_id"] for fire in self.client.triggers.fires(trigger_id)]
        self.assertEqual(history, [quiet["fire_id"], fired["fire_id"]])
        self.assertEqual(self.client.triggers.report_outcome(trigger_id, fired["fire_id"], realized_value=80)["realized_value"], 80)
        with self.assertRaises(ConflictError):
            self.client.triggers.report_outcome(trigger_id, fired["fire_id"], realized_value=80)
        calibration = self.client.triggers.calibration(trigger_id)
        self.assertEqual((calibration["status"], calibration["outcomes"]), ("calibrating", 1))
        self.assertEqual(self.client.triggers.delete(trigger_id), {"id": trigger_id, "deleted": True})
        with self.assertRaises(NotFoundError):
            self.client.triggers.get(trigger_id)

    def test_execution_policy_get_set_and_snapshot(self) -> None:
        initial = self.client.execution_policy.get()
        self.assertEqual(initial["mode"], "calibrated_only")
        changed = self.client.execution_policy.set(mode="never", min_outcomes=40)
        self.assertNotEqual(changed["policy_snapshot_id"], initial["policy_snapshot_id"])
        self.assertEqual(self.client.execution_policy.snapshot(initial["policy_snapshot_id"]), initial)
        self.client.execution_policy.set(mode="calibrated_only")

    def test_webhooks_deliveries_verify_with_both_schemes_across_a_rotation(self) -> None:
        receiver = self.daemon.receiver
        secret = self.client.webhooks.signing_secret()["signing_secret"]
        tested = self.client.webhooks.test(callback_url=receiver.url)
        self.assertEqual((tested["success"], tested["status_code"]), (True, 200))
        delivery = receiver.next("webhook.test")
        self.assertEqual(verify_webhook(delivery.body, delivery.headers, secret)["event"], "webhook.test")

        job = self.client.jobs.create(request=SCENARIO, callback_url=receiver.url)
        completed = receiver.next("job.completed")
        self.assertEqual(verify_webhook(completed.body, completed.headers, secret)["job_id"], job["job_id"])
        deliveries = list(self.client.webhooks.deliveries(job_id=job["job_id"]))
        self.assertEqual([d["event"] for d in deliveries], ["job.completed"])
        self.assertEqual(self.client.webhooks.redeliver(deliveries[0]["id"])["id"], deliveries[0]["id"])
        self.assertEqual(list(self.client.webhooks.inbound(limit=5)), [])

        rotated = self.client.webhooks.rotate_signing_secret()["signing_secret"]
        self.client.webhooks.test(callback_url=receiver.url)
        during_grace = receiver.next("webhook.test")
        self.assertEqual(verify_webhook(during_grace.body, during_grace.headers, rotated)["event"], "webhook.test")
        self.assertEqual(verify_webhook(during_grace.body, during_grace.headers, secret)["event"], "webhook.test")

    def test_runtime_manifest_and_libraries_health(self) -> None:
        self.assertIn("modules", self.client.runtime_manifest())
        with self.assertRaises(NotFoundError):  # unless SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED is set
            self.client.libraries_health()


if __name__ == "__main__":
    unittest.main()
