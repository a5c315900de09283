from typing import Any

from ..types import DeletedProviderKeyResponse, ProviderKeyResponse
from .._pagination import PagedList
from ._base import Options, Resource, body_of, operation, segment


class ProviderKeys(Resource):
    @operation("ProviderKeys_set")
    def set(self, *, request_options: Options = None, **fields: Any) -> ProviderKeyResponse:
        """POST /v1/provider-keys (`backend`, `api_key`): sets or rotates a backend's key (admin; write-only)."""
        return self._transport.request("POST", "/v1/provider-keys", body=body_of(fields), options=request_options)

    @operation("ProviderKeys_list")
    def list(self, *, request_options: Options = None) -> "PagedList[ProviderKeyResponse]":
        """GET /v1/provider-keys: `{backend, updated_at}` per stored key, never the key."""
        return PagedList(
            lambda cursor: self._transport.request("GET", "/v1/provider-keys", options=request_options), "keys"
        )

    @operation("ProviderKeys_delete")
    def delete(self, backend: str, *, request_options: Options = None) -> DeletedProviderKeyResponse:
        """DELETE /v1/provider-keys/{backend}."""
        return self._transport.request("DELETE", f"/v1/provider-keys/{segment(backend)}", options=request_options)
