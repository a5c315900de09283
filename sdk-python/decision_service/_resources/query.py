from typing import Any

from ..types import QueryBatchResponse, QueryResponse, SqlReportResponse
from ._base import Options, Resource, body_of, operation


class Query(Resource):
    """`client.query(dataset_id=..., select=[...])` runs a typed query; `.batch()` and `.sql()` the other forms."""

    @operation("Query_query")
    def __call__(self, *, request_options: Options = None, **fields: Any) -> QueryResponse:
        """POST /v1/query: a typed, deterministic query (same query, same rows in the same order)."""
        return self._transport.request("POST", "/v1/query", body=body_of(fields), options=request_options)

    @operation("Query_batch")
    def batch(self, *, request_options: Options = None, **fields: Any) -> QueryBatchResponse:
        """POST /v1/query/batch (`queries`): several typed queries in one call; each answers or fails alone."""
        return self._transport.request("POST", "/v1/query/batch", body=body_of(fields), options=request_options)

    @operation("Query_sql")
    def sql(self, *, request_options: Options = None, **fields: Any) -> SqlReportResponse:
        """POST /v1/query/sql (`sql`, `dataset_id` or `dataset_ids`): a read-only SQL report over datasets."""
        return self._transport.request("POST", "/v1/query/sql", body=body_of(fields), options=request_options)
