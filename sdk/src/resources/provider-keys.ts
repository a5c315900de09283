import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, RequestBody, ResponseBody } from '../contract-types';

export class ProviderKeys {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/provider-keys: sets or rotates a backend's key (admin; write-only). */
  set(
    body: RequestBody<'ProviderKeys_set'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'ProviderKeys_set'>> {
    return this.transport.request({ method: 'POST', path: '/v1/provider-keys', body, options });
  }

  /** GET /v1/provider-keys: `{backend, updated_at}` per stored key, never the key. */
  list(
    options?: RequestOptions,
  ): PagedList<Page<'ProviderKeys_list', 'keys'>, PageItem<'ProviderKeys_list', 'keys'>> {
    return new PagedList(
      () => this.transport.request({ method: 'GET', path: '/v1/provider-keys', options }),
      (page) => page.keys,
    );
  }

  /** DELETE /v1/provider-keys/{backend} */
  delete(backend: string, options?: RequestOptions): Promise<ResponseBody<'ProviderKeys_delete'>> {
    return this.transport.request({
      method: 'DELETE',
      path: `/v1/provider-keys/${encodeURIComponent(backend)}`,
      options,
    });
  }
}
