/** A valid `/v1/simulate` body small enough to finish in milliseconds: two variables, 2,000 runs, fixed seed. */
export const SMALL_SIMULATION = {
  runs: 2000,
  seed: 42,
  scenario: {
    variables: { revenue: { low: 100, high: 200 }, cost: { low: -120, high: -80 } },
    objective: 'maximize_net_value',
  },
};

/** One action over one variable, 1,000 runs: a quiet tenant's small simulation beside another's flood. */
export const REORDER_SIMULATION = {
  runs: 1000,
  seed: 3,
  scenario: {
    variables: { demand: { low: 80, high: 120 } },
    objective: 'maximize_net_value',
    actions: [{ name: 'reorder', model: 'demand * 2' }],
  },
};
