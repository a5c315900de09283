import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import decision_service
from decision_service import types

SDK_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO_ROOT = os.path.dirname(SDK_ROOT)


class GeneratedTypesTest(unittest.TestCase):
    def test_types_py_is_what_the_generator_makes_from_the_contract(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            fresh = os.path.join(scratch, "types.py")
            subprocess.run(
                [sys.executable, os.path.join(SDK_ROOT, "scripts", "generate_types.py"), fresh],
                check=True,
                capture_output=True,
            )
            with open(fresh, encoding="utf-8") as handle, open(types.__file__, encoding="utf-8") as committed:
                stale = handle.read() != committed.read()
        self.assertFalse(
            stale, "sdk-python/decision_service/types.py is stale: run python3 sdk-python/scripts/generate_types.py"
        )

    def test_every_schema_of_the_contract_is_a_type(self) -> None:
        with open(os.path.join(REPO_ROOT, "contract", "openapi.json"), encoding="utf-8") as handle:
            contract = json.load(handle)
        missing = [name for name in contract["components"]["schemas"] if not hasattr(types, name)]
        self.assertEqual(missing, [])
        self.assertEqual(types.SimulateRequest.__required_keys__, frozenset({"scenario"}))
        self.assertIn("seed", types.SimulateRequest.__optional_keys__)

    def test_the_version_is_the_packages_and_the_typescript_sdks(self) -> None:
        with open(os.path.join(SDK_ROOT, "pyproject.toml"), encoding="utf-8") as handle:
            declared = re.search(r'^version = "([^"]+)"$', handle.read(), re.MULTILINE).group(1)
        with open(os.path.join(REPO_ROOT, "sdk", "package.json"), encoding="utf-8") as handle:
            typescript = json.load(handle)["version"]
        self.assertEqual((decision_service.SDK_VERSION, declared), (typescript, typescript))


if __name__ == "__main__":
    unittest.main()
