import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { STORE_LAYOUT_VERSION, STORE_META_TABLE } from './dataset-store-layout';

export interface DatasetBuildOptions {
  readonly memoryMb: number;
  readonly tempDir: string;
  /** 1 unless given: a build from appended rows gains nothing from more. */
  readonly threads?: number;
}

/** A fresh DuckDB file under its partial name for one build; a failed open leaves no partial file behind. */
export async function openBuildInstance(
  partialPath: string,
  options: DatasetBuildOptions,
): Promise<DuckDBInstance> {
  removeBuildFiles(partialPath);
  mkdirSync(options.tempDir, { recursive: true, mode: 0o700 });
  try {
    return await DuckDBInstance.create(partialPath, {
      threads: String(options.threads ?? 1),
      memory_limit: `${options.memoryMb}MB`,
      temp_directory: options.tempDir,
      preserve_insertion_order: 'true',
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
  } catch (error) {
    removeBuildFiles(partialPath);
    throw error;
  }
}

export function removeBuildFiles(partialPath: string): void {
  for (const suffix of ['', '.wal', '.tmp']) rmSync(partialPath + suffix, { force: true, recursive: true });
}

/** The layout marker every finished version carries (docs/datasets.md, "Storage"). */
export async function writeLayoutMeta(run: (sql: string) => Promise<unknown>): Promise<void> {
  await run(`create table ${STORE_META_TABLE} (key varchar, value varchar)`);
  await run(`insert into ${STORE_META_TABLE} values ('layout', '${STORE_LAYOUT_VERSION}')`);
}

/** Makes a closed build its version's file: synced, read-only, renamed. The caller syncs the directory. */
export function publishBuild(partialPath: string, finalPath: string): void {
  syncFile(partialPath);
  chmodSync(partialPath, 0o400);
  renameSync(partialPath, finalPath);
}

export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function firstRow(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS()[0];
}
