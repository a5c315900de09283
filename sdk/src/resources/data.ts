import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, QueryOf, RequestBody, ResponseBody } from '../contract-types';

export interface DataListQuery {
  search?: string;
  compact?: boolean;
  all_versions?: boolean;
}

export class Data {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/data/connect: onboards a connector's data as a dataset (`status` ready or failed). */
  connect(
    body: RequestBody<'Datasets_connect'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'Datasets_connect'>> {
    return this.transport.request({ method: 'POST', path: '/v1/data/connect', body, options });
  }

  /** GET /v1/data: the datasets the caller can see. */
  list(
    query: QueryOf<'Datasets_list', DataListQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'Datasets_list', 'datasets'>, PageItem<'Datasets_list', 'datasets'>> {
    return new PagedList(
      () => this.transport.request({ method: 'GET', path: '/v1/data', query: { ...query }, options }),
      (page) => page.datasets,
    );
  }

  /** GET /v1/data/{id} */
  get(datasetId: string, options?: RequestOptions): Promise<ResponseBody<'Datasets_get'>> {
    return this.transport.request({
      method: 'GET',
      path: `/v1/data/${encodeURIComponent(datasetId)}`,
      options,
    });
  }

  /** GET /v1/data/{id}/schema: columns, roles, formulas and query hints. */
  schema(datasetId: string, options?: RequestOptions): Promise<ResponseBody<'Datasets_schema'>> {
    return this.transport.request({
      method: 'GET',
      path: `/v1/data/${encodeURIComponent(datasetId)}/schema`,
      options,
    });
  }

  /** POST /v1/data/{id}/fit: maximum-likelihood fits of a numeric column, lowest AIC first. */
  fit(
    datasetId: string,
    body: RequestBody<'DataFit_fit'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'DataFit_fit'>> {
    return this.transport.request({
      method: 'POST',
      path: `/v1/data/${encodeURIComponent(datasetId)}/fit`,
      body,
      options,
    });
  }

  /** POST /v1/query: a typed, deterministic query (same query, same rows in the same order). */
  query(body: RequestBody<'Query_query'>, options?: RequestOptions): Promise<ResponseBody<'Query_query'>> {
    return this.transport.request({ method: 'POST', path: '/v1/query', body, options });
  }
}
