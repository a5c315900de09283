/**
 * An open-loop load at a steady rate, for the soak: requests leave at evenly spaced moments, and each latency is
 * measured from the moment the request was due, not from when it could be sent.
 *
 * autocannon's own rate limit sends each connection's quota for the second as fast as it can, then waits for the
 * next second: at "half the maximum" the daemon got all of a second's requests in its first few hundred
 * milliseconds, so the latencies were those of a queue at full load. Its coordinated-omission correction then
 * assumed one request per millisecond (`ceil(1 / rate)`), adding a synthetic sample for every millisecond of a slow
 * answer. Measuring from the due time is the correction without the assumption (as wrk2 does).
 */
import { Agent, request } from 'node:http';

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
}

const TICK_MS = 2;
const BUCKET_MS = 0.1;
const BUCKETS = 100_000; // 0–10 s in 0.1 ms steps; slower answers land in the last bucket

/** Runs `ratePerSecond` requests a second for `seconds`, over at most `connections` keep-alive sockets. */
export async function pacedLoad(
  target: PacedTarget,
  ratePerSecond: number,
  seconds: number,
  connections: number,
  maxInFlight = 10_000,
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const histogram = new Uint32Array(BUCKETS);
  let sent = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let dropped = 0;
  let inFlight = 0;
  let max = 0;
  const record = (dueAt: number): void => {
    const ms = performance.now() - dueAt;
    max = Math.max(max, ms);
    histogram[Math.min(BUCKETS - 1, Math.floor(ms / BUCKET_MS))] += 1;
  };
  const send = (dueAt: number): void => {
    inFlight += 1;
    sent += 1;
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

  const started = performance.now();
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
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();

  const percentile = (p: number): number => {
    const answered = ok + non2xx;
    let seen = 0;
    for (let i = 0; i < BUCKETS; i += 1) {
      seen += histogram[i];
      if (seen >= answered * p) return (i + 1) * BUCKET_MS;
    }
    return max;
  };
  return {
    sent,
    ok,
    non2xx,
    errors,
    dropped,
    achievedPerSecond: (ok + non2xx) / elapsedS,
    p50: percentile(0.5),
    p99: percentile(0.99),
    max,
  };
}
