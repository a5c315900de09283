/** A valid `/v1/simulate` body small enough to finish in milliseconds: two variables, 2,000 runs, fixed seed. */
export const SMALL_SIMULATION = {
  runs: 2000,
  seed: 42,
  scenario: {
    variables: { revenue: { low: 100, high: 200 }, cost: { low: -120, high: -80 } },
    objective: 'maximize_net_value',
  },
};
