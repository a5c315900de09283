import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { EGRESS_GUARD, EgressBlockedError, EgressGuard, EgressUnresolvedError } from '../egress/egress.types';
import { WebhookSecretsService } from './webhook-secrets.service';
import { signedHeaders } from './webhook-signer';

export interface WebhookMessage {
  readonly url: string;
  readonly orgId: string;
  readonly event: string;
  /** The JSON body, already serialised: these exact bytes are signed and sent. */
  readonly body: string;
  /** Standard Webhooks `webhook-id`; keep it stable across retries of one message. Generated when absent. */
  readonly messageId?: string;
  readonly extraHeaders?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

export type WebhookOutcome = 'delivered' | 'http_error' | 'blocked' | 'timeout' | 'network_error';

export interface WebhookSendResult {
  readonly outcome: WebhookOutcome;
  readonly statusCode: number;
  readonly message: string;
  readonly messageId: string;
  /** True for outcomes worth retrying (network errors, timeouts, 5xx, 429). */
  readonly retryable: boolean;
  readonly retryAfter?: string;
}

const USER_AGENT = 'DecisionService-Webhooks/1';

/** No redirects followed: a signed body never goes somewhere the caller did not name. Retries are the caller's. */
@Injectable()
export class WebhookSender {
  constructor(
    @Inject(EGRESS_GUARD) private readonly egress: EgressGuard,
    private readonly secrets: WebhookSecretsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(message: WebhookMessage): Promise<WebhookSendResult> {
    const messageId = message.messageId ?? `msg_${randomUUID().replace(/-/g, '')}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = await this.secrets.signingSecrets(message.orgId);
    const headers = {
      ...message.extraHeaders,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders({ id: messageId, timestamp, event: message.event, body: message.body, secrets }),
    };
    const timeoutMs = message.timeoutMs ?? this.config.webhookTimeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    const result = (
      outcome: WebhookOutcome,
      statusCode: number,
      text: string,
      retryable: boolean,
      retryAfter?: string,
    ): WebhookSendResult => ({ outcome, statusCode, message: text, messageId, retryable, retryAfter });
    try {
      const { status, headers: answer } = await this.egress.send(
        message.url,
        { method: 'POST', headers, body: message.body, signal },
        { purpose: 'webhook', orgId: message.orgId },
      );
      if (status >= 200 && status < 300)
        return result('delivered', status, `Delivered: the receiver answered ${status}.`, false);
      if (status >= 300 && status < 400) {
        return result(
          'http_error',
          status,
          `The receiver answered ${status} (redirect); webhooks do not follow redirects.`,
          false,
        );
      }
      const retryAfter = answer['retry-after'];
      return result(
        'http_error',
        status,
        `The receiver answered HTTP ${status}.`,
        status >= 500 || status === 429 || status === 408,
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      );
    } catch (error) {
      if (error instanceof EgressBlockedError) {
        return result('blocked', 0, `Blocked by the egress policy: ${error.reason}`, false);
      }
      if (error instanceof EgressUnresolvedError) {
        return result('network_error', 0, `The receiver's host does not resolve (${error.reason}).`, true);
      }
      if (signal.aborted)
        return result('timeout', 0, `The receiver did not answer within ${timeoutMs} ms.`, true);
      return result('network_error', 0, `The receiver could not be reached: ${describe(error)}.`, true);
    }
  }
}

function describe(error: unknown): string {
  const failure = error as { code?: string; cause?: { code?: string; message?: string } };
  return (
    failure.cause?.code ??
    failure.cause?.message ??
    failure.code ??
    (error instanceof Error ? error.message : String(error))
  );
}
