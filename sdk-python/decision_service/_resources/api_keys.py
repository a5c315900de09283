from typing import Any

from ..types import ApiKeyResponse, CreatedApiKeyResponse, RevokedApiKeyResponse
from .._pagination import PagedList
from ._base import Options, Resource, body_of, operation, segment


class ApiKeys(Resource):
    @operation("ApiKeys_list")
    def list(self, *, request_options: Options = None) -> "PagedList[ApiKeyResponse]":
        """GET /v1/api-keys: the organization's active keys (no raw key)."""
        return PagedList(
            lambda cursor: self._transport.request("GET", "/v1/api-keys", options=request_options), "keys"
        )

    @operation("ApiKeys_create")
    def create(self, *, request_options: Options = None, **fields: Any) -> CreatedApiKeyResponse:
        """POST /v1/api-keys (`label`, `device_limit`, `expires_at`, `role`): the answer carries `raw_key`, shown
        this once."""
        return self._transport.request("POST", "/v1/api-keys", body=body_of(fields), options=request_options)

    @operation("ApiKeys_revoke")
    def revoke(self, key_id: str, *, request_options: Options = None) -> RevokedApiKeyResponse:
        """DELETE /v1/api-keys/{key_id}: immediate; later use of the key answers 401."""
        return self._transport.request("DELETE", f"/v1/api-keys/{segment(key_id)}", options=request_options)
