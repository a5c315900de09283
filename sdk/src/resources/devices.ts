import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, ResponseBody } from '../contract-types';

export class Devices {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/device/register: registers this machine (the client's device headers) and returns a signed license token. */
  register(options?: RequestOptions): Promise<ResponseBody<'Devices_register'>> {
    return this.transport.request({ method: 'POST', path: '/v1/device/register', options });
  }

  /** GET /v1/device/license-key: the appliance's Ed25519 public key (`public_key_pem`, `kid`) that signs device licenses. */
  licenseKey(options?: RequestOptions): Promise<ResponseBody<'Devices_licenseKey'>> {
    return this.transport.request({ method: 'GET', path: '/v1/device/license-key', options });
  }

  /** GET /v1/device/list: devices registered or bound under the organization's keys. */
  list(
    options?: RequestOptions,
  ): PagedList<Page<'Devices_list', 'devices'>, PageItem<'Devices_list', 'devices'>> {
    return new PagedList(
      () => this.transport.request({ method: 'GET', path: '/v1/device/list', options }),
      (page) => page.devices,
    );
  }

  /** DELETE /v1/device/{registration_id}: frees the slot and kills the device's binding token. */
  revoke(registrationId: string, options?: RequestOptions): Promise<ResponseBody<'Devices_revoke'>> {
    return this.transport.request({
      method: 'DELETE',
      path: `/v1/device/${encodeURIComponent(registrationId)}`,
      options,
    });
  }
}
