"""Device binding of capped keys against the real daemon, and the binding store shared with the TypeScript SDK."""
import json
import os
import stat
import subprocess
import tempfile
import unittest
from unittest import mock

from decision_service import DecisionService, DeviceBindingError, FileBindingStore, MemoryBindingStore

from .support import NODE, REPO_ROOT, daemon

TS_SDK = os.path.join(REPO_ROOT, "sdk", "dist", "index.js")
TS_ME = """
const { DecisionService } = require(process.argv[1]);
new DecisionService().me().then(
  (me) => console.log(JSON.stringify({ device_id: me.device_id })),
  (error) => { console.error(error.code, error.message); process.exit(1); },
);
"""


class CappedKeyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = daemon()
        cls.proxy = cls.daemon.proxy
        cls.owner = DecisionService(cls.daemon.owner_key, base_url=cls.daemon.base_url, binding_store=MemoryBindingStore())

    def setUp(self) -> None:
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.home = scratch.name

    def capped_key(self, label: str) -> str:
        created = self.owner.api_keys.create(label=label, device_limit=1)
        self.key_id = created["id"]
        return created["raw_key"]

    def devices_of_the_key(self):
        return [device["device_id"] for device in self.owner.devices.list() if device["key_id"] == self.key_id]

    def test_a_capped_key_binds_once_and_replays_its_token(self) -> None:
        key = self.capped_key("py-capped")
        path = os.path.join(self.home, "device-bindings.json")
        device_id = "py-sdk-device-one-000000"

        def sdk(store):
            return DecisionService(key, base_url=self.proxy.base_url, device_id=device_id, binding_store=store)

        first_seen = len(self.proxy.seen)
        self.assertEqual(sdk(FileBindingStore(path)).me()["device_id"], device_id)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        with open(path) as handle:
            text = handle.read()
        self.assertNotIn(key, text)
        ((store_key, entry),) = json.loads(text)["bindings"].items()
        self.assertTrue(store_key.startswith(f"{self.proxy.base_url}|key:"))
        self.assertRegex(entry["token"], r"^dbt_")

        later = sdk(FileBindingStore(path))
        later.health()
        later.connectors.types()
        replayed = [seen.headers.get("x-service-device-binding-token") for seen in self.proxy.seen[first_seen:]]
        self.assertEqual(replayed, [None, entry["token"], entry["token"]])
        self.assertEqual(self.devices_of_the_key(), [device_id])

        with self.assertRaises(DeviceBindingError) as forgot:
            sdk(MemoryBindingStore()).me()
        self.assertEqual(forgot.exception.code, "device_binding_token_required")
        with self.assertRaises(DeviceBindingError) as second_device:
            DecisionService(key, base_url=self.proxy.base_url, device_id="py-sdk-device-two-000000",
                            binding_store=MemoryBindingStore()).me()
        self.assertEqual((second_device.exception.status, second_device.exception.code), (402, "device_limit_reached"))

    def test_an_uncapped_key_is_never_bound(self) -> None:
        store = MemoryBindingStore()
        sdk = DecisionService(self.daemon.owner_key, base_url=self.daemon.base_url, device_id="py-sdk-uncapped-00000",
                              binding_store=store)
        sdk.me()
        sdk.me()
        self.assertEqual(store._tokens, {})

    def run_typescript_sdk(self, key: str) -> str:
        """`me()` from the TypeScript SDK with its default store and derived device id, in this test's home."""
        run = subprocess.run(
            [NODE, "-e", TS_ME, TS_SDK],
            env={"PATH": os.environ.get("PATH", ""), "HOME": self.home, "XDG_DATA_HOME": os.path.join(self.home, "data"),
                 "SERVICE_API_KEY": key, "SERVICE_BASE_URL": self.daemon.base_url},
            capture_output=True, text=True, timeout=120,
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)["device_id"]

    def python_client(self, key: str) -> DecisionService:
        """The Python SDK with its default store and derived device id, in this test's home."""
        env = {"HOME": self.home, "XDG_DATA_HOME": os.path.join(self.home, "data")}
        with mock.patch.dict(os.environ, env):
            return DecisionService(key, base_url=self.daemon.base_url)

    @unittest.skipUnless(os.path.exists(TS_SDK), "the TypeScript SDK is not built (npm run build)")
    def test_a_key_bound_by_the_typescript_sdk_works_from_the_python_sdk(self) -> None:
        key = self.capped_key("bound-by-ts")
        device_id = self.run_typescript_sdk(key)
        store = os.path.join(self.home, "data", "decision-service", "device-bindings.json")
        with open(store) as handle:
            written_by_ts = handle.read()
        client = self.python_client(key)
        self.assertEqual(client.device.device_id, device_id)
        self.assertEqual(client.me()["device_id"], device_id)
        with open(store) as handle:
            self.assertEqual(handle.read(), written_by_ts)
        self.assertEqual(self.devices_of_the_key(), [device_id])

    @unittest.skipUnless(os.path.exists(TS_SDK), "the TypeScript SDK is not built (npm run build)")
    def test_a_key_bound_by_the_python_sdk_works_from_the_typescript_sdk(self) -> None:
        key = self.capped_key("bound-by-python")
        device_id = self.python_client(key).me()["device_id"]
        self.assertEqual(self.run_typescript_sdk(key), device_id)
        self.assertEqual(self.devices_of_the_key(), [device_id])


if __name__ == "__main__":
    unittest.main()
