export { TlsCertificates } from './tls-certificates';
export type { TlsStatus } from './tls-certificates';
export { TlsFileError } from './tls-file-error';
export { TlsSummaryResponse, toTlsSummary } from './tls-summary';
export { registerTlsMetrics } from './tls-metrics';
