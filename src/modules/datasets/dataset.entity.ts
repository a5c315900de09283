import { EntitySchema } from '@mikro-orm/core';

/** One immutable dataset version in the catalogue; its rows live in `fileName` under the datasets directory. */
export interface DatasetRecord {
  id: string;
  orgId: string;
  datasetName: string;
  version: number;
  visibility: string;
  connectionId: string | null;
  connectionType: string;
  source: string;
  fileName: string;
  rowCount: number;
  columnCount: number;
  /** JSON: the column profiles and query hints computed at ingest. */
  schemaJson: string;
  formulasJson: string;
  createdBy: string | null;
  /** The Idempotency-Key operation that connected it (unique per organization), so a retry finds it. */
  idempotencyId?: string | null;
  /** RFC 3339; also the snapshot time that natural-language date words are relative to. */
  ingestedAt: string;
  updatedAt: string;
}

export const DatasetSchema = new EntitySchema<DatasetRecord>({
  name: 'Dataset',
  tableName: 'datasets',
  properties: {
    id: { type: 'string', primary: true },
    orgId: { type: 'string', fieldName: 'org_id' },
    datasetName: { type: 'string', fieldName: 'dataset_name' },
    version: { type: 'integer' },
    visibility: { type: 'string' },
    connectionId: { type: 'string', fieldName: 'connection_id', nullable: true },
    connectionType: { type: 'string', fieldName: 'connection_type' },
    source: { type: 'text' },
    fileName: { type: 'string', fieldName: 'file_name' },
    rowCount: { type: 'integer', fieldName: 'row_count' },
    columnCount: { type: 'integer', fieldName: 'column_count' },
    schemaJson: { type: 'text', fieldName: 'schema_json' },
    formulasJson: { type: 'text', fieldName: 'formulas_json' },
    createdBy: { type: 'string', fieldName: 'created_by', nullable: true },
    idempotencyId: { type: 'string', fieldName: 'idempotency_id', nullable: true },
    ingestedAt: { type: 'string', fieldName: 'ingested_at' },
    updatedAt: { type: 'string', fieldName: 'updated_at' },
  },
});
