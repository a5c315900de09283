from typing import Any, Optional

from .._pagination import PagedList
from .._transport import RawBody
from ..types import (
    ConnectorBrowseResponse,
    ConnectorResponse,
    ConnectorTestResponse,
    ConnectorTypesResponse,
    UploadedFile,
)
from ._base import Options, Resource, body_of, operation, segment


class Connectors(Resource):
    @operation("Connectors_types")
    def types(self, *, request_options: Options = None) -> ConnectorTypesResponse:
        """GET /v1/connectors/types."""
        return self._transport.request("GET", "/v1/connectors/types", options=request_options)

    @operation("Connectors_create")
    def create(self, *, request_options: Options = None, **fields: Any) -> ConnectorResponse:
        """POST /v1/connectors (`name`, `connector_type`, `config`): 201, status `untested`."""
        return self._transport.request("POST", "/v1/connectors", body=body_of(fields), options=request_options)

    @operation("Connectors_list")
    def list(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_options: Options = None
    ) -> "PagedList[ConnectorResponse]":
        """GET /v1/connectors: pages by cursor; iterate for every connector."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET", "/v1/connectors", query={"limit": limit, "cursor": next_cursor or cursor}, options=request_options
            ),
            "connectors",
        )

    @operation("Connectors_get")
    def get(self, connector_id: str, *, request_options: Options = None) -> ConnectorResponse:
        """GET /v1/connectors/{id}."""
        return self._transport.request("GET", self._path(connector_id), options=request_options)

    @operation("Connectors_update")
    def update(self, connector_id: str, *, request_options: Options = None, **fields: Any) -> ConnectorResponse:
        """PATCH /v1/connectors/{id} (`name`, `config`): a config change resets the status to `untested`."""
        return self._transport.request(
            "PATCH", self._path(connector_id), body=body_of(fields), options=request_options
        )

    @operation("Connectors_remove")
    def delete(self, connector_id: str, *, request_options: Options = None) -> None:
        """DELETE /v1/connectors/{id}: 204."""
        return self._transport.request("DELETE", self._path(connector_id), options=request_options)

    @operation("Connectors_test")
    def test(self, connector_id: str, *, request_options: Options = None) -> ConnectorTestResponse:
        """POST /v1/connectors/{id}/test: `success` false (with `error_type`, `recoverable`) is an answer, not an
        error."""
        return self._transport.request("POST", f"{self._path(connector_id)}/test", options=request_options)

    @operation("Connectors_browse")
    def browse(self, connector_id: str, *, request_options: Options = None) -> ConnectorBrowseResponse:
        """GET /v1/connectors/{id}/browse: 409 not_connected unless the connector is live."""
        return self._transport.request("GET", f"{self._path(connector_id)}/browse", options=request_options)

    @operation("Connectors_testInline")
    def test_inline(self, *, request_options: Options = None, **fields: Any) -> ConnectorTestResponse:
        """POST /v1/connectors/test (`connector_type`, `config`): tests a config without saving it."""
        return self._transport.request("POST", "/v1/connectors/test", body=body_of(fields), options=request_options)

    @operation("Connectors_browseInline")
    def browse_inline(self, *, request_options: Options = None, **fields: Any) -> ConnectorBrowseResponse:
        """POST /v1/connectors/browse (`connector_type`, `config`): browses a config without saving it."""
        return self._transport.request(
            "POST", "/v1/connectors/browse", body=body_of(fields), options=request_options
        )

    @operation("Connectors_upload")
    def upload(self, filename: str, content: bytes, *, request_options: Options = None) -> UploadedFile:
        """POST /v1/connectors/uploads: stores a file (bytes) for a file connector; the answer's `file_path` goes in
        the connector's config."""
        return self._transport.request(
            "POST",
            "/v1/connectors/uploads",
            query={"filename": filename},
            body=RawBody(bytes(content), "application/octet-stream"),
            options=request_options,
        )

    @staticmethod
    def _path(connector_id: str) -> str:
        return f"/v1/connectors/{segment(connector_id)}"
