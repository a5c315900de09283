/**
 * Preloaded into the daemon by the soak (`--require`, through BENCH_DAEMON_NODE_ARGS; see ./run.ts) when
 * SOAK_PROBE_FILE is set: the daemon's event-loop delay at 1 ms resolution and its garbage-collection pauses, written
 * as JSON to that file when the daemon exits. Bench-only: nothing of it is in src/.
 */
import { writeFileSync } from 'node:fs';
import { PerformanceEntry, PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const kinds: Record<number, string> = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const gc: Record<string, { count: number; totalMs: number; maxMs: number; over10ms: number }> = {};
  const longest: { ms: number; kind: string; atS: number }[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
      const kind = kinds[detail?.kind ?? -1] ?? 'other';
      const g = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0, over10ms: 0 });
      g.count += 1;
      g.totalMs += entry.duration;
      g.maxMs = Math.max(g.maxMs, entry.duration);
      if (entry.duration > 10) g.over10ms += 1;
      longest.push({ ms: entry.duration, kind, atS: entry.startTime / 1000 });
      longest.sort((a, b) => b.ms - a.ms);
      longest.length = Math.min(longest.length, 10);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
    writeFileSync(
      file,
      JSON.stringify({
        loopDelayMs: {
          p50: ms(delay.percentile(50)),
          p90: ms(delay.percentile(90)),
          p99: ms(delay.percentile(99)),
          p999: ms(delay.percentile(99.9)),
          max: ms(delay.max),
        },
        gc,
        longestGc: longest,
      }),
    );
  });
}
