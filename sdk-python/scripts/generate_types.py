#!/usr/bin/env python3
"""Generates decision_service/types.py from the committed contract (contract/openapi.json).

    python3 sdk-python/scripts/generate_types.py [OUTPUT]

Each component schema becomes a TypedDict (a JSON object of the wire format); OPERATIONS lists every operation of
the contract with its method, path, request body and answer. tests/unit/test_types.py fails while the committed
file differs from what this script makes, so the contract stays the one source of the types.
"""
import json
import keyword
import sys
from pathlib import Path

SDK_ROOT = Path(__file__).resolve().parent.parent
CONTRACT = SDK_ROOT.parent / "contract" / "openapi.json"
DEFAULT_OUTPUT = SDK_ROOT / "decision_service" / "types.py"

HEADER = '''"""Types of the Decision Service wire format, generated from contract/openapi.json. Do not edit by hand:
run `python3 sdk-python/scripts/generate_types.py` after the contract changes."""
# fmt: off
from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, TypedDict, Union


'''

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def union(members):
    unique = []
    for member in members:
        if member not in unique:
            unique.append(member)
    if "Any" in unique:
        return "Any"
    if len(unique) == 1:
        return unique[0]
    if "None" in unique:
        rest = [m for m in unique if m != "None"]
        return f"Optional[{union(rest)}]"
    return f"Union[{', '.join(unique)}]"


def annotation(schema) -> str:
    """The Python type of a schema (annotations are not evaluated, so a component may come later in the file)."""
    if not isinstance(schema, dict) or not schema:
        return "Any"
    if "$ref" in schema:
        return ref_name(schema["$ref"])
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            return union([annotation(member) for member in schema[combinator]])
    if "allOf" in schema:
        members = schema["allOf"]
        return annotation(members[0]) if len(members) == 1 else "Dict[str, Any]"
    if "enum" in schema:
        return f"Literal[{', '.join(repr(value) for value in schema['enum'])}]"
    kind = schema.get("type")
    if isinstance(kind, list):
        return union([annotation({**schema, "type": member}) for member in kind])
    if kind == "array":
        return f"List[{annotation(schema.get('items'))}]"
    if kind == "object" or kind is None:
        extra = schema.get("additionalProperties")
        value = annotation(extra) if isinstance(extra, dict) else "Any"
        return f"Dict[str, {value}]"
    return SCALARS.get(kind, "Any")


def typed_dict(name: str, schema) -> str:
    """A TypedDict; Python 3.9 has no NotRequired, so optional fields go in a `total=False` subclass."""
    properties = schema.get("properties", {})
    if not properties:
        return f"{name} = Dict[str, Any]\n"
    required = set(schema.get("required", []))
    summary = schema.get("description", "").strip().splitlines()
    doc = f"    {repr(summary[0])}\n" if summary else ""
    fields = {field: annotation(properties[field]) for field in sorted(properties)}
    if not all(field.isidentifier() and not keyword.iskeyword(field) for field in fields):
        entries = "".join(f"    {repr(field)}: {repr(text)},\n" for field, text in fields.items())
        return f"{name} = TypedDict({repr(name)}, {{\n{entries}}}, total=False)\n"

    def body(names):
        return "".join(f"    {field}: {fields[field]}\n" for field in names) or "    pass\n"

    mandatory = [field for field in fields if field in required]
    optional = [field for field in fields if field not in required]
    if not optional:
        return f"class {name}(TypedDict):\n{doc}{body(mandatory)}"
    if not mandatory:
        return f"class {name}(TypedDict, total=False):\n{doc}{body(optional)}"
    base = f"_{name}Required"
    return (
        f"class {base}(TypedDict):\n{body(mandatory)}\n\n"
        f"class {name}({base}, total=False):\n{doc}{body(optional)}"
    )


def json_schema_name(content) -> str:
    schema = (content or {}).get("application/json", {}).get("schema")
    if schema is None:
        return "None"
    return repr(ref_name(schema["$ref"]) if "$ref" in schema else "Dict[str, Any]")


def operations(contract) -> str:
    lines = [
        "class Operation(NamedTuple):",
        "    method: str",
        "    path: str",
        "    request: Optional[str]",
        "    \"\"\"The JSON request body's type name, if the operation takes one.\"\"\"",
        "    response: Optional[str]",
        "    \"\"\"The JSON answer's type name, if the success answer is JSON.\"\"\"",
        "",
        "",
        "OPERATIONS: Dict[str, Operation] = {",
    ]
    entries = []
    for path, methods in contract["paths"].items():
        for method, operation in methods.items():
            request = json_schema_name(operation.get("requestBody", {}).get("content"))
            successes = [answer for status, answer in operation["responses"].items() if status.startswith("2")]
            response = json_schema_name(successes[0].get("content") if successes else None)
            entries.append(
                f"    {repr(operation['operationId'])}: Operation("
                f"{repr(method.upper())}, {repr(path)}, {request}, {response}),"
            )
    return "\n".join(lines + sorted(entries) + ["}", ""])


def generate(contract) -> str:
    schemas = contract["components"]["schemas"]
    parts = [HEADER]
    for name in sorted(schemas):
        parts.append(typed_dict(name, schemas[name]) + "\n\n")
    parts.append(operations(contract))
    return "".join(parts)


def main(argv) -> int:
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    contract = json.loads(CONTRACT.read_text(encoding="utf-8"))
    output.write_text(generate(contract), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
