import unittest

from .stub_server import StubServer, json_answer
from .support import client


class PaginationTest(unittest.TestCase):
    def test_list_follows_next_cursor_only_as_far_as_it_is_iterated(self) -> None:
        with StubServer() as stub:
            stub.script(
                json_answer(body={"connectors": [{"id": "a"}, {"id": "b"}], "next_cursor": "c1"}),
                json_answer(body={"connectors": [{"id": "c"}], "next_cursor": "c2"}),
                json_answer(body={"connectors": [], "next_cursor": None}),
            )
            sdk = client(stub.base_url)
            listing = sdk.connectors.list(limit=2)
            first = next(iter(listing))
            self.assertEqual(first, {"id": "a"})
            self.assertEqual(len(stub.seen), 1)
            self.assertEqual([c["id"] for c in listing], ["a", "b", "c"])
            self.assertEqual(
                [seen.path for seen in stub.seen],
                ["/v1/connectors?limit=2", "/v1/connectors?limit=2&cursor=c1", "/v1/connectors?limit=2&cursor=c2"],
            )
            self.assertEqual(listing.first_page()["next_cursor"], "c1")

    def test_a_list_without_cursor_is_one_page(self) -> None:
        with StubServer() as stub:
            stub.script(json_answer(body={"keys": [{"id": "k1"}, {"id": "k2"}]}))
            self.assertEqual(client(stub.base_url).api_keys.list().to_list(), [{"id": "k1"}, {"id": "k2"}])
            self.assertEqual(len(stub.seen), 1)


if __name__ == "__main__":
    unittest.main()
