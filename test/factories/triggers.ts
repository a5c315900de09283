import { TestApp } from '../support/test-app';

/** A trigger simulation: `current_value` is a variable the fire binds to the value it read. */
export const TRIGGER_SIMULATION = {
  runs: 2000,
  seed: 7,
  scenario: {
    variables: { current_value: { low: 0, high: 0 }, demand: { low: 80, high: 120 } },
    objective: 'maximize_net_value',
    actions: [
      { name: 'reorder', model: 'demand * 2 - current_value' },
      { name: 'wait', model: 'current_value - demand' },
    ],
  },
};

export function pushTrigger(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'reorder when stock is low',
    condition: { source: { kind: 'push' }, operator: 'lt', threshold: 100 },
    simulation: TRIGGER_SIMULATION,
    plans: { reorder: [{ name: 'create_purchase_order', params: { quantity: 500 } }] },
    ...overrides,
  };
}

export function queryTrigger(
  datasetId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return pushTrigger({
    condition: {
      source: {
        kind: 'query',
        dataset_id: datasetId,
        query: { select: ['stock'], limit: 1 },
        value: { column: 'stock' },
      },
      operator: 'lt',
      threshold: 100,
    },
    schedule: { interval_s: 60 },
    ...overrides,
  });
}

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
