import { AppError } from '../../common/errors';
import { EngineReply, EngineRequest, EngineTicket, EngineWorkKind, INTERACTIVE_TICKET } from './engine.types';
import { WorkerHandle, WorkerLauncher, WorkerLostError, WorkerTimeoutError } from './engine-worker';

export interface PoolOptions {
  readonly size: number;
  readonly acquireTimeoutMs: number;
  readonly computeTimeoutMs: number;
  readonly pingTimeoutMs: number;
  /** Recycle a worker after about this many requests (0 = never); each worker gets up to +10 % jitter. */
  readonly recycleAfter: number;
  readonly healthIntervalMs: number;
  readonly crashLoop: CrashLoopOptions;
}

export interface CrashLoopOptions {
  /** Worker failures (deaths, timeouts, failed starts) within `windowMs` that open the breaker. */
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly coolDownMs: number;
}

export type LossReason = 'died' | 'timeout' | 'unhealthy' | 'recycled' | 'start_failed';

export interface PoolObserver {
  workerReady(pid: number, slot: number): void;
  workerLost(reason: LossReason, slot: number, detail: string, pid?: number): void;
  busyChanged(busy: number): void;
  queueWaited(ms: number): void;
  computed(ms: number): void;
  timedOut(): void;
  crashLoop(failures: number): void;
  availabilityChanged(serving: boolean): void;
}

/** The pool cannot serve at all right now (no live worker and the crash-loop breaker is open, or stopping). */
export class PoolUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PoolUnavailableError';
  }
}

type SlotState = 'empty' | 'starting' | 'idle' | 'busy' | 'checking';

interface Slot {
  readonly index: number;
  state: SlotState;
  worker?: WorkerHandle;
  served: number;
  recycleAt: number;
  retryTimer?: NodeJS.Timeout;
  consecutiveFailures: number;
  kind?: EngineWorkKind;
}

interface Waiter {
  readonly ticket: EngineTicket;
  resolve(slot: Slot): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

const RESTART_BACKOFF_MS = 100;

export class CrashLoopBreaker {
  private failures: number[] = [];

  constructor(
    private readonly options: CrashLoopOptions,
    private readonly now: () => number = Date.now,
  ) {}

  record(): boolean {
    const wasOpen = this.isOpen();
    this.failures.push(this.now());
    return !wasOpen && this.isOpen();
  }

  isOpen(): boolean {
    const since = this.now() - this.options.windowMs;
    this.failures = this.failures.filter((t) => t > since);
    return this.failures.length >= this.options.maxFailures;
  }

  get recentFailures(): number {
    return this.failures.length;
  }
}

/** Supervises ENGINE_POOL_SIZE warm workers, one request each; overrunning or dead workers are replaced. */
export class EnginePool {
  private readonly slots: Slot[];
  private readonly idle: Slot[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly breaker: CrashLoopBreaker;
  private healthTimer?: NodeJS.Timeout;
  private stopped = false;
  private started = false;
  private serving = false;
  private restartCount = 0;
  private lastHealth: Date | undefined;
  private engineVersion: string | undefined;
  /** When each organization was last handed a worker, so the longest-unserved one goes next. */
  private readonly lastServed = new Map<string, number>();
  private handOuts = 0;

  constructor(
    private readonly launcher: WorkerLauncher,
    /** Run on every new worker before it takes requests (the probe); a rejection counts as a failed start. */
    private readonly prepare: (worker: WorkerHandle) => Promise<void>,
    private readonly options: PoolOptions,
    private readonly observer: PoolObserver,
  ) {
    this.breaker = new CrashLoopBreaker(options.crashLoop);
    this.slots = Array.from({ length: options.size }, (_, index): Slot => ({
      index,
      state: 'empty',
      served: 0,
      recycleAt: 0,
      consecutiveFailures: 0,
    }));
  }

  async start(adopted: readonly WorkerHandle[] = []): Promise<void> {
    adopted.slice(0, this.slots.length).forEach((worker, i) => this.install(this.slots[i], worker));
    await Promise.all(this.slots.filter((slot) => slot.state === 'empty').map((slot) => this.launch(slot)));
    this.started = true;
    this.lastHealth = new Date();
    this.updateAvailability();
    if (this.options.healthIntervalMs > 0) {
      this.healthTimer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs);
      this.healthTimer.unref();
    }
  }

  get isServing(): boolean {
    return this.serving;
  }

  status(): {
    size: number;
    live: number;
    busy: number;
    queued: number;
    restarts: number;
    version: string | undefined;
    lastHealthCheck: Date | undefined;
    workers: { slot: number; pid: number | undefined; state: SlotState; served: number }[];
  } {
    return {
      size: this.slots.length,
      live: this.slots.filter((s) => s.worker?.isAlive === true).length,
      busy: this.slots.filter((s) => s.state === 'busy').length,
      queued: this.waiters.length,
      restarts: this.restartCount,
      version: this.engineVersion,
      lastHealthCheck: this.lastHealth,
      workers: this.slots.map((s) => ({
        slot: s.index,
        pid: s.worker?.pid,
        state: s.state,
        served: s.served,
      })),
    };
  }

  /** Throws engine_busy, engine_timeout, internal_error (died twice), or PoolUnavailableError (route elsewhere). */
  async run(request: EngineRequest, ticket: EngineTicket = INTERACTIVE_TICKET): Promise<EngineReply> {
    for (let attempt = 1; ; attempt++) {
      const waitStarted = performance.now();
      const acquired = this.acquire(ticket);
      const slot = acquired instanceof Promise ? await acquired : acquired;
      this.observer.queueWaited(performance.now() - waitStarted);
      const worker = slot.worker;
      if (!worker) throw new Error('an acquired engine slot has no worker');
      const computeStarted = performance.now();
      try {
        const reply = await worker.run(request, this.options.computeTimeoutMs);
        this.observer.computed(performance.now() - computeStarted);
        if (reply.type === 'error' && reply.error.code === 'engine_timeout') this.observer.timedOut();
        this.release(slot);
        return reply;
      } catch (error) {
        if (error instanceof WorkerTimeoutError) {
          this.observer.timedOut();
          this.replace(slot, 'timeout', error.message);
          throw new AppError(
            'engine_timeout',
            `The computation exceeded ENGINE_COMPUTE_TIMEOUT_S (${this.options.computeTimeoutMs / 1000} s).`,
          );
        }
        this.replace(slot, 'died', error instanceof Error ? error.message : String(error));
        if (!(error instanceof WorkerLostError) || attempt >= 2) {
          throw new AppError(
            'internal_error',
            'The engine worker failed twice while computing this request.',
          );
        }
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.healthTimer);
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new PoolUnavailableError('the engine pool is stopping'));
    }
    const exits: Promise<void>[] = [];
    for (const slot of this.slots) {
      clearTimeout(slot.retryTimer);
      const worker = slot.worker;
      if (!worker) continue;
      exits.push(new Promise((resolve) => worker.onExit(resolve)));
      worker.retire();
    }
    await Promise.all(exits);
  }

  /** An idle worker is handed over synchronously, so the request is written before the caller's next statement. */
  private acquire(ticket: EngineTicket): Slot | Promise<Slot> {
    if (this.stopped) throw new PoolUnavailableError('the engine pool is stopping');
    if (!this.serving) throw new PoolUnavailableError('no engine worker is running');
    const slot = ticket.kind === 'scheduled' && !this.mayRunScheduled() ? undefined : this.idle.shift();
    if (slot) {
      this.handOut(slot, ticket);
      return slot;
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ticket,
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(
            new AppError(
              'engine_busy',
              `No engine worker became free within ENGINE_ACQUIRE_TIMEOUT_S (${this.options.acquireTimeoutMs / 1000} s).`,
              undefined,
              { 'retry-after': '1' },
            ),
          );
        }, this.options.acquireTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private release(slot: Slot): void {
    slot.served++;
    if (this.options.recycleAfter > 0 && slot.served >= slot.recycleAt) {
      const worker = slot.worker;
      slot.worker = undefined;
      worker?.retire();
      this.observer.workerLost('recycled', slot.index, `served ${slot.served} requests`, worker?.pid);
      this.setState(slot, 'empty');
      void this.launch(slot);
      return;
    }
    this.offer(slot);
  }

  /** A free worker goes to interactive before scheduled work, then to the organization served longest ago. */
  private offer(slot: Slot): void {
    slot.kind = undefined;
    const waiter = this.nextWaiter();
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      clearTimeout(waiter.timer);
      this.handOut(slot, waiter.ticket);
      waiter.resolve(slot);
      return;
    }
    this.setState(slot, 'idle');
    this.idle.push(slot);
  }

  private nextWaiter(): Waiter | undefined {
    const interactive = this.waiters.filter((w) => w.ticket.kind === 'interactive');
    const candidates = interactive.length > 0 ? interactive : this.mayRunScheduled() ? this.waiters : [];
    let next: Waiter | undefined;
    for (const waiter of candidates) {
      if (!next || this.servedAt(waiter.ticket.orgId) < this.servedAt(next.ticket.orgId)) next = waiter;
    }
    return next;
  }

  private servedAt(orgId: string): number {
    return this.lastServed.get(orgId) ?? -1;
  }

  /** With two or more workers, scheduled work may hold all but one, so an interactive request never waits on it. */
  private mayRunScheduled(): boolean {
    const size = this.slots.length;
    return size < 2 || this.slots.filter((s) => s.kind === 'scheduled').length < size - 1;
  }

  private handOut(slot: Slot, ticket: EngineTicket): void {
    slot.kind = ticket.kind;
    this.lastServed.set(ticket.orgId, ++this.handOuts);
    this.setState(slot, 'busy');
  }

  private install(slot: Slot, worker: WorkerHandle): void {
    slot.worker = worker;
    slot.served = 0;
    slot.consecutiveFailures = 0;
    const jitter = Math.floor(Math.random() * Math.max(1, Math.ceil(this.options.recycleAfter / 10)));
    slot.recycleAt = this.options.recycleAfter + jitter;
    this.engineVersion ??= worker.version;
    worker.onExit(() => {
      // A busy worker's death surfaces through its run(); here only idle or checking ones are handled.
      if (slot.worker !== worker || this.stopped) return;
      if (slot.state === 'idle' || slot.state === 'checking')
        this.replace(slot, 'died', 'the worker process exited');
    });
    this.observer.workerReady(worker.pid, slot.index);
    this.offer(slot);
    this.updateAvailability();
  }

  private async launch(slot: Slot): Promise<void> {
    if (this.stopped) return;
    this.setState(slot, 'starting');
    let worker: WorkerHandle | undefined;
    try {
      worker = await this.launcher.launch();
      await this.prepare(worker);
    } catch (error) {
      worker?.kill();
      this.setState(slot, 'empty');
      slot.consecutiveFailures++;
      this.noteFailure();
      this.observer.workerLost(
        'start_failed',
        slot.index,
        error instanceof Error ? error.message : String(error),
      );
      this.updateAvailability();
      this.scheduleLaunch(slot);
      return;
    }
    if (this.stopped) {
      worker.retire();
      return;
    }
    this.install(slot, worker);
  }

  private scheduleLaunch(slot: Slot): void {
    if (this.stopped) return;
    const delay = this.breaker.isOpen()
      ? this.options.crashLoop.coolDownMs
      : Math.min(
          RESTART_BACKOFF_MS * 2 ** Math.min(slot.consecutiveFailures, 6),
          this.options.crashLoop.coolDownMs,
        );
    clearTimeout(slot.retryTimer);
    slot.retryTimer = setTimeout(() => {
      slot.retryTimer = undefined;
      this.updateAvailability();
      if (slot.state === 'empty') void this.launch(slot);
    }, delay);
    slot.retryTimer.unref();
  }

  private replace(
    slot: Slot,
    reason: Exclude<LossReason, 'recycled' | 'start_failed'>,
    detail: string,
  ): void {
    const worker = slot.worker;
    slot.worker = undefined;
    const queued = this.idle.indexOf(slot);
    if (queued >= 0) this.idle.splice(queued, 1);
    worker?.kill();
    this.setState(slot, 'empty');
    this.restartCount++;
    this.noteFailure();
    this.observer.workerLost(reason, slot.index, detail, worker?.pid);
    this.updateAvailability();
    if (this.stopped) return;
    if (this.breaker.isOpen()) this.scheduleLaunch(slot);
    else void this.launch(slot);
  }

  private noteFailure(): void {
    if (this.breaker.record()) this.observer.crashLoop(this.breaker.recentFailures);
  }

  private async checkHealth(): Promise<void> {
    if (this.stopped) return;
    const checks = this.idle.splice(0).map(async (slot) => {
      const worker = slot.worker;
      if (!worker) return;
      this.setState(slot, 'checking');
      try {
        await worker.ping(this.options.pingTimeoutMs);
      } catch (error) {
        if (slot.worker === worker) {
          this.replace(slot, 'unhealthy', error instanceof Error ? error.message : String(error));
        }
        return;
      }
      if (slot.worker === worker && slot.state === 'checking') this.offer(slot);
    });
    await Promise.all(checks);
    this.lastHealth = new Date();
    this.updateAvailability();
  }

  private setState(slot: Slot, state: SlotState): void {
    const before = this.busyCount();
    slot.state = state;
    if (state !== 'busy') slot.kind = undefined;
    const after = this.busyCount();
    if (before !== after) this.observer.busyChanged(after);
  }

  private busyCount(): number {
    return this.slots.filter((s) => s.state === 'busy').length;
  }

  /** Serving while some worker lives, or while the breaker is closed (a replacement is starting or scheduled). */
  private updateAvailability(): void {
    const live = this.slots.some((s) => s.worker !== undefined);
    const serving = !this.stopped && this.started && (live || !this.breaker.isOpen());
    if (serving === this.serving) return;
    this.serving = serving;
    this.observer.availabilityChanged(serving);
    if (!serving) {
      for (const waiter of this.waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(
          new PoolUnavailableError('every engine worker failed and the crash-loop breaker is open'),
        );
      }
    }
  }
}
