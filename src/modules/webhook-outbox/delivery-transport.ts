export interface OutgoingMessage {
  readonly orgId: string;
  readonly url: string;
  readonly event: string;
  readonly webhookId: string;
  readonly body: string;
  readonly jobId?: string;
}

export type SendOutcome =
  | {
      readonly kind: 'response';
      readonly statusCode: number;
      readonly retryAfter: string | null;
      readonly durationMs: number;
    }
  | { readonly kind: 'blocked'; readonly reason: string; readonly durationMs: number }
  | { readonly kind: 'error'; readonly error: string; readonly durationMs: number };

export interface DeliveryTransport {
  send(message: OutgoingMessage): Promise<SendOutcome>;
}

export const DELIVERY_TRANSPORT = Symbol('DELIVERY_TRANSPORT');
