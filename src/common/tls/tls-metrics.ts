import { MetricsService } from '../metrics/metrics.service';
import { TlsCertificates } from './tls-certificates';

export function registerTlsMetrics(metrics: MetricsService, tls: TlsCertificates): void {
  if (tls.mode === 'off') return;
  metrics.gauge({
    name: 'service_tls_certificate_expiry_timestamp_seconds',
    help: 'When the served TLS certificate expires (Unix time, seconds)',
    collect() {
      const notAfter = tls.status().certificate?.notAfter;
      if (notAfter !== undefined) this.set(Math.floor(notAfter.getTime() / 1000));
    },
  });
}
