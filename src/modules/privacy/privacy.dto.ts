import { IsIn, IsOptional } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { PrivacyReportRecord } from './privacy-report.entity';
import { REPORT_FORMATS, ReportFormat } from './report-format';

export class PrivacyReportListQuery extends CursorPageQuery {}

export class ReportFormatQuery {
  /** Overrides the Accept header: `json` (the signed bytes) or `html` (the page embedding them). */
  @IsOptional()
  @IsIn(REPORT_FORMATS)
  format?: ReportFormat;
}

export function toPublicKeyResponse(key: { publicKeyPem: string; kid: string }): {
  public_key_pem: string;
  kid: string;
} {
  return { public_key_pem: key.publicKeyPem, kid: key.kid };
}

export function toPrivacyReportSummary(record: PrivacyReportRecord) {
  return {
    id: record.id,
    generated_at: record.generatedAt,
    sha256: record.sha256,
    previous_report_hash: record.previousReportHash,
  };
}
