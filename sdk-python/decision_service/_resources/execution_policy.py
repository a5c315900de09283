from typing import Any

from ..types import ExecutionPolicyResponse
from ._base import Options, Resource, body_of, operation, segment


class ExecutionPolicy(Resource):
    """The organization's rule for `decision.execute`; every change is an immutable snapshot (docs/triggers.md)."""

    @operation("ExecutionPolicy_get")
    def get(self, *, request_options: Options = None) -> ExecutionPolicyResponse:
        """GET /v1/execution-policy: the snapshot in force."""
        return self._transport.request("GET", "/v1/execution-policy", options=request_options)

    @operation("ExecutionPolicy_set")
    def set(self, *, request_options: Options = None, **fields: Any) -> ExecutionPolicyResponse:
        """PUT /v1/execution-policy (`mode`, `min_outcomes`; admin): a new snapshot, or the current one when nothing
        changed."""
        return self._transport.request("PUT", "/v1/execution-policy", body=body_of(fields), options=request_options)

    @operation("ExecutionPolicy_snapshot")
    def snapshot(self, snapshot_id: str, *, request_options: Options = None) -> ExecutionPolicyResponse:
        """GET /v1/execution-policy/snapshots/{id}: a snapshot, current or past (a decision's policy_snapshot_id)."""
        return self._transport.request(
            "GET", f"/v1/execution-policy/snapshots/{segment(snapshot_id)}", options=request_options
        )
