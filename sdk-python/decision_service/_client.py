from typing import Any, Dict, Optional

from ._binding_store import BindingStore, FileBindingStore
from ._device import DeviceIdentity
from ._options import resolve_options
from ._resources._base import Options, body_of, operation
from ._resources.api_keys import ApiKeys
from ._resources.connectors import Connectors
from ._resources.data import Data
from ._resources.devices import Devices
from ._resources.execution_policy import ExecutionPolicy
from ._resources.jobs import Jobs
from ._resources.privacy_reports import PrivacyReports
from ._resources.provider_keys import ProviderKeys
from ._resources.query import Query
from ._resources.triggers import Triggers
from ._resources.webhooks import Webhooks
from ._pagination import PagedList
from ._transport import Transport
from .types import (
    AuditEventResponse,
    HealthResponse,
    InfrastructureResponse,
    LicenseResponse,
    MeResponse,
    PrivacyReportResponse,
    ReadinessResponse,
    RuntimeHealthResponse,
    RuntimeManifestResponse,
    SimulationResponse,
)


class DecisionService:
    """The Decision Service client. Every option falls back to the environment (SERVICE_API_KEY, SERVICE_BASE_URL,
    SERVICE_DEVICE_ID, SERVICE_CA_FILE and the legacy names), so `DecisionService()` works where those are set.

    `timeout` is in seconds per attempt (answer body included), `max_retries` the retries after the first attempt.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        device_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        ca_file: Optional[str] = None,
        binding_store: Optional[BindingStore] = None,
    ) -> None:
        options = resolve_options(
            api_key=api_key,
            base_url=base_url,
            device_id=device_id,
            timeout=timeout,
            max_retries=max_retries,
            ca_file=ca_file,
        )
        self._transport = Transport(options, binding_store if binding_store is not None else FileBindingStore())
        self.api_keys = ApiKeys(self._transport)
        self.devices = Devices(self._transport)
        self.provider_keys = ProviderKeys(self._transport)
        self.connectors = Connectors(self._transport)
        self.data = Data(self._transport)
        self.query = Query(self._transport)
        self.jobs = Jobs(self._transport)
        self.triggers = Triggers(self._transport)
        self.execution_policy = ExecutionPolicy(self._transport)
        self.webhooks = Webhooks(self._transport)
        self.privacy_reports = PrivacyReports(self._transport)

    @property
    def base_url(self) -> str:
        """The service root this client talks to."""
        return self._transport.base_url

    @property
    def device(self) -> DeviceIdentity:
        """The device headers this client sends (the id is derived from the machine unless pinned)."""
        return self._transport.device()

    @operation("Me_me")
    def me(self, *, request_options: Options = None) -> MeResponse:
        """GET /v1/me: the organization, and the key or user, behind the credential."""
        return self._transport.request("GET", "/v1/me", options=request_options)

    @operation("Simulation_simulate")
    def simulate(self, *, request_options: Options = None, **fields: Any) -> SimulationResponse:
        """POST /v1/simulate (`scenario`, `runs`, `seed`, `detail`, `mode`): a Monte Carlo run and its
        recommendation (`engine_mode` says which engine path served it)."""
        return self._transport.request("POST", "/v1/simulate", body=body_of(fields), options=request_options)

    @operation("Health_health")
    def health(self, *, request_options: Options = None) -> HealthResponse:
        """GET /v1/health: liveness."""
        return self._transport.request("GET", "/v1/health", options=request_options)

    @operation("Health_ready")
    def ready(self, *, request_options: Options = None) -> ReadinessResponse:
        """GET /v1/ready: readiness (503, raised as EngineUnavailableError, while not ready)."""
        return self._transport.request("GET", "/v1/ready", options=request_options)

    @operation("Infrastructure_report")
    def infrastructure(self, *, request_options: Options = None) -> InfrastructureResponse:
        """GET /v1/infrastructure: engine mode and version, the authoritative engine signal."""
        return self._transport.request("GET", "/v1/infrastructure", options=request_options)

    @operation("Licensing_show")
    def license(self, *, request_options: Options = None) -> LicenseResponse:
        """GET /v1/license: edition, status, entitlements and caps."""
        return self._transport.request("GET", "/v1/license", options=request_options)

    @operation("Privacy_report")
    def privacy_report(self, *, request_options: Options = None) -> PrivacyReportResponse:
        """GET /v1/admin/privacy-report: the signed cloud-free report (operator admins)."""
        return self._transport.request("GET", "/v1/admin/privacy-report", options=request_options)

    @operation("Audit_list")
    def audit_log(
        self, *, since: Optional[str] = None, limit: Optional[int] = None, request_options: Options = None
    ) -> "PagedList[AuditEventResponse]":
        """GET /v1/audit-log: the organization's security events (admin), newest first."""
        return PagedList(
            lambda cursor: self._transport.request(
                "GET", "/v1/audit-log", query={"since": since, "limit": limit}, options=request_options
            ),
            "events",
        )

    @operation("RuntimeLibrary_manifest")
    def runtime_manifest(self, *, request_options: Options = None) -> RuntimeManifestResponse:
        """GET /v1/runtime/manifest: the runtime library's modules and functions."""
        return self._transport.request("GET", "/v1/runtime/manifest", options=request_options)

    @operation("RuntimeLibrary_health")
    def libraries_health(self, *, request_options: Options = None) -> RuntimeHealthResponse:
        """GET /v1/libraries/health: the runtime library's health."""
        return self._transport.request("GET", "/v1/libraries/health", options=request_options)

    @operation("Contract_document")
    def openapi(self, *, request_options: Options = None) -> Dict[str, Any]:
        """GET /v1/openapi.json: the service's OpenAPI document."""
        return self._transport.request("GET", "/v1/openapi.json", options=request_options)


#: The legacy name of DecisionService (kept for old code).
DecisionClient = DecisionService
