import { EntitySchema } from '@mikro-orm/core';

/** A served privacy report, kept as the exact signed document; rows link by `previousReportHash`. */
export interface PrivacyReportRecord {
  sequence: number;
  id: string;
  generatedAt: string;
  sha256: string;
  previousReportHash: string | null;
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
