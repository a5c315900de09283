import { TestApp } from '../support/test-app';

export { pushTrigger, queryTrigger, TRIGGER_SIMULATION } from './trigger-requests';

/** A private CSV dataset of the token's org with one `stock` column; returns its id. */
export async function stockDataset(t: TestApp, token: string, stock: readonly number[]): Promise<string> {
  const connector = await t.request('POST', '/v1/connectors', {
    token,
    body: {
      name: `stock-${Date.now()}-${Math.random()}`,
      connector_type: 'file',
      config: { file_type: 'csv', content: ['sku,stock', ...stock.map((s, i) => `sku${i},${s}`)].join('\n') },
    },
  });
  if (connector.status !== 201) throw new Error(`connector: ${connector.status} ${connector.text}`);
  const res = await t.request('POST', '/v1/data/connect', {
    token,
    body: {
      connection_type: 'file',
      dataset_name: 'stock',
      connection_id: connector.body.id,
      visibility: 'private',
    },
  });
  if (res.status !== 200) throw new Error(`connect: ${res.status} ${res.text}`);
  return res.body.dataset_id as string;
}
