import hashlib
import hmac
import os
import platform
import re
import secrets
import socket
import sys
from typing import Dict, NamedTuple, Optional

from ._data_dir import user_data_dir
from ._private_file import read_private_file, write_private_file

MACHINE_ID_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")


class DeviceIdentity(NamedTuple):
    """What the device headers say about this machine."""

    device_id: str
    platform: str
    platform_version: str
    hostname_hash: str


def read_machine_id(fallback_path: Optional[str] = None) -> str:
    """The machine's identity secret: the OS machine id, or else a random id made once and kept (0600) in the
    user's data directory. It never leaves the machine: only application-specific HMACs of it are sent."""
    for path in MACHINE_ID_FILES:
        try:
            machine_id = (read_private_file(path) or "").strip()
        except OSError:
            machine_id = ""
        if machine_id:
            return machine_id
    fallback_path = fallback_path or os.path.join(user_data_dir(), "machine-id")
    kept = (read_private_file(fallback_path) or "").strip()
    if kept:
        return kept
    made = secrets.token_hex(16)
    write_private_file(fallback_path, f"{made}\n")
    return made


def _app_specific(machine_id: str, purpose: str) -> str:
    message = f"decision-service-sdk/{purpose}".encode("utf-8")
    return hmac.new(machine_id.encode("utf-8"), message, hashlib.sha256).hexdigest()


def derive_device_id(machine_id: str) -> str:
    """The stable per-machine device id (40 hex characters), the same the TypeScript SDK derives."""
    return _app_specific(machine_id, "device-id/v1")[:40]


def node_platform() -> str:
    """The platform name as Node's process.platform spells it (linux, darwin, win32, freebsd...)."""
    return re.sub(r"\d+$", "", sys.platform)


def device_identity(machine_id: str, pinned_device_id: Optional[str]) -> DeviceIdentity:
    return DeviceIdentity(
        device_id=pinned_device_id or derive_device_id(machine_id),
        platform=node_platform(),
        platform_version=platform.release(),
        hostname_hash=_app_specific(machine_id, f"hostname/v1\n{socket.gethostname()}"),
    )


def device_headers(identity: DeviceIdentity) -> Dict[str, str]:
    return {
        "X-Service-Device-Id": identity.device_id,
        "X-Service-Platform": identity.platform,
        "X-Service-Platform-Version": identity.platform_version,
        "X-Service-Hostname-Hash": identity.hostname_hash,
    }
