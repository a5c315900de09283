import { signupAccount, TestAccount } from '../factories/accounts';
import { queryTrigger, stockDataset, TRIGGER_SIMULATION } from '../factories/triggers';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';
import { TriggerRepository } from '../../src/modules/triggers/trigger.repository';

const LEASE_S = 3;

jest.setTimeout(300_000);

/**
 * A simulation that runs for several leases: the most runs a request may ask for (10,000,000) of a model of 500
 * square roots, about 10 s on this machine when it is quiet. 3,000,000 runs took 3.8 s there, which ended the
 * evaluation before its first lease had run out and so tested nothing.
 */
const SLOW_SIMULATION = {
  ...TRIGGER_SIMULATION,
  runs: 10_000_000,
  scenario: {
    ...TRIGGER_SIMULATION.scenario,
    actions: [
      {
        name: 'reorder',
        model: Array.from({ length: 500 }, (_, i) => `sqrt(demand * ${(i % 9) + 1})`).join(' + '),
      },
      { name: 'wait', model: 'current_value - demand' },
    ],
  },
};

describe('trigger evaluations under work leases', () => {
  let t: TestApp;
  let owner: TestAccount;
  let datasetId: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_WORK_LEASE_S: String(LEASE_S), ENGINE_COMPUTE_TIMEOUT_S: '600' });
    owner = await signupAccount(t);
    datasetId = await stockDataset(t, owner.apiKey, [80]);
  });
  afterAll(() => t.close());

  it('keeps the lease of an evaluation that outlasts it, renewing it, and records and counts its one fire', async () => {
    const repository = t.app.get(TriggerRepository);
    const created = await t.request('POST', '/v1/triggers', {
      token: owner.apiKey,
      body: queryTrigger(datasetId, { simulation: SLOW_SIMULATION }),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const row = async () => (await repository.findForOrg(owner.orgId, id))!;

    const claimed = await waitUntil(async () => {
      const trigger = await row();
      return trigger.leaseUntil ? trigger : undefined;
    }, 20_000);
    expect(claimed.leaseOwner).toEqual(expect.any(String));
    const renewed = await waitUntil(async () => {
      const trigger = await row();
      return trigger.leaseUntil && trigger.leaseUntil > claimed.leaseUntil! ? trigger : undefined;
    }, 20_000);
    expect(renewed.leaseOwner).toBe(claimed.leaseOwner);
    // Past the end of the first lease the evaluation still holds the trigger: renewed, not taken over.
    await waitUntil(async () => {
      const trigger = await row();
      const isPastFirstLease = Date.now() > claimed.leaseUntil!.getTime() + 1000;
      return (
        isPastFirstLease && trigger.leaseOwner === claimed.leaseOwner && trigger.leaseUntil! > new Date()
      );
    }, 20_000);

    const fired = await waitUntil(async () => {
      const trigger = await row();
      return trigger.lastFireId ? trigger : undefined;
    }, 240_000);
    expect(fired).toMatchObject({ state: 'firing', leaseOwner: null, leaseUntil: null });
    const fires = await t.request('GET', `/v1/triggers/${id}/fires`, { token: owner.apiKey });
    expect(fires.body.fires).toHaveLength(1);
    // The evaluation ran longer than one lease and was still recorded: its lease was renewed, not lost.
    const ranMs = fired.lastEvaluatedAt!.getTime() - Date.parse(fires.body.fires[0].fired_at);
    expect(ranMs).toBeGreaterThan(LEASE_S * 1000);

    const metrics = (await t.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^trigger_evaluations_total\{state="firing"\} 1$/m);
    expect(metrics).toMatch(/^trigger_fires_total\{kind="scheduled",execution_status="not_requested"\} 1$/m);
    expect(metrics).toMatch(/^trigger_evaluation_lateness_seconds_count 1$/m);
    expect(metrics).toContain('# TYPE trigger_slots_skipped_total counter');
  });
});
