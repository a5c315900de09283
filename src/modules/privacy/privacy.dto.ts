import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { TlsSummaryResponse } from '../../common/tls';
import { PrivacyReportRecord } from './privacy-report.entity';
import { REPORT_FORMATS, ReportFormat } from './report-format';

export class PrivacyReportListQuery extends CursorPageQuery {}

export class ReportFormatQuery {
  /** Overrides the Accept header: `json` (the signed bytes) or `html` (the page embedding them). */
  @IsOptional()
  @IsIn(REPORT_FORMATS)
  format?: ReportFormat;
}

export class ReportWindowResponse {
  @ApiProperty({ format: 'date-time' })
  start!: string;
  @ApiProperty({ format: 'date-time' })
  end!: string;
}

export class ReportApplianceResponse {
  @ApiProperty({ example: '0.1.0' })
  version!: string;
  @ApiProperty({
    example: '0.1.0-1',
    description: 'The Debian package version the appliance runs, or `development` for a source checkout.',
  })
  build!: string;
  @ApiProperty({
    required: false,
    type: 'string',
    nullable: true,
    description:
      'The git commit the package was built from (in a checkout, its HEAD). Absent from reports made before builds were recorded.',
  })
  source_commit?: string | null;
  @ApiProperty({
    required: false,
    type: 'string',
    nullable: true,
    description:
      'SHA-256 of the CycloneDX SBOM the package ships (/usr/share/doc/decision-service/sbom.cdx.json); null in a checkout.',
  })
  sbom_sha256?: string | null;
}

export class ReportLicenseResponse {
  @ApiProperty({ example: 'community' })
  edition!: string;
  @ApiProperty({ example: 'unlicensed' })
  status!: string;
}

export class ReportStoreResponse {
  @ApiProperty({ enum: ['sqlite', 'postgresql'], description: 'Where the appliance keeps its state.' })
  kind!: 'sqlite' | 'postgresql';
  @ApiProperty({
    description:
      "SQLite: the file's path on this appliance. PostgreSQL: `host:port/database`, never the user or password.",
    example: '10.0.0.20:5432/decision',
  })
  location!: string;
  @ApiProperty({
    type: 'boolean',
    enum: [false],
    description:
      "The store is the operator's configuration: its connection is not judged by the egress policy.",
  })
  judged_by_egress_policy!: false;
  @ApiProperty({
    description: 'True on PostgreSQL: the database and both directories are shared by every replica.',
  })
  shared_by_replicas!: boolean;
  @ApiProperty({
    description: 'Where dataset files live (SERVICE_DATASETS_DIR).',
    example: '/srv/decision-shared/datasets',
  })
  datasets_dir!: string;
  @ApiProperty({
    description: 'Where the appliance signing keys live (SERVICE_KEYS_DIR).',
    example: '/srv/decision-shared/keys',
  })
  keys_dir!: string;
  @ApiProperty({
    description: 'Host name of the node whose replica composed and signed this report.',
    example: 'node1',
  })
  composed_on!: string;
}

export class ReportPolicyResponse {
  @ApiProperty({ description: 'How the egress rules were given.', example: 'deny_all' })
  mode!: string;
  @ApiProperty({ type: [String], example: ['10.0.0.0/8:5432'] })
  rules!: string[];
  @ApiProperty({ description: 'SHA-256 hex of the policy in force.' })
  sha256!: string;
}

export class ReportHourResponse {
  @ApiProperty({ format: 'date-time' })
  start!: string;
  @ApiProperty({ type: 'integer' })
  allowed!: number;
  @ApiProperty({ type: 'integer' })
  denied!: number;
}

export class ReportNodeResponse {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Host name of the node (replica) that recorded the decisions; null for ones recorded before nodes were.',
    example: 'node1',
  })
  node!: string | null;
  @ApiProperty({ type: 'integer' })
  allowed!: number;
  @ApiProperty({ type: 'integer' })
  denied!: number;
}

export class ReportDestinationResponse {
  @ApiProperty({ example: 'db.internal' })
  host!: string;
  @ApiProperty({ type: 'integer', example: 5432 })
  port!: number;
  @ApiProperty({ example: 'connector' })
  purpose!: string;
  @ApiProperty({ type: 'integer' })
  allowed!: number;
  @ApiProperty({ type: 'integer' })
  denied!: number;
  @ApiProperty({ format: 'date-time' })
  first_seen!: string;
  @ApiProperty({ format: 'date-time' })
  last_seen!: string;
  @ApiProperty({ type: [String], example: ['10.0.4.7'] })
  addresses!: string[];
}

export class ReportEgressResponse {
  @ApiProperty({ type: 'integer' })
  attempts!: number;
  @ApiProperty({ type: 'integer' })
  allowed!: number;
  @ApiProperty({ type: 'integer' })
  denied!: number;
  @ApiPropertyOptional({ type: [ReportHourResponse] })
  hourly?: ReportHourResponse[];
  @ApiPropertyOptional({
    type: [ReportNodeResponse],
    description: 'The nodes whose decisions the window counts: every replica that recorded one.',
  })
  nodes?: ReportNodeResponse[];
  @ApiProperty({ type: [ReportDestinationResponse] })
  destinations!: ReportDestinationResponse[];
}

export class ReportChainResponse {
  @ApiProperty({ example: 'sha256' })
  algorithm!: string;
  @ApiProperty({ description: 'Hash of the newest entry of the egress decision chain.' })
  head_hash!: string;
  @ApiProperty({ type: 'integer' })
  length!: number;
  @ApiProperty()
  verified!: boolean;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'The first entry that does not link, when one does not.',
  })
  broken_at?: number;
}

export class ReportSignatureResponse {
  @ApiProperty({ example: 'Ed25519' })
  alg!: string;
  @ApiProperty({ description: 'Key id of the report key (GET /v1/admin/privacy-report/public-key).' })
  kid!: string;
  @ApiProperty({
    description: 'base64url signature over the canonical JSON of the report without `signature`.',
  })
  value!: string;
}

export class PrivacyReportResponse {
  @ApiProperty({ type: 'integer', example: 2 })
  report_version!: number;
  @ApiPropertyOptional({ example: 'prr_000042' })
  report_id?: string;
  @ApiPropertyOptional({ type: 'integer' })
  sequence?: number;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'SHA-256 hex of the previous report.' })
  previous_report_hash?: string | null;
  @ApiProperty({ format: 'date-time' })
  generated_at!: string;
  @ApiProperty({ type: ReportWindowResponse })
  window!: ReportWindowResponse;
  @ApiProperty({ type: ReportApplianceResponse })
  appliance!: ReportApplianceResponse;
  @ApiProperty({ type: ReportLicenseResponse })
  license!: ReportLicenseResponse;
  @ApiPropertyOptional({
    type: ReportStoreResponse,
    description: 'Where the state is kept; absent from reports kept before it was added.',
  })
  store?: ReportStoreResponse;
  @ApiPropertyOptional({
    type: TlsSummaryResponse,
    description:
      'How the API is served (TLS mode and certificate); absent from reports kept before it was added.',
  })
  tls?: TlsSummaryResponse;
  @ApiProperty({
    type: 'object',
    description: 'What the appliance sends home: nothing.',
    properties: {
      phone_home: { type: 'boolean', enum: [false] },
      update_check: { type: 'boolean', enum: [false] },
      crash_upload: { type: 'boolean', enum: [false] },
    },
    required: ['phone_home', 'update_check', 'crash_upload'],
    additionalProperties: { type: 'boolean' },
  })
  telemetry!: Record<string, boolean>;
  @ApiProperty({ type: ReportPolicyResponse })
  policy!: ReportPolicyResponse;
  @ApiProperty({ type: ReportEgressResponse })
  egress_24h!: ReportEgressResponse;
  @ApiProperty({ description: 'True only when no rule and no allowed destination reaches a public address.' })
  cloud_free!: boolean;
  @ApiProperty({ type: [String], description: 'Why cloud_free is false, one finding each.' })
  cloud_free_findings!: string[];
  @ApiProperty({ type: ReportChainResponse })
  chain!: ReportChainResponse;
  @ApiProperty({ type: ReportSignatureResponse })
  signature!: ReportSignatureResponse;
}

export class ReportPublicKeyResponse {
  @ApiProperty({ description: 'The Ed25519 public key (SPKI PEM) that signs privacy reports.' })
  public_key_pem!: string;
  @ApiProperty({ description: 'First 16 hex characters of the SHA-256 of the key (SPKI DER).' })
  kid!: string;
}

export class PrivacyReportSummaryResponse {
  @ApiProperty({ example: 'prr_000042' })
  id!: string;
  @ApiProperty({ format: 'date-time' })
  generated_at!: string;
  @ApiProperty({ description: 'SHA-256 hex of the report as served.' })
  sha256!: string;
  @ApiProperty({ type: 'string', nullable: true })
  previous_report_hash!: string | null;
}

export class PrivacyReportListResponse {
  @ApiProperty({ type: [PrivacyReportSummaryResponse] })
  reports!: PrivacyReportSummaryResponse[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last.',
  })
  next_cursor!: string | null;
}

export function toPublicKeyResponse(key: { publicKeyPem: string; kid: string }): ReportPublicKeyResponse {
  return { public_key_pem: key.publicKeyPem, kid: key.kid };
}

export function toPrivacyReportSummary(record: PrivacyReportRecord): PrivacyReportSummaryResponse {
  return {
    id: record.id,
    generated_at: record.generatedAt,
    sha256: record.sha256,
    previous_report_hash: record.previousReportHash,
  };
}
