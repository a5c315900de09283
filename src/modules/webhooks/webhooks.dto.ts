import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { WebhookSendResult } from './webhook-sender.service';
import { RotationResult } from './webhook-secrets.service';

export class WebhookTestRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  callback_url!: string;
}

export interface WebhookTestResponse {
  success: boolean;
  status_code: number;
  message: string;
}

export function toWebhookTestResponse(result: WebhookSendResult): WebhookTestResponse {
  return { success: result.outcome === 'delivered', status_code: result.statusCode, message: result.message };
}

export function toSigningSecretResponse(secret: string): { signing_secret: string } {
  return { signing_secret: secret };
}

export function toRotationResponse(rotation: RotationResult): {
  signing_secret: string;
  previous_valid_until: string;
} {
  return { signing_secret: rotation.signingSecret, previous_valid_until: rotation.previousValidUntil };
}
