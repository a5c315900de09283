import hashlib
import hmac
import json
import os
import stat
import tempfile
import unittest

from decision_service import FileBindingStore
from decision_service._data_dir import user_data_dir
from decision_service._device import derive_device_id, device_identity, read_machine_id


class DeviceTest(unittest.TestCase):
    def test_the_device_id_is_an_application_specific_hmac_of_the_machine_id(self) -> None:
        expected = hmac.new(b"0123abcd", b"decision-service-sdk/device-id/v1", hashlib.sha256).hexdigest()[:40]
        self.assertEqual(derive_device_id("0123abcd"), expected)
        identity = device_identity("0123abcd", None)
        self.assertEqual(identity.device_id, expected)
        self.assertNotIn("0123abcd", repr(identity))
        self.assertEqual(device_identity("0123abcd", "pinned-device-id-0000").device_id, "pinned-device-id-0000")

    def test_the_machine_id_file_comes_first(self) -> None:
        if not os.path.exists("/etc/machine-id"):
            self.skipTest("this machine has no /etc/machine-id")
        with open("/etc/machine-id") as handle:
            self.assertEqual(read_machine_id("/nonexistent/machine-id"), handle.read().strip())

    def test_the_data_dir_follows_xdg_data_home(self) -> None:
        home = os.path.expanduser("~")
        self.assertEqual(user_data_dir({"XDG_DATA_HOME": "/x/data"}), "/x/data/decision-service")
        self.assertEqual(user_data_dir({"XDG_DATA_HOME": "relative"}), f"{home}/.local/share/decision-service")
        self.assertEqual(user_data_dir({}), f"{home}/.local/share/decision-service")


class FileBindingStoreTest(unittest.TestCase):
    def setUp(self) -> None:
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.path = os.path.join(scratch.name, "nested", "device-bindings.json")

    def test_tokens_go_to_a_0600_file_in_a_0700_folder_in_the_typescript_sdks_format(self) -> None:
        store = FileBindingStore(self.path)
        self.assertIsNone(store.get("k1"))
        store.set("k1", "dbt_1")
        store.set("k2", "dbt_2")
        store.delete("k2")
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(self.path)).st_mode), 0o700)
        with open(self.path) as handle:
            text = handle.read()
        written = json.loads(text)
        self.assertEqual(list(written), ["version", "bindings"])
        self.assertEqual(written["version"], 1)
        self.assertEqual(list(written["bindings"]), ["k1"])
        self.assertEqual(written["bindings"]["k1"]["token"], "dbt_1")
        self.assertRegex(written["bindings"]["k1"]["saved_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertTrue(text.startswith('{\n  "version": 1,\n  "bindings": {\n    "k1": {\n'))
        self.assertTrue(text.endswith("}\n"))
        self.assertEqual(FileBindingStore(self.path).get("k1"), "dbt_1")
        self.assertEqual([name for name in os.listdir(os.path.dirname(self.path))], ["device-bindings.json"])


if __name__ == "__main__":
    unittest.main()
