import os
import tempfile
import unittest
from unittest import mock

from decision_service import ConfigurationError, DecisionClient, DecisionService, MemoryBindingStore
from decision_service._options import resolve_options

KEY = "sk-test"


def resolved(env, **options):
    return resolve_options(env=env, **options)


class OptionsTest(unittest.TestCase):
    def test_the_key_comes_from_the_argument_then_service_api_key_then_service_token(self) -> None:
        env = {"SERVICE_API_KEY": "from-api-key", "SERVICE_TOKEN": "from-token"}
        self.assertEqual(resolved(env, api_key="given").api_key, "given")
        self.assertEqual(resolved(env).api_key, "from-api-key")
        self.assertEqual(resolved({"SERVICE_API_KEY": " ", "SERVICE_TOKEN": "from-token"}).api_key, "from-token")

    def test_no_key_anywhere_names_both_variables(self) -> None:
        with self.assertRaises(ConfigurationError) as caught:
            resolved({})
        self.assertIn("SERVICE_API_KEY", str(caught.exception))
        self.assertIn("SERVICE_TOKEN", str(caught.exception))

    def test_the_base_url_comes_from_the_argument_then_three_variables_then_the_default(self) -> None:
        env = {"SERVICE_BASE_URL": "http://a:1", "SERVICE_URL": "http://b:2", "SERVICE_API_URL": "http://c:3"}
        self.assertEqual(resolved(env, api_key=KEY, base_url="http://given:9").base_url, "http://given:9")
        self.assertEqual(resolved(env, api_key=KEY).base_url, "http://a:1")
        del env["SERVICE_BASE_URL"]
        self.assertEqual(resolved(env, api_key=KEY).base_url, "http://b:2")
        del env["SERVICE_URL"]
        self.assertEqual(resolved(env, api_key=KEY).base_url, "http://c:3")
        self.assertEqual(resolved({}, api_key=KEY).base_url, "http://127.0.0.1:8080")

    def test_the_base_url_is_written_as_the_typescript_sdk_writes_it(self) -> None:
        cases = {
            "HTTP://Appliance.Corp:80/": "http://appliance.corp",
            "https://appliance.corp:443/api//": "https://appliance.corp/api",
            "http://127.0.0.1:8080": "http://127.0.0.1:8080",
            "https://[::1]:8443/": "https://[::1]:8443",
        }
        for raw, expected in cases.items():
            with self.subTest(raw=raw):
                self.assertEqual(resolved({}, api_key=KEY, base_url=raw).base_url, expected)

    def test_a_bad_base_url_names_where_it_came_from(self) -> None:
        for raw in ["ftp://x", "http://x/?a=1", "not a url"]:
            with self.subTest(raw=raw), self.assertRaises(ConfigurationError) as caught:
                resolved({"SERVICE_URL": raw}, api_key=KEY)
            self.assertIn("SERVICE_URL", str(caught.exception))

    def test_the_device_id_comes_from_the_argument_then_two_variables_and_is_checked(self) -> None:
        env = {"SERVICE_DEVICE_ID": "device-from-env-000", "SERVICE_DEVICE": "device-legacy-00000"}
        self.assertEqual(resolved(env, api_key=KEY).device_id, "device-from-env-000")
        self.assertEqual(resolved({"SERVICE_DEVICE": "device-legacy-00000"}, api_key=KEY).device_id, "device-legacy-00000")
        self.assertIsNone(resolved({}, api_key=KEY).device_id)
        with self.assertRaises(ConfigurationError) as caught:
            resolved({"SERVICE_DEVICE": "short"}, api_key=KEY)
        self.assertIn("SERVICE_DEVICE", str(caught.exception))

    def test_timeout_max_retries_and_ca_file(self) -> None:
        self.assertEqual(resolved({}, api_key=KEY)[3:5], (60.0, 2))
        with self.assertRaises(ConfigurationError):
            resolved({}, api_key=KEY, max_retries=-1)
        with self.assertRaises(ConfigurationError):
            resolved({}, api_key=KEY, timeout=0)
        with tempfile.NamedTemporaryFile() as ca:
            self.assertEqual(resolved({"SERVICE_CA_FILE": ca.name}, api_key=KEY).ca_file, ca.name)
        with self.assertRaises(ConfigurationError) as caught:
            resolved({"SERVICE_CA_FILE": "/nonexistent/ca.pem"}, api_key=KEY)
        self.assertIn("SERVICE_CA_FILE", str(caught.exception))

    def test_the_client_reads_the_process_environment_and_has_its_legacy_name(self) -> None:
        env = {"SERVICE_TOKEN": "legacy-key", "SERVICE_API_URL": "http://legacy:1"}
        with mock.patch.dict(os.environ, env, clear=True):
            sdk = DecisionClient(binding_store=MemoryBindingStore())
        self.assertIs(DecisionClient, DecisionService)
        self.assertEqual(sdk.base_url, "http://legacy:1")


if __name__ == "__main__":
    unittest.main()
