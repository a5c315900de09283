import { EntitySchema } from '@mikro-orm/core';

/** A served privacy report, kept as the exact signed document; rows link by `previousReportHash`. */
export interface PrivacyReportRecord {
  sequence: number;
  id: string;
  generatedAt: string;
  /** SHA-256 hex of the report's signed bytes (what `previous_report_hash` of its successor names). */
  sha256: string;
  previousReportHash: string | null;
  /** The served body: canonical JSON with its signature. */
  document: string;
}

export const PrivacyReportSchema = new EntitySchema<PrivacyReportRecord>({
  name: 'PrivacyReport',
  tableName: 'privacy_reports',
  properties: {
    sequence: { type: 'integer', primary: true, autoincrement: false },
    id: { type: 'string', unique: true },
    generatedAt: { type: 'string', fieldName: 'generated_at' },
    sha256: { type: 'string', unique: true },
    previousReportHash: { type: 'string', fieldName: 'previous_report_hash', nullable: true },
    document: { type: 'text', lazy: true },
  },
});
