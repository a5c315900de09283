from typing import Any, Callable, Generic, Iterator, List, Mapping, Optional, TypeVar

Item = TypeVar("Item")


class PagedList(Generic[Item]):
    """What a list method returns. Iterated, it gives every item across all pages, fetching the next page (by
    `next_cursor`) only when the previous one is used up; `first_page()` is the first answer as the service gave it."""

    def __init__(self, fetch_page: Callable[[Optional[str]], Any], items_field: str) -> None:
        self._fetch_page = fetch_page
        self._items_field = items_field
        self._first: Optional[Mapping[str, Any]] = None

    def first_page(self) -> Any:
        """The first page, fetched once."""
        if self._first is None:
            self._first = self._fetch_page(None)
        return self._first

    def pages(self) -> Iterator[Any]:
        """Every page, in order."""
        page = self.first_page()
        while True:
            yield page
            cursor = page.get("next_cursor")
            if not cursor:
                return
            page = self._fetch_page(cursor)

    def __iter__(self) -> Iterator[Item]:
        for page in self.pages():
            yield from page[self._items_field]

    def to_list(self) -> List[Item]:
        """Every item of every page, in order."""
        return list(self)
