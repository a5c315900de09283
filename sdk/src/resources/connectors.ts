import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, QueryOf, RequestBody, ResponseBody } from '../contract-types';

export interface ListQuery {
  /** Items per page (1 to 500). */
  limit?: number;
  /** Resume after this cursor (`next_cursor` of the previous page). */
  cursor?: string;
}

export class Connectors {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/connectors/types */
  types(options?: RequestOptions): Promise<ResponseBody<'Connectors_types'>> {
    return this.transport.request({ method: 'GET', path: '/v1/connectors/types', options });
  }

  /** POST /v1/connectors: 201, status `untested`. */
  create(
    body: RequestBody<'Connectors_create'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Connectors_create'>> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors', body, options });
  }

  /** GET /v1/connectors: pages by cursor; iterate for every connector. */
  list(
    query: QueryOf<'Connectors_list', ListQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'Connectors_list', 'connectors'>, PageItem<'Connectors_list', 'connectors'>> {
    return new PagedList(
      (cursor) =>
        this.transport.request({
          method: 'GET',
          path: '/v1/connectors',
          query: { limit: query.limit, cursor: cursor ?? query.cursor },
          options,
        }),
      (page) => page.connectors,
    );
  }

  /** GET /v1/connectors/{id} */
  get(id: string, options?: RequestOptions): Promise<ResponseBody<'Connectors_get'>> {
    return this.transport.request({ method: 'GET', path: this.path(id), options });
  }

  /** PATCH /v1/connectors/{id}: a config change resets the status to `untested`. */
  update(
    id: string,
    body: RequestBody<'Connectors_update'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Connectors_update'>> {
    return this.transport.request({ method: 'PATCH', path: this.path(id), body, options });
  }

  /** DELETE /v1/connectors/{id} */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this.transport.request({ method: 'DELETE', path: this.path(id), options });
  }

  /** POST /v1/connectors/{id}/test: `success` false (with `error_type`, `recoverable`) is an answer, not an error. */
  test(id: string, options?: RequestOptions): Promise<ResponseBody<'Connectors_test'>> {
    return this.transport.request({ method: 'POST', path: `${this.path(id)}/test`, options });
  }

  /** GET /v1/connectors/{id}/browse: 409 not_connected unless the connector is live. */
  browse(id: string, options?: RequestOptions): Promise<ResponseBody<'Connectors_browse'>> {
    return this.transport.request({ method: 'GET', path: `${this.path(id)}/browse`, options });
  }

  /** POST /v1/connectors/test: tests a config without saving it (rate limited). */
  testInline(
    body: RequestBody<'Connectors_testInline'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Connectors_testInline'>> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors/test', body, options });
  }

  /** POST /v1/connectors/browse: browses a config without saving it (rate limited). */
  browseInline(
    body: RequestBody<'Connectors_browseInline'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Connectors_browseInline'>> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors/browse', body, options });
  }

  private path(id: string): string {
    return `/v1/connectors/${encodeURIComponent(id)}`;
  }
}
