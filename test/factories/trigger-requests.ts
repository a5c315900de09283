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
