"""Every operation of contract/openapi.json has a method of the client, or is on EXCEPTIONS, which only shrinks."""
import inspect
import re
import unittest
from typing import Dict, List

from decision_service import DecisionService, MemoryBindingStore
from decision_service.types import OPERATIONS

from .stub_server import StubServer

#: Operations without a method, and why. Remove an entry when its method arrives; never add one for an API a
#: key-holding client calls.
EXCEPTIONS = {
    "Auth_signup": "account sign-up is a browser/operator flow (decisionctl), not a key holder's call",
    "Auth_login": "sessions belong to the web console; the SDK authenticates with API keys",
    "Auth_verify": "the e-mail verification link is opened in a browser",
    "Auth_forgotPassword": "a browser flow",
    "Auth_resetPassword": "a browser flow",
    "Auth_resetPasswordPage": "the HTML page the reset mail links to, opened in a browser",
    "Mcp_get": "the MCP transport: use an MCP client",
    "Mcp_post": "the MCP transport: use an MCP client",
    "Mcp_delete": "the MCP transport: use an MCP client",
    "Mcp_sse": "the MCP transport: use an MCP client",
    "Mcp_messages": "the MCP transport: use an MCP client",
    "Mcp_tools": "the MCP tool listing, for MCP clients",
    "Health_prometheus": "Prometheus text for scrapers, not JSON",
    "Repohost_receive": "the inbound endpoint repository hosts post to, signed by them",
}


def methods_by_operation(client: DecisionService) -> Dict[str, List]:
    found: Dict[str, List] = {}
    for owner in [client] + [value for value in vars(client).values() if hasattr(value, "_transport")]:
        for name in dir(type(owner)):
            method = getattr(owner, name)
            operation_id = getattr(method, "__operation__", None)
            if operation_id:
                found.setdefault(operation_id, []).append(method)
    return found


def call_with_placeholders(method) -> None:
    """Calls a method with a placeholder for each positional parameter (path parameters, an upload's bytes)."""
    arguments = []
    for parameter in inspect.signature(method).parameters.values():
        if parameter.kind is parameter.POSITIONAL_OR_KEYWORD:
            arguments.append(b"bytes" if parameter.name == "content" else f"p{len(arguments) + 1}")
    answer = method(*arguments)
    if hasattr(answer, "first_page"):
        answer.first_page()


class ContractTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer().__enter__()
        self.addCleanup(self.stub.__exit__)
        self.client = DecisionService(
            "sk-contract", base_url=self.stub.base_url, device_id="contract-device-00000",
            binding_store=MemoryBindingStore(), max_retries=0,
        )
        self.methods = methods_by_operation(self.client)

    def test_every_operation_has_a_method_or_a_listed_exception(self) -> None:
        uncovered = sorted(set(OPERATIONS) - set(self.methods) - set(EXCEPTIONS))
        self.assertEqual(uncovered, [], "operations without a method: add one, or (rarely) an EXCEPTIONS entry")

    def test_the_exceptions_only_name_operations_of_the_contract_that_have_no_method(self) -> None:
        self.assertEqual(sorted(set(EXCEPTIONS) - set(OPERATIONS)), [], "gone from the contract: drop the entry")
        self.assertEqual(sorted(set(EXCEPTIONS) & set(self.methods)), [], "now has a method: drop the entry")

    def test_each_method_sends_its_operations_method_and_path(self) -> None:
        for operation_id, methods in sorted(self.methods.items()):
            self.assertIn(operation_id, OPERATIONS)
            expected = OPERATIONS[operation_id]
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/?]+", re.escape(expected.path)) + r"(\?.*)?"
            for method in methods:
                with self.subTest(operation_id=operation_id, method=method.__name__):
                    before = len(self.stub.seen)
                    call_with_placeholders(method)
                    seen = self.stub.seen[before]
                    self.assertEqual(seen.method, expected.method)
                    self.assertRegex(seen.path, f"^{pattern}$")

    def test_each_method_is_annotated_with_its_operations_answer(self) -> None:
        for operation_id, methods in sorted(self.methods.items()):
            response = OPERATIONS[operation_id].response
            for method in methods:
                annotation = str(inspect.signature(method).return_annotation).replace("typing.", "")
                with self.subTest(operation_id=operation_id):
                    if "PagedList" in annotation:
                        continue  # a list's items, not the page, are its type
                    self.assertIn(response or "None", annotation)


if __name__ == "__main__":
    unittest.main()
