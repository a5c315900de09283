import { DatasetRecord } from '../../src/modules/datasets/dataset.entity';
import { DatasetsService, IngestRequest } from '../../src/modules/datasets/datasets.service';

/** Ingests rows as a private file dataset of `orgId` through the service, as a connect would. */
export function ingestRows(
  datasets: DatasetsService,
  orgId: string,
  datasetName: string,
  batches: AsyncIterable<readonly Record<string, unknown>[]>,
  overrides: Partial<IngestRequest> = {},
): Promise<DatasetRecord> {
  return datasets.ingest(
    {
      orgId,
      datasetName,
      visibility: 'private',
      connectionId: null,
      connectionType: 'file',
      source: {},
      createdBy: null,
      ...overrides,
    },
    batches,
  );
}
