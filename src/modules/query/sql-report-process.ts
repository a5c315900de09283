import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

/** One report for a report process: everything it needs, already decided by the daemon. */
export interface ReportRequest {
  readonly op: 'report';
  /** Each dataset file is attached read-only under the catalog name beside it. */
  readonly files: readonly { readonly path: string; readonly schema: string }[];
  /** Temp views that make the datasets visible under their names. */
  readonly views: readonly string[];
  /** The names those views carry: the only tables the statement may name (besides its own CTEs). */
  readonly tableNames: readonly string[];
  readonly sql: string;
  readonly maxRows: number;
  readonly maxBytes: number;
}

/** What a report process is started with (its command line). */
export interface ReportProcessSettings {
  readonly memoryMb: number;
  readonly threads: number;
  readonly spillDir: string;
}

export type ReportReply =
  | { readonly op: 'ready' }
  | { readonly op: 'refused'; readonly phase: 'parse'; readonly message: string }
  | { readonly op: 'not_allowed'; readonly reason: string }
  | { readonly op: 'failed'; readonly message: string }
  | { readonly op: 'too_large'; readonly rows: number }
  | {
      readonly op: 'rows';
      readonly columns: string[];
      readonly rows: Record<string, unknown>[];
      readonly truncated: boolean;
    };

/** The deepest expression DuckDB's parser accepts in a report (its own default, 1000, can overflow the stack). */
export const MAX_EXPRESSION_DEPTH = 64;

/** The process title report processes carry, so an operator can tell them apart in `ps`. */
export const REPORT_PROCESS_TITLE = 'decisiond-sql-report';

/**
 * The compiled entry file. The daemon runs from dist/, beside it; under ts-jest (src/) the built one is used, so
 * tests of reports need `npm run build` first.
 */
export function reportWorkerEntry(): string {
  const beside = join(__dirname, 'sql-report-worker.js');
  if (existsSync(beside)) return beside;
  const built = join(APP_ROOT, 'dist', 'modules', 'query', 'sql-report-worker.js');
  if (!existsSync(built))
    throw new Error(`The SQL report entry file ${built} is missing: build the daemon first.`);
  return built;
}

/**
 * Starts a report process: a separate Node process with its own heap and its own DuckDB threads, so a report can
 * take neither the daemon's threads nor its memory, and killing it stops its CPU work.
 */
export function spawnReportProcess(maxHeapMb: number, settings: ReportProcessSettings): ChildProcess {
  return spawn(
    process.execPath,
    [`--max-old-space-size=${maxHeapMb}`, reportWorkerEntry(), JSON.stringify(settings)],
    { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} },
  );
}
