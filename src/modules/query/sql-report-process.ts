import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROOT } from '../../common/config';

export interface ReportRequest {
  readonly op: 'report';
  readonly files: readonly { readonly path: string; readonly schema: string }[];
  readonly views: readonly string[];
  readonly tableNames: readonly string[];
  readonly sql: string;
  readonly maxRows: number;
  readonly maxBytes: number;
}

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

export const REPORT_PROCESS_TITLE = 'decisiond-sql-report';

/** Under ts-jest (src/) the built entry is used, so tests of reports need `npm run build` first. */
export function reportWorkerEntry(): string {
  const beside = join(__dirname, 'sql-report-worker.js');
  if (existsSync(beside)) return beside;
  const built = join(APP_ROOT, 'dist', 'modules', 'query', 'sql-report-worker.js');
  if (!existsSync(built))
    throw new Error(`The SQL report entry file ${built} is missing: build the daemon first.`);
  return built;
}

/** A process of its own, so a report takes neither the daemon's threads nor its memory, and can be killed. */
export function spawnReportProcess(maxHeapMb: number, settings: ReportProcessSettings): ChildProcess {
  return spawn(
    process.execPath,
    [`--max-old-space-size=${maxHeapMb}`, reportWorkerEntry(), JSON.stringify(settings)],
    { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} },
  );
}
