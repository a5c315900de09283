export { TlsCertificates } from './tls-certificates';
export type { TlsStatus } from './tls-certificates';
export { TlsFileError } from './tls-file-error';
