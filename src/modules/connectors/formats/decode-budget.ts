/** How often a decode budget is checked against the thread's busy time. */
const BUDGET_CHECK_MS = 100;

/**
 * The busy time a parse thread may spend decoding, checked every BUDGET_CHECK_MS. `busyMsSince` marks a start and
 * returns how many ms of busy time have passed since it (at once, or as a promise when the thread's CPU clock is
 * read asynchronously); `onOverrun` is called once, when they pass the budget.
 */
export class DecodeBudget {
  private check: NodeJS.Timeout | undefined;

  constructor(
    private readonly busyMsSince: () => () => number | Promise<number>,
    private readonly onOverrun: (budgetMs: number) => void,
  ) {}

  /** Counts `budgetMs` from now, in place of any budget set before (whose check would otherwise run on). */
  set(budgetMs: number): void {
    this.clear();
    const busyMs = this.busyMsSince();
    const check = setInterval(() => {
      const judge = (spent: number): void => {
        if (spent <= budgetMs || this.check !== check) return;
        this.clear();
        this.onOverrun(budgetMs);
      };
      const spent = busyMs();
      if (typeof spent === 'number') judge(spent);
      else void spent.then(judge);
    }, BUDGET_CHECK_MS);
    this.check = check;
    this.check.unref();
  }

  clear(): void {
    clearInterval(this.check);
    this.check = undefined;
  }
}
