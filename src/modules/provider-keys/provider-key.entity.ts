import { EntitySchema } from '@mikro-orm/core';

/** One organization's secret for one backend, sealed with SERVICE_CONFIG_ENCRYPTION_KEY (never stored in clear). */
export interface ProviderKey {
  id: string;
  orgId: string;
  backend: string;
  sealedSecret: string;
  createdAt: string;
  updatedAt: string;
}

export const ProviderKeySchema = new EntitySchema<ProviderKey>({
  name: 'ProviderKey',
  tableName: 'provider_keys',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    backend: { type: 'string' },
    sealedSecret: { type: 'text', fieldName: 'sealed_secret', lazy: true },
    createdAt: { type: 'string', fieldName: 'created_at' },
    updatedAt: { type: 'string', fieldName: 'updated_at' },
  },
});

/** Associated data of the seal: a sealed secret only opens in the row it was written for. */
export function providerKeyAad(orgId: string, backend: string): string {
  return `provider-key:${orgId}:${backend}`;
}
