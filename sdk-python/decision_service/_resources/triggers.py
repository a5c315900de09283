from typing import Any, Optional

from .._pagination import PagedList
from ..types import (
    CalibrationResponse,
    DeletedTriggerResponse,
    EvaluationResponse,
    FireResponse,
    OutcomeResponse,
    TriggerResponse,
)
from ._base import Options, Resource, body_of, operation, segment


class Triggers(Resource):
    """Conditions that fire simulations: `trigger.fired` and `decision.execute` (docs/triggers.md)."""

    @operation("Triggers_create")
    def create(self, *, request_options: Options = None, **fields: Any) -> TriggerResponse:
        """POST /v1/triggers: 201, state `inactive` (or `disabled`); a query source is run once to check it."""
        return self._transport.request("POST", "/v1/triggers", body=body_of(fields), options=request_options)

    @operation("Triggers_list")
    def list(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_options: Options = None
    ) -> "PagedList[TriggerResponse]":
        """GET /v1/triggers: pages by cursor; iterate for every trigger."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET", "/v1/triggers", query={"limit": limit, "cursor": next_cursor or cursor}, options=request_options
            ),
            "triggers",
        )

    @operation("Triggers_get")
    def get(self, trigger_id: str, *, request_options: Options = None) -> TriggerResponse:
        """GET /v1/triggers/{id}."""
        return self._transport.request("GET", self._path(trigger_id), options=request_options)

    @operation("Triggers_update")
    def update(self, trigger_id: str, *, request_options: Options = None, **fields: Any) -> TriggerResponse:
        """PATCH /v1/triggers/{id}: a new condition or simulation resets the state."""
        return self._transport.request("PATCH", self._path(trigger_id), body=body_of(fields), options=request_options)

    @operation("Triggers_delete")
    def delete(self, trigger_id: str, *, request_options: Options = None) -> DeletedTriggerResponse:
        """DELETE /v1/triggers/{id}."""
        return self._transport.request("DELETE", self._path(trigger_id), options=request_options)

    @operation("Triggers_fire")
    def fire(self, trigger_id: str, *, request_options: Options = None, **fields: Any) -> FireResponse:
        """POST /v1/triggers/{id}/fire (`current_value`): `condition_met` false is an answer, not an error."""
        return self._transport.request(
            "POST", f"{self._path(trigger_id)}/fire", body=body_of(fields), options=request_options
        )

    @operation("Triggers_evaluate")
    def evaluate(self, trigger_id: str, *, request_options: Options = None, **fields: Any) -> EvaluationResponse:
        """POST /v1/triggers/{id}/evaluate (`current_value`): a dry run; simulates, records and sends nothing."""
        return self._transport.request(
            "POST", f"{self._path(trigger_id)}/evaluate", body=body_of(fields), options=request_options
        )

    @operation("Triggers_fires")
    def fires(
        self,
        trigger_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        request_options: Options = None,
    ) -> "PagedList[FireResponse]":
        """GET /v1/triggers/{id}/fires: newest first; iterate for the whole history."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET",
                f"{self._path(trigger_id)}/fires",
                query={"limit": limit, "cursor": next_cursor or cursor},
                options=request_options,
            ),
            "fires",
        )

    @operation("Triggers_reportOutcome")
    def report_outcome(
        self, trigger_id: str, fire_id: str, *, request_options: Options = None, **fields: Any
    ) -> OutcomeResponse:
        """POST /v1/triggers/{id}/fires/{fire_id}/outcome (`realized_value`, `realized_variables`): once per fire
        (409 the second time)."""
        return self._transport.request(
            "POST",
            f"{self._path(trigger_id)}/fires/{segment(fire_id)}/outcome",
            body=body_of(fields),
            options=request_options,
        )

    @operation("Triggers_calibration")
    def calibration(self, trigger_id: str, *, request_options: Options = None) -> CalibrationResponse:
        """GET /v1/triggers/{id}/calibration: `calibrating`, `calibrated` or `degraded`, with the counts behind it."""
        return self._transport.request("GET", f"{self._path(trigger_id)}/calibration", options=request_options)

    @staticmethod
    def _path(trigger_id: str) -> str:
        return f"/v1/triggers/{segment(trigger_id)}"
