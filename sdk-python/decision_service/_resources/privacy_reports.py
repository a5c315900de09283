from typing import Optional

from .._pagination import PagedList
from ..types import PrivacyReportResponse, PrivacyReportSummaryResponse, ReportPublicKeyResponse
from ._base import Options, Resource, operation, segment


class PrivacyReports(Resource):
    """The signed cloud-free reports the appliance keeps (operator admins; docs/privacy-report.md)."""

    @operation("PrivacyReports_list")
    def list(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_options: Options = None
    ) -> "PagedList[PrivacyReportSummaryResponse]":
        """GET /v1/admin/privacy-reports: the kept reports, newest first."""
        return PagedList(
            lambda next_cursor: self._transport.request(
                "GET",
                "/v1/admin/privacy-reports",
                query={"limit": limit, "cursor": next_cursor or cursor},
                options=request_options,
            ),
            "reports",
        )

    @operation("PrivacyReports_get")
    def get(self, report_id: str, *, request_options: Options = None) -> PrivacyReportResponse:
        """GET /v1/admin/privacy-reports/{id}: one kept report (JSON)."""
        return self._transport.request("GET", f"/v1/admin/privacy-reports/{segment(report_id)}", options=request_options)

    @operation("Privacy_publicKey")
    def public_key(self, *, request_options: Options = None) -> ReportPublicKeyResponse:
        """GET /v1/admin/privacy-report/public-key: the key that signs the reports."""
        return self._transport.request("GET", "/v1/admin/privacy-report/public-key", options=request_options)
