import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { handlerFor } from './event-handlers';
import { isValidHubSignature } from './hub-signature';
import { InboundDelivery } from './inbound-delivery.entity';
import { InboundDeliveryRepository } from './inbound-delivery.repository';

const POLL_INTERVAL_MS = 1000;
const BATCH = 20;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const EVENT_NAME = /^[a-z0-9_.-]{1,64}$/;

export interface InboundRequest {
  readonly rawBody: Buffer | undefined;
  readonly body: unknown;
  readonly signature: string | undefined;
  readonly deliveryId: string | undefined;
  readonly event: string | undefined;
}

/**
 * The inbound repository-host receiver: verify, record once in a durable inbox, answer at once, process later.
 * Processing runs from the inbox only, so a crash between acceptance and processing loses nothing.
 */
@Injectable()
export class RepohostService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly deliveries: InboundDeliveryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async receive(request: InboundRequest): Promise<{ accepted: true; delivery_id: string; duplicate: boolean }> {
    const secret = this.config.repohostWebhookSecret;
    if (secret === undefined) {
      throw new AppError('invalid_signature', 'The receiver is disabled: SERVICE_REPOHOST_WEBHOOK_SECRET is not set.');
    }
    if (!request.rawBody || !isValidHubSignature(secret, request.rawBody, request.signature)) {
      this.logger.warn({ event: 'repohost_signature_rejected', delivery_id: request.deliveryId }, 'bad signature');
      throw new AppError('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body.');
    }
    const deliveryId = request.deliveryId?.trim() ?? '';
    const event = request.event?.trim() ?? '';
    const problems = [
      ...(DELIVERY_ID.test(deliveryId) ? [] : [{ field: 'X-GitHub-Delivery', problem: 'must be a delivery id' }]),
      ...(EVENT_NAME.test(event) ? [] : [{ field: 'X-GitHub-Event', problem: 'must be an event name' }]),
    ];
    if (problems.length > 0) throw AppError.validation(problems);

    const isNew = await this.deliveries.insertIfNew(deliveryId, event, request.rawBody.toString('utf8'), new Date());
    this.logger.info({ event: 'repohost_delivery_received', delivery_id: deliveryId, kind: event, duplicate: !isNew });
    if (isNew) this.wake();
    return { accepted: true, delivery_id: deliveryId, duplicate: !isNew };
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.timer.unref();
    this.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.draining;
  }

  /** Starts a drain unless one is running; deliveries that arrive meanwhile are picked up by the next one. */
  private wake(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.drain()
      .catch((error: unknown) => this.logger.error({ event: 'repohost_drain_failed', err: error }, 'inbox drain failed'))
      .finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    for (;;) {
      const due = await this.deliveries.findDue(new Date(), BATCH);
      if (due.length === 0 || this.stopped) return;
      for (const delivery of due) await this.process(delivery);
    }
  }

  /** A handler's error is about the payload, so it is final; a storage error leaves the row due for the next drain. */
  private async process(delivery: InboundDelivery): Promise<void> {
    const attempts = delivery.attempts + 1;
    let failure: string | undefined;
    try {
      const handler = handlerFor(delivery.event);
      if (handler) await handler(JSON.parse(delivery.payload) as unknown);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === undefined) {
      await this.deliveries.markProcessed(delivery.id, attempts, new Date());
      this.logger.info({ event: 'repohost_delivery_processed', delivery_id: delivery.deliveryId, kind: delivery.event });
      return;
    }
    await this.deliveries.markFailed(delivery.id, attempts, failure);
    this.logger.warn(
      { event: 'repohost_delivery_failed', delivery_id: delivery.deliveryId, kind: delivery.event, reason: failure },
      'inbound delivery failed',
    );
  }
}
