import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsService } from '../../common/metrics/metrics.service';
import { ENGINE_MODES, EngineMode } from './engine.types';

/** Prometheus series of the engine pool. */
@Injectable()
export class EngineMetrics {
  readonly busy: Gauge;
  readonly live: Gauge;
  readonly mode: Gauge<'mode'>;
  readonly queueWait: Histogram;
  readonly compute: Histogram<'path'>;
  readonly restarts: Counter<'reason'>;
  readonly timeouts: Counter<'path'>;

  constructor(metrics: MetricsService) {
    this.busy = metrics.gauge({
      name: 'engine_workers_busy',
      help: 'Engine workers computing a request now',
    });
    this.live = metrics.gauge({ name: 'engine_workers_live', help: 'Engine workers running' });
    this.mode = metrics.gauge({
      name: 'engine_mode',
      help: 'The current engine mode (1 for the active one)',
      labelNames: ['mode'],
    });
    this.queueWait = metrics.histogram({
      name: 'engine_queue_wait_seconds',
      help: 'Time a request waited for a free engine worker',
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    });
    this.compute = metrics.histogram({
      name: 'engine_compute_seconds',
      help: 'Engine round trip per request (pool worker or one-shot process)',
      labelNames: ['path'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    });
    this.restarts = metrics.counter({
      name: 'engine_worker_restarts_total',
      help: 'Engine workers replaced, by reason (died, timeout, unhealthy, recycled, start_failed)',
      labelNames: ['reason'],
    });
    this.timeouts = metrics.counter({
      name: 'engine_timeouts_total',
      help: 'Computations that exceeded ENGINE_COMPUTE_TIMEOUT_S',
      labelNames: ['path'],
    });
  }

  setMode(current: EngineMode): void {
    for (const mode of ENGINE_MODES) this.mode.set({ mode }, mode === current ? 1 : 0);
  }
}
