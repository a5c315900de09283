import urllib.parse
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar

from .._transport import RequestOptions, Transport

F = TypeVar("F", bound=Callable[..., Any])
Options = Optional[RequestOptions]


def operation(operation_id: str) -> Callable[[F], F]:
    """Marks the method that serves an operation of contract/openapi.json (tests/unit/test_contract.py reads it)."""

    def mark(method: F) -> F:
        method.__operation__ = operation_id  # type: ignore[attr-defined]
        return method

    return mark


def segment(value: str) -> str:
    """A path parameter, percent-encoded like JavaScript's encodeURIComponent."""
    return urllib.parse.quote(str(value), safe="-_.!~*'()")


def body_of(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """The JSON body: the keyword arguments the caller passed (None means: leave the field out)."""
    return {name: value for name, value in fields.items() if value is not None}


class Resource:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport
