import { ApiProperty } from '@nestjs/swagger';
import { TlsStatus } from './tls-certificates';

const TLS_MODES = ['off', 'self-signed', 'files'] as const;
const TLS_ORIGINS = ['generated', 'installed', 'files'] as const;

export class TlsSummaryResponse {
  @ApiProperty({ enum: TLS_MODES, description: 'SERVICE_TLS: off serves plain HTTP.' })
  mode!: (typeof TLS_MODES)[number];
  @ApiProperty({
    enum: TLS_ORIGINS,
    nullable: true,
    description: 'Made by the appliance, installed with `decisiond tls install`, or SERVICE_TLS_CERT_FILE.',
  })
  origin!: (typeof TLS_ORIGINS)[number] | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'CN=appliance.example.com' })
  subject!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'SHA-256 of the certificate (DER), colon-separated hex.',
  })
  fingerprint_sha256!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;
}

export function toTlsSummary(status: TlsStatus): TlsSummaryResponse {
  const certificate = status.certificate;
  return {
    mode: status.mode,
    origin: certificate?.origin ?? null,
    subject: certificate?.subject ?? null,
    fingerprint_sha256: certificate?.fingerprintSha256 ?? null,
    expires_at: certificate?.notAfter.toISOString() ?? null,
  };
}
