import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, RequestBody, ResponseBody } from '../contract-types';

export class ApiKeys {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/api-keys: the organization's active keys (no raw key). */
  list(options?: RequestOptions): PagedList<Page<'ApiKeys_list', 'keys'>, PageItem<'ApiKeys_list', 'keys'>> {
    return new PagedList(
      () => this.transport.request({ method: 'GET', path: '/v1/api-keys', options }),
      (page) => page.keys,
    );
  }

  /** POST /v1/api-keys: the answer carries `raw_key`, shown this once. */
  create(
    body: RequestBody<'ApiKeys_create'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'ApiKeys_create'>> {
    return this.transport.request({ method: 'POST', path: '/v1/api-keys', body, options });
  }

  /** DELETE /v1/api-keys/{key_id}: immediate; later use of the key answers 401. */
  revoke(keyId: string, options?: RequestOptions): Promise<ResponseBody<'ApiKeys_revoke'>> {
    return this.transport.request({
      method: 'DELETE',
      path: `/v1/api-keys/${encodeURIComponent(keyId)}`,
      options,
    });
  }
}
