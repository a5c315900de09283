import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { JsonObject } from '../types';

export interface ListQuery {
  /** Items per page (1 to 500). */
  limit?: number;
  /** Resume after this cursor (`next_cursor` of the previous page). */
  cursor?: string;
}

export class Connectors {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/connectors/types */
  types(options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'GET', path: '/v1/connectors/types', options });
  }

  /** POST /v1/connectors: 201, status `untested`. */
  create(body: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors', body, options });
  }

  /** GET /v1/connectors: pages by cursor; iterate for every connector. */
  list(query: ListQuery = {}, options?: RequestOptions): PagedList<{ connectors: JsonObject[]; next_cursor?: string | null }, JsonObject> {
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
  get(id: string, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'GET', path: this.path(id), options });
  }

  /** PATCH /v1/connectors/{id}: a config change resets the status to `untested`. */
  update(id: string, body: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'PATCH', path: this.path(id), body, options });
  }

  /** DELETE /v1/connectors/{id} */
  delete(id: string, options?: RequestOptions): Promise<JsonObject | undefined> {
    return this.transport.request({ method: 'DELETE', path: this.path(id), options });
  }

  /** POST /v1/connectors/{id}/test: `success` false (with `error_type`, `recoverable`) is an answer, not an error. */
  test(id: string, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'POST', path: `${this.path(id)}/test`, options });
  }

  /** GET /v1/connectors/{id}/browse: 409 not_connected unless the connector is live. */
  browse(id: string, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'GET', path: `${this.path(id)}/browse`, options });
  }

  /** POST /v1/connectors/test: tests a config without saving it (rate limited). */
  testInline(body: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors/test', body, options });
  }

  /** POST /v1/connectors/browse: browses a config without saving it (rate limited). */
  browseInline(body: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.transport.request({ method: 'POST', path: '/v1/connectors/browse', body, options });
  }

  private path(id: string): string {
    return `/v1/connectors/${encodeURIComponent(id)}`;
  }
}
