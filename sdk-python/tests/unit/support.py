from typing import Any

from decision_service import DecisionService, MemoryBindingStore

DEVICE_ID = "unit-test-device-000000"


def client(base_url: str, **options: Any) -> DecisionService:
    """A client of the stub with a pinned device id and an in-memory binding store."""
    options.setdefault("device_id", DEVICE_ID)
    options.setdefault("binding_store", MemoryBindingStore())
    return DecisionService("sk-unit-test-key", base_url=base_url, **options)
