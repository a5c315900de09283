import os
import shutil
import ssl
import subprocess
import tempfile
import unittest
from unittest import mock

from decision_service import APIConnectionError

from .stub_server import StubServer, json_answer
from .support import client


@unittest.skipUnless(shutil.which("openssl"), "openssl makes the test certificate")
class TlsTest(unittest.TestCase):
    """A loopback HTTPS stub with a certificate of a private CA, as an appliance has."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.scratch = tempfile.TemporaryDirectory()
        cls.cert = os.path.join(cls.scratch.name, "appliance.pem")
        key = os.path.join(cls.scratch.name, "appliance.key")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", cls.cert, "-days", "2", "-subj", "/CN=appliance.test",
             "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"],
            check=True, capture_output=True,
        )
        cls.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cls.context.load_cert_chain(cls.cert, key)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.scratch.cleanup()

    def setUp(self) -> None:
        self.stub = StubServer(self.context).__enter__()
        self.addCleanup(self.stub.__exit__)

    def test_an_untrusted_certificate_is_refused_at_once_not_retried(self) -> None:
        with self.assertRaises(APIConnectionError) as caught:
            client(self.stub.base_url).health()
        self.assertEqual(caught.exception.code, "tls_error")
        self.assertIn("SERVICE_CA_FILE", caught.exception.message)
        self.assertEqual(self.stub.seen, [])

    def test_ca_file_trusts_the_appliances_ca(self) -> None:
        self.stub.script(json_answer(body={"status": "ok"}))
        self.assertEqual(client(self.stub.base_url, ca_file=self.cert).health(), {"status": "ok"})

    def test_service_ca_file_trusts_it_from_the_environment(self) -> None:
        self.stub.script(json_answer(body={"status": "ok"}))
        with mock.patch.dict(os.environ, {"SERVICE_CA_FILE": self.cert}):
            sdk = client(self.stub.base_url)
        self.assertEqual(sdk.health(), {"status": "ok"})


if __name__ == "__main__":
    unittest.main()
