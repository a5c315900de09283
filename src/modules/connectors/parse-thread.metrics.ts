import { Injectable } from '@nestjs/common';
import { MetricsService } from '../../common/metrics/metrics.service';
import { parseThreadLoad } from './formats/parse-thread';

/** The file parse threads as gauges, read when the metrics are collected. */
@Injectable()
export class ParseThreadMetrics {
  constructor(metrics: MetricsService) {
    metrics.gauge({
      name: 'parse_threads_running',
      help: 'File parse threads running',
      collect() {
        this.set(parseThreadLoad().running);
      },
    });
    metrics.gauge({
      name: 'parse_threads_queued',
      help: 'File parses waiting for a thread (SERVICE_PARSE_MAX_THREADS or the parse memory cap reached)',
      collect() {
        this.set(parseThreadLoad().queued);
      },
    });
  }
}
