import os
import sys
from typing import Mapping, Optional


def user_data_dir(env: Optional[Mapping[str, str]] = None) -> str:
    """The per-user data directory shared with the TypeScript SDK: $XDG_DATA_HOME (or ~/.local/share),
    ~/Library/Application Support, %APPDATA%, each with `decision-service` appended."""
    env = os.environ if env is None else env
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        return os.path.join(env.get("APPDATA") or os.path.join(home, "AppData", "Roaming"), "decision-service")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "decision-service")
    xdg = (env.get("XDG_DATA_HOME") or "").strip()
    base = xdg if xdg.startswith("/") else os.path.join(home, ".local", "share")
    return os.path.join(base, "decision-service")
