import type { RequestOptions, Transport } from '../transport';
import type { RequestBody, ResponseBody } from '../contract-types';

/** The org's rule for `decision.execute`; every change is an immutable snapshot (docs/triggers.md). */
export class ExecutionPolicy {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/execution-policy: the snapshot in force. */
  get(options?: RequestOptions): Promise<ResponseBody<'ExecutionPolicy_get'>> {
    return this.transport.request({ method: 'GET', path: '/v1/execution-policy', options });
  }

  /** PUT /v1/execution-policy (admin): a new snapshot, or the current one when nothing changed. */
  set(
    body: RequestBody<'ExecutionPolicy_set'>,
    options?: RequestOptions,
  ): Promise<ResponseBody<'ExecutionPolicy_set'>> {
    return this.transport.request({ method: 'PUT', path: '/v1/execution-policy', body, options });
  }

  /** GET /v1/execution-policy/snapshots/{id}: a snapshot, current or past (a decision's policy_snapshot_id). */
  snapshot(id: string, options?: RequestOptions): Promise<ResponseBody<'ExecutionPolicy_snapshot'>> {
    return this.transport.request({
      method: 'GET',
      path: `/v1/execution-policy/snapshots/${encodeURIComponent(id)}`,
      options,
    });
  }
}
