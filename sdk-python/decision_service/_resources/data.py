from typing import Any, Optional

from .._pagination import PagedList
from ..types import (
    CompactDatasetResponse,
    DataConnectResponse,
    DatasetResponse,
    DatasetSchemaResponse,
    DatasetSummaryResponse,
    DatasetVersionsResponse,
    FitResponse,
    QueryResponse,
)
from ._base import Options, Resource, body_of, operation, segment
from .query import Query


class Data(Resource):
    @operation("Datasets_connect")
    def connect(self, *, request_options: Options = None, **fields: Any) -> DataConnectResponse:
        """POST /v1/data/connect (`connection_type`, `dataset_name`, `connection_id`, ...): onboards a connector's
        data as a dataset (`status` ready or failed)."""
        return self._transport.request("POST", "/v1/data/connect", body=body_of(fields), options=request_options)

    @operation("Datasets_list")
    def list(
        self,
        *,
        search: Optional[str] = None,
        compact: Optional[bool] = None,
        all_versions: Optional[bool] = None,
        request_options: Options = None,
    ) -> "PagedList[DatasetResponse | CompactDatasetResponse]":
        """GET /v1/data: the datasets the caller can see."""
        query = {"search": search, "compact": compact, "all_versions": all_versions}
        return PagedList(
            lambda cursor: self._transport.request("GET", "/v1/data", query=query, options=request_options),
            "datasets",
        )

    @operation("Datasets_get")
    def get(self, dataset_id: str, *, request_options: Options = None) -> DatasetResponse:
        """GET /v1/data/{id}."""
        return self._transport.request("GET", self._path(dataset_id), options=request_options)

    @operation("Datasets_schema")
    def schema(self, dataset_id: str, *, request_options: Options = None) -> DatasetSchemaResponse:
        """GET /v1/data/{id}/schema: columns, roles, formulas and query hints."""
        return self._transport.request("GET", f"{self._path(dataset_id)}/schema", options=request_options)

    @operation("Datasets_summary")
    def summary(self, dataset_id: str, *, request_options: Options = None) -> DatasetSummaryResponse:
        """GET /v1/data/{id}/summary: per-column statistics."""
        return self._transport.request("GET", f"{self._path(dataset_id)}/summary", options=request_options)

    @operation("Datasets_versions")
    def versions(self, dataset_id: str, *, request_options: Options = None) -> DatasetVersionsResponse:
        """GET /v1/data/{id}/versions: the dataset's versions, newest first."""
        return self._transport.request("GET", f"{self._path(dataset_id)}/versions", options=request_options)

    @operation("Datasets_setFormulas")
    def set_formulas(self, dataset_id: str, *, request_options: Options = None, **fields: Any) -> DatasetSchemaResponse:
        """PUT /v1/data/{id}/formulas (`formulas`): replaces the dataset's derived columns."""
        return self._transport.request(
            "PUT", f"{self._path(dataset_id)}/formulas", body=body_of(fields), options=request_options
        )

    @operation("Datasets_delete")
    def delete(self, dataset_id: str, *, request_options: Options = None) -> None:
        """DELETE /v1/data/{id}: 204."""
        return self._transport.request("DELETE", self._path(dataset_id), options=request_options)

    @operation("DataFit_fit")
    def fit(self, dataset_id: str, *, request_options: Options = None, **fields: Any) -> FitResponse:
        """POST /v1/data/{id}/fit (`column`, `where`, `families`): maximum-likelihood fits, lowest AIC first."""
        return self._transport.request(
            "POST", f"{self._path(dataset_id)}/fit", body=body_of(fields), options=request_options
        )

    def query(self, *, request_options: Options = None, **fields: Any) -> QueryResponse:
        """POST /v1/query, as `client.query(...)` (the TypeScript SDK's `data.query`)."""
        return Query(self._transport)(request_options=request_options, **fields)

    @staticmethod
    def _path(dataset_id: str) -> str:
        return f"/v1/data/{segment(dataset_id)}"
