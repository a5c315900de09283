/** How often a decode budget is checked against the thread's busy time. */
const BUDGET_CHECK_MS = 100;

/**
 * The busy time a parse thread may spend decoding, checked every BUDGET_CHECK_MS. `busyMsSince` marks a start and
 * returns how many ms of busy time have passed since it; `onOverrun` is called once, when they pass the budget.
 */
export class DecodeBudget {
  private check: NodeJS.Timeout | undefined;

  constructor(
    private readonly busyMsSince: () => () => number,
    private readonly onOverrun: (budgetMs: number) => void,
  ) {}

  /** Counts `budgetMs` from now, in place of any budget set before (whose check would otherwise run on). */
  set(budgetMs: number): void {
    this.clear();
    const busyMs = this.busyMsSince();
    this.check = setInterval(() => {
      if (busyMs() <= budgetMs) return;
      this.clear();
      this.onOverrun(budgetMs);
    }, BUDGET_CHECK_MS);
    this.check.unref();
  }

  clear(): void {
    clearInterval(this.check);
    this.check = undefined;
  }
}
