import { AppError } from '../../src/common/errors';
import { ReportSlots } from '../../src/modules/query/report-slots';

function refusal(take: () => unknown): AppError {
  try {
    take();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ReportSlots', () => {
  it('refuses a third report of one caller with Retry-After until the oldest reaches its budget', () => {
    const slots = new ReportSlots({ perCaller: 2, perOrg: 4, total: 8 });
    slots.take('key_a', 'org_1', 30_000, 1_000);
    slots.take('key_a', 'org_1', 30_000, 11_000);
    const error = refusal(() => slots.take('key_a', 'org_1', 30_000, 12_500));
    expect(error.code).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({ 'retry-after': '19' });
    expect(error.message).toBe(
      'At most 2 SQL reports may run at once per API key (or session); retry in 19 s.',
    );
  });

  it('counts per organization and on the appliance, and gives slots back', () => {
    const slots = new ReportSlots({ perCaller: 2, perOrg: 3, total: 4 });
    const release = slots.take('a', 'org_1', 10_000, 0);
    slots.take('b', 'org_1', 10_000, 0);
    slots.take('c', 'org_1', 10_000, 0);
    expect(refusal(() => slots.take('d', 'org_1', 10_000, 0)).message).toContain('per organization');
    slots.take('e', 'org_2', 10_000, 0);
    expect(refusal(() => slots.take('f', 'org_3', 10_000, 0)).message).toContain('on this appliance');
    release();
    expect(() => slots.take('f', 'org_3', 10_000, 0)).not.toThrow();
  });
});
