import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { retryWhileStoreUnavailable, Transaction, WorkLeases } from '../../common/database';
import { AppError, isStoreUnavailable } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { MetricsService } from '../../common/metrics/metrics.service';
import { DELIVERY_TRANSPORT, DeliveryTransport, SendOutcome } from './delivery-transport';
import { nextDelayMs } from './retry-schedule';
import { DeliveryStatus, WebhookAttempt, WebhookDelivery } from './webhook-delivery.entity';
import { DeliveryFilter, NewDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository';

const POLL_INTERVAL_MS = 500;
const CLAIM_LINGER_MS = 5;
/** Attempts in flight at once; they wait on receivers, not on this process. */
const WORKERS = 16;
/** Of those, one organization may hold at most this many: the rest stay free for the others. */
const PER_ORG = 12;

export interface DeliveryView {
  readonly delivery: WebhookDelivery;
  readonly attempts: readonly WebhookAttempt[];
}

// A 2xx is recorded before anything else happens to the message, so an acknowledged message is never sent again; a
// crash before that record means one more identical delivery. Leases keep replicas from sending one message at once.
@Injectable()
export class WebhookOutboxService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly active = new Map<string, Promise<void>>();
  private readonly loop: BackgroundLoop;
  private readonly renewal: BackgroundLoop;
  private readonly outcomes;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    @Inject(DELIVERY_TRANSPORT) private readonly transport: DeliveryTransport,
    private readonly leases: WorkLeases,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: MetricsService,
  ) {
    this.loop = new BackgroundLoop(
      () => this.fillWorkerSlots(),
      POLL_INTERVAL_MS,
      (error) => this.logger.error({ event: 'webhook_worker_failed', err: error }, 'worker failed'),
    );
    this.renewal = new BackgroundLoop(
      () => this.renewLeases(),
      leases.renewEveryMs,
      (error) =>
        this.logger.error({ event: 'webhook_lease_renewal_failed', err: error }, 'could not renew leases'),
    );
    this.outcomes = metrics.counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Outbound webhook delivery attempts by event and outcome',
      labelNames: ['event', 'outcome'],
    });
  }

  enqueueAll(tx: Transaction, deliveries: readonly NewDelivery[]): Promise<void> {
    return this.deliveries.insertAll(tx, deliveries, new Date());
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.renewal.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.active.values()]);
    await this.renewal.stop();
  }

  wake(): void {
    this.loop.wakeSoon(CLAIM_LINGER_MS);
  }

  async list(
    orgId: string,
    filter: DeliveryFilter,
  ): Promise<{ views: DeliveryView[]; nextCursor: string | null }> {
    const page = await this.deliveries.list(orgId, filter);
    const attempts = await this.deliveries.attemptsOf(page.deliveries.map((d) => d.id));
    return {
      views: page.deliveries.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] })),
      nextCursor: page.nextCursor,
    };
  }

  async redeliver(orgId: string, id: string): Promise<DeliveryView> {
    const existing = await this.deliveries.findForOrg(orgId, id);
    if (!existing) throw new AppError('not_found', 'No delivery with this id.');
    if (!(await this.deliveries.requeue(orgId, id, new Date()))) {
      throw new AppError('conflict', 'The delivery is already pending.');
    }
    this.wake();
    const delivery = await this.deliveries.findForOrg(orgId, id);
    const attempts = await this.deliveries.attemptsOf([id]);
    return { delivery: delivery ?? existing, attempts: attempts.get(id) ?? [] };
  }

  /** Attempts run beside the loop, so a receiver that hangs holds one slot, not the next wake. */
  private async fillWorkerSlots(): Promise<void> {
    while (!this.loop.isStopped && this.active.size < WORKERS) {
      const now = new Date();
      const claimed = await this.deliveries.claimDue(
        now,
        WORKERS - this.active.size,
        this.leases.leaseFrom(now),
        {
          perDestination: this.config.webhookMaxPerDestination,
          perOrg: PER_ORG,
        },
      );
      for (const delivery of claimed) {
        // Our own lease ran out while this attempt waited for the database: that attempt records it.
        if (this.active.has(delivery.id)) continue;
        const attempt = this.attempt(delivery)
          .catch((error: unknown) => {
            this.logger.error({ event: 'webhook_worker_failed', err: error }, 'worker failed');
            if (isStoreUnavailable(error)) return this.giveBack(delivery);
          })
          .finally(() => {
            this.active.delete(delivery.id);
            this.loop.wake();
          });
        this.active.set(delivery.id, attempt);
      }
      if (claimed.length === 0) return;
    }
  }

  /** The database went away before the attempt was recorded: the delivery is claimable again once it is back. */
  private async giveBack(delivery: WebhookDelivery): Promise<void> {
    try {
      await retryWhileStoreUnavailable(
        () => this.deliveries.releaseLease(delivery.id, this.leases.owner),
        () => this.loop.isStopped,
        () => undefined,
      );
    } catch (error) {
      this.logger.error(
        { event: 'webhook_lease_release_failed', delivery_id: delivery.id, err: error },
        'could not release the lease; it runs out on its own',
      );
    }
  }

  private async renewLeases(): Promise<void> {
    if (this.active.size === 0) return;
    await this.deliveries.renewLeases(this.leases.leaseFrom(new Date()), [...this.active.keys()]);
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const attemptedAt = new Date();
    if (delivery.expiresAt && delivery.expiresAt.getTime() < attemptedAt.getTime()) {
      if (await this.deliveries.markExpired(delivery.id, this.leases.owner)) {
        this.outcomes.inc({ event: delivery.event, outcome: 'expired' });
        this.logger.info(
          { event: 'webhook_expired', delivery_id: delivery.id, webhook_event: delivery.event },
          'webhook delivery past its deadline: not sent',
        );
      }
      return;
    }
    const outcome = await this.transport.send({
      orgId: delivery.orgId,
      url: delivery.url,
      event: delivery.event,
      webhookId: delivery.webhookId,
      body: delivery.body,
      jobId: delivery.jobId ?? undefined,
    });
    const failedAttempts = delivery.attemptCount + 1;
    // The backoff counts from the end of the attempt: a receiver that hangs for the whole timeout still gets its pause.
    const next = this.nextState(outcome, failedAttempts, Date.now());
    // The request went out: its outcome waits out a database outage rather than be lost and sent again.
    const recorded = await retryWhileStoreUnavailable(
      () =>
        this.deliveries.recordAttempt(
          delivery.id,
          this.leases.owner,
          {
            attemptedAt,
            durationMs: outcome.durationMs,
            statusCode: outcome.kind === 'response' ? outcome.statusCode : undefined,
            error:
              outcome.kind === 'blocked'
                ? `egress_blocked: ${outcome.reason}`
                : outcome.kind === 'error'
                  ? outcome.error
                  : undefined,
          },
          next,
        ),
      () => this.loop.isStopped,
      (error, attempt) =>
        this.logger.warn(
          {
            event: 'webhook_attempt_waits_for_store',
            delivery_id: delivery.id,
            attempt,
            reason: (error as Error).message,
          },
          'the database is unreachable; the attempt is recorded when it is back',
        ),
    );
    if (!recorded) {
      this.logger.warn(
        { event: 'webhook_lease_lost', delivery_id: delivery.id, webhook_event: delivery.event },
        'the delivery was taken over by another replica while this attempt ran; not recorded here',
      );
      return;
    }
    this.outcomes.inc({ event: delivery.event, outcome: next.status });
    // A delivery acknowledged at once is the common case, counted by the metric; retries and ends are news.
    const level = next.status === 'delivered' && failedAttempts === 1 ? 'debug' : 'info';
    this.logger[level](
      {
        event: next.status === 'blocked' ? 'webhook_blocked' : 'webhook_attempt',
        delivery_id: delivery.id,
        webhook_event: delivery.event,
        attempt: failedAttempts,
        status_code: outcome.kind === 'response' ? outcome.statusCode : undefined,
        next_status: next.status,
      },
      'webhook delivery attempt',
    );
  }

  private nextState(
    outcome: SendOutcome,
    attempts: number,
    now: number,
  ): { status: DeliveryStatus; nextAttemptAt: Date | null } {
    if (outcome.kind === 'blocked') return { status: 'blocked', nextAttemptAt: null };
    if (outcome.kind === 'response') {
      if (outcome.statusCode >= 200 && outcome.statusCode < 300)
        return { status: 'delivered', nextAttemptAt: null };
      if (outcome.statusCode === 410) return { status: 'gone', nextAttemptAt: null };
    }
    if (attempts >= this.config.webhookMaxAttempts) return { status: 'failed', nextAttemptAt: null };
    const retryAfter = outcome.kind === 'response' ? outcome.retryAfter : null;
    const delay = nextDelayMs(attempts, this.config.webhookRetryBaseMs, retryAfter, now);
    return { status: 'pending', nextAttemptAt: new Date(now + delay) };
  }
}
