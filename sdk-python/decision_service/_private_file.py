import os
import secrets
from typing import Optional


def read_private_file(path: str) -> Optional[str]:
    """The file's text, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def write_private_file(path: str, text: str) -> None:
    """Writes through a 0600 temporary file and a rename, so a reader never sees half a file and no one else can
    read it (the TypeScript SDK writes the same way)."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    temporary = f"{path}.{secrets.token_hex(6)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
