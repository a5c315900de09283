import { ApiProperty } from '@nestjs/swagger';
import { HttpUrl } from '../../common/validation';
import { WebhookSendResult } from './webhook-sender.service';
import { RotationResult } from './webhook-secrets.service';

export class WebhookTestRequest {
  /** The rule of a job's and a trigger's callback_url: an absolute http(s) URL; egress decides at sending. */
  @HttpUrl()
  callback_url!: string;
}

export class WebhookTestResponse {
  @ApiProperty({ description: 'Whether the receiver answered 2xx.' })
  success!: boolean;
  @ApiProperty({
    type: 'integer',
    description: "The receiver's HTTP status; 0 when none came.",
    example: 200,
  })
  status_code!: number;
  @ApiProperty({ example: 'delivered' })
  message!: string;
}

export class SigningSecretResponse {
  @ApiProperty({ description: 'The secret that signs outbound webhooks (webhook-signature header).' })
  signing_secret!: string;
}

export class RotatedSigningSecretResponse extends SigningSecretResponse {
  @ApiProperty({
    format: 'date-time',
    description: 'Until then, deliveries carry a signature by the old secret too.',
  })
  previous_valid_until!: string;
}

export function toWebhookTestResponse(result: WebhookSendResult): WebhookTestResponse {
  return { success: result.outcome === 'delivered', status_code: result.statusCode, message: result.message };
}

export function toSigningSecretResponse(secret: string): SigningSecretResponse {
  return { signing_secret: secret };
}

export function toRotationResponse(rotation: RotationResult): RotatedSigningSecretResponse {
  return { signing_secret: rotation.signingSecret, previous_valid_until: rotation.previousValidUntil };
}
