import { EntitySchema } from '@mikro-orm/core';

/** An organization's webhook signing secret, sealed at rest; `previous` stays valid until `previousUntil`. */
export interface WebhookSigningSecret {
  orgId: string;
  currentSealed: string;
  previousSealed: string | null;
  previousUntil: string | null;
  createdAt: string;
  rotatedAt: string | null;
}

export const WebhookSigningSecretSchema = new EntitySchema<WebhookSigningSecret>({
  name: 'WebhookSigningSecret',
  tableName: 'webhook_signing_secrets',
  properties: {
    orgId: { type: 'string', primary: true, fieldName: 'org_id' },
    currentSealed: { type: 'text', fieldName: 'current_sealed' },
    previousSealed: { type: 'text', fieldName: 'previous_sealed', nullable: true },
    previousUntil: { type: 'string', fieldName: 'previous_until', nullable: true },
    createdAt: { type: 'string', fieldName: 'created_at' },
    rotatedAt: { type: 'string', fieldName: 'rotated_at', nullable: true },
  },
});
