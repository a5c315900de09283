/**
 * An open-loop load at a steady rate, for the soak: requests leave at evenly spaced moments, and each latency is
 * measured from the moment the request was due, not from when it could be sent.
 *
 * autocannon's own rate limit sends each connection's quota for the second as fast as it can, then waits for the
 * next second: at "half the maximum" the daemon got all of a second's requests in its first few hundred
 * milliseconds, so the latencies were those of a queue at full load. Its coordinated-omission correction then
 * assumed one request per millisecond (`ceil(1 / rate)`), adding a synthetic sample for every millisecond of a slow
 * answer. Measuring from the due time is the correction without the assumption (as wrk2 does).
 *
 * Measuring from the due time counts the client's own lateness as latency, so the client must not be the bottleneck:
 * each result also carries how late requests left (send lateness) and the event-loop delay of the process that sent
 * them. `pacedLoadInChild` runs one route in a process of its own (node:child_process.fork of this module), so four
 * routes do not share one event loop.
 */
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface PacedTarget {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface PacedResult {
  readonly sent: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Requests never sent because as many as `maxInFlight` were still waiting: the daemon fell behind. */
  readonly dropped: number;
  readonly achievedPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** How late requests left the client (due time to `request()`), ms. */
  readonly lateP99: number;
  readonly lateMax: number;
  /** The sending process's event-loop delay over the run, ms (10 ms resolution). */
  readonly loopDelayP99: number;
  readonly loopDelayMax: number;
  /** Answers slower than `SLOW_MS`, per second of the run: when the tail happens. */
  readonly slowPerSecond: number[];
}

export const SLOW_MS = 20;
const TICK_MS = 2;
const BUCKET_MS = 0.1;
const BUCKETS = 100_000; // 0–10 s in 0.1 ms steps; slower answers land in the last bucket

class Histogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private n = 0;
  max = 0;

  add(ms: number): void {
    this.max = Math.max(this.max, ms);
    this.counts[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))] += 1;
    this.n += 1;
  }

  percentile(p: number): number {
    let seen = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      seen += this.counts[i];
      if (seen >= this.n * p) return (i + 1) * BUCKET_MS;
    }
    return this.max;
  }
}

/** Runs `ratePerSecond` requests a second for `seconds`, over at most `connections` keep-alive sockets. */
export async function pacedLoad(
  target: PacedTarget,
  ratePerSecond: number,
  seconds: number,
  connections: number,
  maxInFlight = 10_000,
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latency = new Histogram();
  const lateness = new Histogram();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  const slowPerSecond = new Array<number>(Math.ceil(seconds) + 1).fill(0);
  let sent = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let dropped = 0;
  let inFlight = 0;
  const started = performance.now();
  const record = (dueAt: number): void => {
    const ms = performance.now() - dueAt;
    latency.add(ms);
    if (ms > SLOW_MS)
      slowPerSecond[Math.min(slowPerSecond.length - 1, Math.floor((dueAt - started) / 1000))] += 1;
  };
  const send = (dueAt: number): void => {
    inFlight += 1;
    sent += 1;
    lateness.add(performance.now() - dueAt);
    const req = request(
      `${target.url}${target.path}`,
      { method: target.method, agent, headers: target.headers },
      (res) => {
        res.resume();
        res.on('end', () => {
          inFlight -= 1;
          record(dueAt);
          if (res.statusCode !== undefined && res.statusCode < 300) ok += 1;
          else non2xx += 1;
        });
      },
    );
    req.on('error', () => {
      inFlight -= 1;
      errors += 1;
    });
    req.end(target.body);
  };

  loopDelay.enable();
  const total = Math.round(ratePerSecond * seconds);
  let next = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      while (next < total && started + (next * 1000) / ratePerSecond <= now) {
        const dueAt = started + (next * 1000) / ratePerSecond;
        next += 1;
        if (inFlight >= maxInFlight) dropped += 1;
        else send(dueAt);
      }
      if (next >= total) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 10));
  loopDelay.disable();
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();

  return {
    sent,
    ok,
    non2xx,
    errors,
    dropped,
    achievedPerSecond: (ok + non2xx) / elapsedS,
    p50: latency.percentile(0.5),
    p99: latency.percentile(0.99),
    max: latency.max,
    lateP99: lateness.percentile(0.99),
    lateMax: lateness.max,
    loopDelayP99: loopDelay.percentile(99) / 1e6,
    loopDelayMax: loopDelay.max / 1e6,
    slowPerSecond,
  };
}

interface ChildJob {
  readonly target: PacedTarget;
  readonly ratePerSecond: number;
  readonly seconds: number;
  readonly connections: number;
}

/** `pacedLoad` in a forked process of its own (this module as the child), so the routes do not share a loop. */
export function pacedLoadInChild(
  target: PacedTarget,
  ratePerSecond: number,
  seconds: number,
  connections: number,
): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: PacedResult | undefined;
    child.once('message', (message) => {
      result = message as PacedResult;
      child.disconnect();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the paced client exited with ${String(code)}`)),
    );
    const job: ChildJob = { target, ratePerSecond, seconds, connections };
    child.send(job);
  });
}

if (require.main === module && process.send) {
  process.once('message', (job: ChildJob) => {
    void pacedLoad(job.target, job.ratePerSecond, job.seconds, job.connections).then((result) =>
      process.send?.(result),
    );
  });
}
