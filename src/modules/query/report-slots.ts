import { AppError, retryAfterSeconds } from '../../common/errors';

export interface ReportSlotLimits {
  readonly perCaller: number;
  readonly perOrg: number;
  readonly total: number;
}

interface Slot {
  readonly caller: string;
  readonly orgId: string;
  readonly deadline: number;
}

/**
 * Running SQL reports per caller (API key or session user), per organization and on the appliance. A report over
 * any of the three is refused at once, 429 with Retry-After set to when the oldest report in its way reaches its
 * time budget (by then it has finished or been killed); nothing queues, so a flood costs no memory.
 */
export class ReportSlots {
  private readonly running = new Set<Slot>();

  constructor(private readonly limits: ReportSlotLimits) {}

  /** Takes a slot for a report of at most `budgetMs`; the returned function gives it back. */
  take(caller: string, orgId: string, budgetMs: number, now = Date.now()): () => void {
    const all = [...this.running];
    const scopes: [Slot[], number, string][] = [
      [all.filter((s) => s.caller === caller), this.limits.perCaller, 'per API key (or session)'],
      [all.filter((s) => s.orgId === orgId), this.limits.perOrg, 'per organization'],
      [all, this.limits.total, 'on this appliance'],
    ];
    for (const [slots, limit, scope] of scopes) {
      if (slots.length < limit) continue;
      const free = Math.min(...slots.map((s) => s.deadline));
      throw AppError.retryLater(
        'rate_limited',
        free - now,
        `At most ${limit} SQL reports may run at once ${scope}; retry in ${retryAfterSeconds(free - now)} s.`,
      );
    }
    const slot: Slot = { caller, orgId, deadline: now + budgetMs };
    this.running.add(slot);
    return () => this.running.delete(slot);
  }
}
