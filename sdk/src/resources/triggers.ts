import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, QueryOf, RequestBody, ResponseBody } from '../contract-types';
import type { ListQuery } from './connectors';

/** Conditions that fire simulations: `trigger.fired` and `decision.execute` (docs/triggers.md). */
export class Triggers {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/triggers: 201, state `inactive` (or `disabled`); a query source is run once to check it. */
  create(
    body: RequestBody<'Triggers_create'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Triggers_create'>> {
    return this.transport.request({ method: 'POST', path: '/v1/triggers', body, options });
  }

  /** GET /v1/triggers: pages by cursor; iterate for every trigger. */
  list(
    query: QueryOf<'Triggers_list', ListQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'Triggers_list', 'triggers'>, PageItem<'Triggers_list', 'triggers'>> {
    return new PagedList(
      (cursor) =>
        this.transport.request({
          method: 'GET',
          path: '/v1/triggers',
          query: { limit: query.limit, cursor: cursor ?? query.cursor },
          options,
        }),
      (page) => page.triggers,
    );
  }

  /** GET /v1/triggers/{id} */
  get(id: string, options?: RequestOptions): Promise<ResponseBody<'Triggers_get'>> {
    return this.transport.request({ method: 'GET', path: this.path(id), options });
  }

  /** PATCH /v1/triggers/{id}: a new condition or simulation resets the state. */
  update(
    id: string,
    body: RequestBody<'Triggers_update'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Triggers_update'>> {
    return this.transport.request({ method: 'PATCH', path: this.path(id), body, options });
  }

  /** DELETE /v1/triggers/{id} */
  delete(id: string, options?: RequestOptions): Promise<ResponseBody<'Triggers_delete'>> {
    return this.transport.request({ method: 'DELETE', path: this.path(id), options });
  }

  /** POST /v1/triggers/{id}/fire: `condition_met` false is an answer (nothing sent), not an error. */
  fire(
    id: string,
    body: RequestBody<'Triggers_fire'> = {},
    options?: RequestOptions,
  ): Promise<ResponseBody<'Triggers_fire'>> {
    return this.transport.request({ method: 'POST', path: `${this.path(id)}/fire`, body, options });
  }

  /** POST /v1/triggers/{id}/evaluate: a dry run; simulates, records and sends nothing. */
  evaluate(
    id: string,
    body: RequestBody<'Triggers_evaluate'> = {},
    options?: RequestOptions,
  ): Promise<ResponseBody<'Triggers_evaluate'>> {
    return this.transport.request({ method: 'POST', path: `${this.path(id)}/evaluate`, body, options });
  }

  /** GET /v1/triggers/{id}/fires: newest first; iterate for the whole history. */
  fires(
    id: string,
    query: QueryOf<'Triggers_fires', ListQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'Triggers_fires', 'fires'>, PageItem<'Triggers_fires', 'fires'>> {
    return new PagedList(
      (cursor) =>
        this.transport.request({
          method: 'GET',
          path: `${this.path(id)}/fires`,
          query: { limit: query.limit, cursor: cursor ?? query.cursor },
          options,
        }),
      (page) => page.fires,
    );
  }

  /** POST /v1/triggers/{id}/fires/{fire_id}/outcome: once per fire (409 the second time). */
  reportOutcome(
    id: string,
    fireId: string,
    body: RequestBody<'Triggers_reportOutcome'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Triggers_reportOutcome'>> {
    return this.transport.request({
      method: 'POST',
      path: `${this.path(id)}/fires/${encodeURIComponent(fireId)}/outcome`,
      body,
      options,
    });
  }

  /** GET /v1/triggers/{id}/calibration: `calibrating`, `calibrated` or `degraded`, with the counts behind it. */
  calibration(id: string, options?: RequestOptions): Promise<ResponseBody<'Triggers_calibration'>> {
    return this.transport.request({ method: 'GET', path: `${this.path(id)}/calibration`, options });
  }

  private path(id: string): string {
    return `/v1/triggers/${encodeURIComponent(id)}`;
  }
}
