from typing import Any, Optional

from .._pagination import PagedList
from ..types import (
    DeliveryResponse,
    InboundDeliveryResponse,
    RotatedSigningSecretResponse,
    SigningSecretResponse,
    WebhookTestResponse,
)
from ._base import Options, Resource, body_of, operation, segment


class Webhooks(Resource):
    @operation("Webhooks_test")
    def test(self, *, request_options: Options = None, **fields: Any) -> WebhookTestResponse:
        """POST /v1/webhooks/test (`callback_url`): one signed `webhook.test` delivery; `success` false is an
        answer, not an error."""
        return self._transport.request("POST", "/v1/webhooks/test", body=body_of(fields), options=request_options)

    @operation("Webhooks_signingSecret")
    def signing_secret(self, *, request_options: Options = None) -> SigningSecretResponse:
        """GET /v1/webhooks/signing-secret (admin): `{signing_secret: "whsec_..."}` for verify_webhook."""
        return self._transport.request("GET", "/v1/webhooks/signing-secret", options=request_options)

    @operation("Webhooks_rotate")
    def rotate_signing_secret(self, *, request_options: Options = None) -> RotatedSigningSecretResponse:
        """POST /v1/webhooks/signing-secret/rotate (admin): the old secret keeps signing beside the new one for a
        grace period."""
        return self._transport.request("POST", "/v1/webhooks/signing-secret/rotate", options=request_options)

    @operation("WebhookOutbox_list")
    def deliveries(
        self,
        *,
        job_id: Optional[str] = None,
        fire_id: Optional[str] = None,
        status: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Options = None,
    ) -> "PagedList[DeliveryResponse]":
        """GET /v1/webhooks/deliveries: outbound deliveries and their attempts, paged by cursor."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET",
                "/v1/webhooks/deliveries",
                query={
                    "job_id": job_id,
                    "fire_id": fire_id,
                    "status": status,
                    "limit": limit,
                    "cursor": next_cursor or cursor,
                },
                options=request_options,
            ),
            "deliveries",
        )

    @operation("WebhookOutbox_redeliver")
    def redeliver(self, delivery_id: str, *, request_options: Options = None) -> DeliveryResponse:
        """POST /v1/webhooks/deliveries/{id}/redeliver: queues a failed delivery again."""
        return self._transport.request(
            "POST", f"/v1/webhooks/deliveries/{segment(delivery_id)}/redeliver", options=request_options
        )

    @operation("Repohost_list")
    def inbound(
        self,
        *,
        before: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Options = None,
    ) -> "PagedList[InboundDeliveryResponse]":
        """GET /v1/webhooks/inbound: deliveries received from repository hosts, newest first."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET",
                "/v1/webhooks/inbound",
                query={"before": before, "limit": limit, "cursor": next_cursor or cursor},
                options=request_options,
            ),
            "deliveries",
        )
