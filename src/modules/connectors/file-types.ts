export const FILE_TYPES = ['csv', 'tsv', 'json', 'excel', 'parquet'] as const;
export type FileType = (typeof FILE_TYPES)[number];

const EXTENSION_TYPES: Readonly<Record<string, FileType>> = {
  csv: 'csv',
  txt: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  json: 'json',
  jsonl: 'json',
  ndjson: 'json',
  xlsx: 'excel',
  xlsm: 'excel',
  xls: 'excel',
  parquet: 'parquet',
  pq: 'parquet',
};

export function inferFileType(name: string | undefined): FileType | undefined {
  const match = name === undefined ? null : /\.([A-Za-z0-9]+)$/.exec(name.split('?')[0]);
  return match ? EXTENSION_TYPES[match[1].toLowerCase()] : undefined;
}
