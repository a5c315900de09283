import { PagedList } from '../pagination';
import type { RequestOptions, Transport } from '../transport';
import type { Page, PageItem, QueryOf, RequestBody, ResponseBody } from '../contract-types';
import type { ListQuery } from './connectors';

export interface DeliveriesQuery extends ListQuery {
  job_id?: string;
  /** A trigger fire's deliveries: its `trigger.fired` and `decision.execute`. */
  fire_id?: string;
  status?: string;
}

export class Webhooks {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/webhooks/test: one signed `webhook.test` delivery; `success` false is an answer, not an error. */
  test(body: RequestBody<'Webhooks_test'>, options?: RequestOptions): Promise<ResponseBody<'Webhooks_test'>> {
    return this.transport.request({ method: 'POST', path: '/v1/webhooks/test', body, options });
  }

  /** GET /v1/webhooks/signing-secret (admin): `{signing_secret: "whsec_..."}` for verifyWebhook. */
  signingSecret(options?: RequestOptions): Promise<ResponseBody<'Webhooks_signingSecret'>> {
    return this.transport.request({ method: 'GET', path: '/v1/webhooks/signing-secret', options });
  }

  /** POST /v1/webhooks/signing-secret/rotate (admin): the old secret keeps signing beside the new one for a grace period. */
  rotateSigningSecret(options?: RequestOptions): Promise<ResponseBody<'Webhooks_rotate'>> {
    return this.transport.request({ method: 'POST', path: '/v1/webhooks/signing-secret/rotate', options });
  }

  /** GET /v1/webhooks/deliveries: outbound deliveries and their attempts, paged by cursor. */
  deliveries(
    query: QueryOf<'WebhookOutbox_list', DeliveriesQuery> = {},
    options?: RequestOptions,
  ): PagedList<Page<'WebhookOutbox_list', 'deliveries'>, PageItem<'WebhookOutbox_list', 'deliveries'>> {
    return new PagedList(
      (cursor) =>
        this.transport.request({
          method: 'GET',
          path: '/v1/webhooks/deliveries',
          query: { ...query, cursor: cursor ?? query.cursor },
          options,
        }),
      (page) => page.deliveries,
    );
  }
}
