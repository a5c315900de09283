import { ChildProcess } from 'node:child_process';
import { ReportProcessSettings, ReportReply, ReportRequest, spawnReportProcess } from './sql-report-process';

type Ended = { readonly kind: 'timeout' } | { readonly kind: 'crashed'; readonly exit: string };

export type ReportOutcome =
  { readonly kind: 'reply'; readonly reply: Exclude<ReportReply, { op: 'ready' }> } | Ended;

type ProcessEvent = { readonly kind: 'message'; readonly reply: ReportReply } | Ended;

const MAX_IDLE = 2;
const START_TIMEOUT_MS = 15_000;

/** An overrunning report's process gets SIGKILL: only that really stops a statement busy inside DuckDB. */
export class ReportProcesses {
  private readonly idle: ChildProcess[] = [];
  private readonly busy = new Set<ChildProcess>();

  constructor(
    private readonly maxHeapMb: number,
    private readonly settings: ReportProcessSettings,
    private readonly spawn: (
      maxHeapMb: number,
      settings: ReportProcessSettings,
    ) => ChildProcess = spawnReportProcess,
  ) {}

  /** Starting a process is the appliance's cost, not the caller's: it has its own bound, outside the budget. */
  async run(request: ReportRequest, timeoutMs: number): Promise<ReportOutcome> {
    const reused = this.idle.pop();
    const child = reused ?? this.spawn(this.maxHeapMb, this.settings);
    this.busy.add(child);
    try {
      if (!reused) {
        const started = await this.next(child, Date.now() + Math.max(timeoutMs, START_TIMEOUT_MS));
        if (started.kind !== 'message' || started.reply.op !== 'ready') return this.discard(child, started);
      }
      child.send(request);
      const event = await this.next(child, Date.now() + timeoutMs);
      if (event.kind !== 'message' || event.reply.op === 'ready') return this.discard(child, event);
      this.busy.delete(child);
      if (this.idle.length < MAX_IDLE && child.connected) this.idle.push(child);
      else child.kill('SIGKILL');
      return { kind: 'reply', reply: event.reply };
    } catch (error) {
      return this.discard(child, {
        kind: 'crashed',
        exit: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(all.map((child) => killAndWait(child)));
  }

  private async discard(child: ChildProcess, event: ProcessEvent): Promise<ReportOutcome> {
    this.busy.delete(child);
    await killAndWait(child);
    return event.kind === 'message' ? { kind: 'crashed', exit: `unexpected ${event.reply.op}` } : event;
  }

  private next(child: ChildProcess, deadline: number): Promise<ProcessEvent> {
    return new Promise((resolve) => {
      const finish = (outcome: ProcessEvent): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
        resolve(outcome);
      };
      const onMessage = (reply: ReportReply): void => finish({ kind: 'message', reply });
      const onExit = (code: number | null, signal: string | null): void =>
        finish({ kind: 'crashed', exit: signal ?? `exit code ${code}` });
      const onError = (error: Error): void => finish({ kind: 'crashed', exit: error.message });
      const timer = setTimeout(() => finish({ kind: 'timeout' }), Math.max(0, deadline - Date.now()));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
    });
  }
}

function killAndWait(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
