import datetime
import json
import os
import threading
from typing import Any, Dict, Optional, Protocol

from ._data_dir import user_data_dir
from ._private_file import read_private_file, write_private_file


class BindingStore(Protocol):
    """Keeps the device binding tokens the service hands out, keyed by the client's binding key."""

    def get(self, key: str) -> Optional[str]: ...

    def set(self, key: str, token: str) -> None: ...

    def delete(self, key: str) -> None: ...


class MemoryBindingStore:
    """Tokens held for the life of the process only."""

    def __init__(self) -> None:
        self._tokens: Dict[str, str] = {}

    def get(self, key: str) -> Optional[str]:
        return self._tokens.get(key)

    def set(self, key: str, token: str) -> None:
        self._tokens[key] = token

    def delete(self, key: str) -> None:
        self._tokens.pop(key, None)


def _iso_now() -> str:
    """The time as JavaScript's Date.toISOString writes it, so both SDKs write the same file."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class FileBindingStore:
    """The default store, shared with the TypeScript SDK: `device-bindings.json` (mode 0600, folder 0700, written
    atomically) in the user's data directory, `{"version": 1, "bindings": {key: {token, saved_at}}}`."""

    def __init__(self, path: Optional[str] = None) -> None:
        self.path = path or os.path.join(user_data_dir(), "device-bindings.json")
        self._lock = threading.Lock()

    def get(self, key: str) -> Optional[str]:
        entry = self._read().get(key)
        token = entry.get("token") if isinstance(entry, dict) else None
        return token if isinstance(token, str) else None

    def set(self, key: str, token: str) -> None:
        with self._lock:
            bindings = self._read()
            bindings[key] = {"token": token, "saved_at": _iso_now()}
            self._write(bindings)

    def delete(self, key: str) -> None:
        with self._lock:
            bindings = self._read()
            if key in bindings:
                del bindings[key]
                self._write(bindings)

    def _read(self) -> Dict[str, Any]:
        text = read_private_file(self.path)
        if text is None:
            return {}
        bindings = json.loads(text).get("bindings")
        return dict(bindings) if isinstance(bindings, dict) else {}

    def _write(self, bindings: Dict[str, Any]) -> None:
        text = json.dumps({"version": 1, "bindings": bindings}, indent=2, ensure_ascii=False)
        write_private_file(self.path, text + "\n")
