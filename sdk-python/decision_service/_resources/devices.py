from ..types import DeviceLicenseKeyResponse, DeviceResponse, RegistrationResponse, RevokedDeviceResponse
from .._pagination import PagedList
from ._base import Options, Resource, operation, segment


class Devices(Resource):
    @operation("Devices_register")
    def register(self, *, request_options: Options = None) -> RegistrationResponse:
        """POST /v1/device/register: registers this machine (the client's device headers) and returns a signed
        license token."""
        return self._transport.request("POST", "/v1/device/register", options=request_options)

    @operation("Devices_licenseKey")
    def license_key(self, *, request_options: Options = None) -> DeviceLicenseKeyResponse:
        """GET /v1/device/license-key: the appliance's Ed25519 public key that signs device licenses."""
        return self._transport.request("GET", "/v1/device/license-key", options=request_options)

    @operation("Devices_list")
    def list(self, *, request_options: Options = None) -> "PagedList[DeviceResponse]":
        """GET /v1/device/list: devices registered or bound under the organization's keys."""
        return PagedList(
            lambda cursor: self._transport.request("GET", "/v1/device/list", options=request_options), "devices"
        )

    @operation("Devices_revoke")
    def revoke(self, registration_id: str, *, request_options: Options = None) -> RevokedDeviceResponse:
        """DELETE /v1/device/{registration_id}: frees the slot and kills the device's binding token."""
        return self._transport.request("DELETE", f"/v1/device/{segment(registration_id)}", options=request_options)
