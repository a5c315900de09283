"""docs/sdk-python.md as a user meets it: the offline install of the wheel, then the quick start, as written."""
import os
import re
import subprocess
import tempfile
import unittest

from decision_service import SDK_VERSION

from .support import REPO_ROOT, SDK_ROOT, daemon

DOC = os.path.join(REPO_ROOT, "docs", "sdk-python.md")
SHIPPED_WHEEL = f"/usr/share/decision-service/sdk/decision_service-{SDK_VERSION}-py3-none-any.whl"


def block_under(heading: str, language: str) -> str:
    with open(DOC, encoding="utf-8") as handle:
        text = handle.read()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(rf"```{language}\n(.*?)```", section, re.DOTALL).group(1)


class QuickStartTest(unittest.TestCase):
    def test_the_offline_install_and_the_quick_start_run_as_written(self) -> None:
        with tempfile.TemporaryDirectory() as home:
            wheel = subprocess.run(
                ["bash", os.path.join(SDK_ROOT, "scripts", "build-wheel.sh"), os.path.join(home, "wheel")],
                check=True, capture_output=True, text=True,
            ).stdout.strip()
            install = block_under("Install (offline)", "sh")
            self.assertIn(SHIPPED_WHEEL, install)
            # Debian's python3 and nothing of the checkout; no network is needed (pip --no-index).
            env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"}
            run = subprocess.run(
                ["bash", "-euc", install.replace(SHIPPED_WHEEL, wheel)], cwd=home, env=env, capture_output=True, text=True
            )
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

            with open(os.path.join(home, "quickstart.py"), "w", encoding="utf-8") as handle:
                handle.write(block_under("Quick start", "python"))
            service = daemon()
            run = subprocess.run(
                [os.path.join(home, "decision-venv", "bin", "python"), "quickstart.py"],
                cwd=home,
                env={**env, "SERVICE_BASE_URL": service.base_url, "SERVICE_API_KEY": service.owner_key},
                capture_output=True, text=True, timeout=300,
            )
            self.assertEqual(run.returncode, 0, run.stderr)
            organization, result = run.stdout.splitlines()
            self.assertRegex(organization, r"^organization: \S")
            action, expected_value, engine_mode = result.split(" ")
            self.assertTrue(action)
            float(expected_value)
            self.assertIn(engine_mode, ("pool", "subprocess_fallback"))


if __name__ == "__main__":
    unittest.main()
