import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
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

// Processing runs from the durable inbox only, so a crash between acceptance and processing loses nothing.
@Injectable()
export class RepohostService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new BackgroundLoop(
    () => this.drain(),
    POLL_INTERVAL_MS,
    (error) => this.logger.error({ event: 'repohost_drain_failed', err: error }, 'inbox drain failed'),
  );

  constructor(
    private readonly deliveries: InboundDeliveryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async receive(
    request: InboundRequest,
  ): Promise<{ accepted: true; delivery_id: string; duplicate: boolean }> {
    const secret = this.config.repohostWebhookSecret;
    if (secret === undefined) {
      throw new AppError(
        'invalid_signature',
        'The receiver is disabled: SERVICE_REPOHOST_WEBHOOK_SECRET is not set.',
      );
    }
    if (!request.rawBody || !isValidHubSignature(secret, request.rawBody, request.signature)) {
      this.logger.warn(
        { event: 'repohost_signature_rejected', delivery_id: request.deliveryId },
        'bad signature',
      );
      throw new AppError('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body.');
    }
    const deliveryId = request.deliveryId?.trim() ?? '';
    const event = request.event?.trim() ?? '';
    const problems = [
      ...(DELIVERY_ID.test(deliveryId)
        ? []
        : [{ field: 'X-GitHub-Delivery', problem: 'must be a delivery id' }]),
      ...(EVENT_NAME.test(event) ? [] : [{ field: 'X-GitHub-Event', problem: 'must be an event name' }]),
    ];
    if (problems.length > 0) throw AppError.validation(problems);

    const isNew = await this.deliveries.insertIfNew(
      deliveryId,
      event,
      request.rawBody.toString('utf8'),
      new Date(),
    );
    this.logger.info({
      event: 'repohost_delivery_received',
      delivery_id: deliveryId,
      kind: event,
      duplicate: !isNew,
    });
    if (isNew) this.loop.wake();
    return { accepted: true, delivery_id: deliveryId, duplicate: !isNew };
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const due = await this.deliveries.findDue(new Date(), BATCH);
      if (due.length === 0 || this.loop.isStopped) return;
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
      this.logger.info({
        event: 'repohost_delivery_processed',
        delivery_id: delivery.deliveryId,
        kind: delivery.event,
      });
      return;
    }
    await this.deliveries.markFailed(delivery.id, attempts, failure);
    this.logger.warn(
      {
        event: 'repohost_delivery_failed',
        delivery_id: delivery.deliveryId,
        kind: delivery.event,
        reason: failure,
      },
      'inbound delivery failed',
    );
  }
}
