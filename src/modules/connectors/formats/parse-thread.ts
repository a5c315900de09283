import { Worker } from 'node:worker_threads';
import { compiledEntry } from '../../../common/runtime/compiled-entry';
import { ConnectorError, ConnectorErrorType } from '../connector-error';
import { DecodeBudget } from './decode-budget';
import type { FileDescription, FileSource, FormatOptions } from './index';
import { ParseLimits } from './parse-limits';
import { ParseSlots } from './parse-slots';
import { CollisionLog, isTextTable, ParsedRecord, RowBatch } from './records';

export interface ParseJob {
  readonly op: 'describe' | 'read';
  readonly source: FileSource;
  readonly options: FormatOptions;
  readonly batchSize: number;
  readonly sampleSize: number;
}

export type ParseReply =
  | { readonly type: 'batch'; readonly records: RowBatch }
  | { readonly type: 'end'; readonly collisions: readonly string[] }
  | { readonly type: 'described'; readonly description: FileDescription }
  | { readonly type: 'budget'; readonly budgetMs: number }
  | { readonly type: 'failed'; readonly errorType: ConnectorErrorType; readonly message: string };

export const BATCHES_AHEAD = 2;

export interface ParseRun {
  readonly limits: ParseLimits;
  /** Aborting it (a deadline) terminates the thread at once, wherever its parser is. */
  readonly signal?: AbortSignal;
}

const ENTRY = compiledEntry(__dirname, 'parse-worker');

const live = new Set<Worker>();
const slots = new ParseSlots();

export function parseThreadLoad(): { readonly running: number; readonly queued: number } {
  return { running: live.size, queued: slots.queued };
}

const slotLimitsOf = (limits: ParseLimits) => ({
  maxThreads: limits.maxThreads,
  totalMemoryMb: limits.totalMemoryMb,
  memoryMb: limits.memoryMb,
});

/** One parse on its own thread with a capped heap, so a hostile file cannot block the event loop. */
class ParseThread {
  private readonly worker: Worker;
  private readonly replies: ParseReply[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private answered = false;
  /** The thread's own CPU time: waiting for the reader is free, and load elsewhere cannot fail a sound file. */
  private readonly budget = new DecodeBudget(
    () => {
      const from = this.cpuMs();
      return async () => (await this.cpuMs()) - (await from);
    },
    (budgetMs) => {
      this.fail(
        new ConnectorError(
          'invalid_payload',
          `The file is damaged: decoding it took more than the ${budgetMs} ms its size allows, and was stopped.`,
        ),
      );
      void this.stop();
    },
  );
  private readonly onAbort = (): void => {
    const reason: unknown = this.run.signal?.reason;
    this.fail(
      reason instanceof ConnectorError
        ? reason
        : new ConnectorError('timeout', 'Parsing the file was stopped: its deadline passed.'),
    );
    void this.stop();
  };

  constructor(
    job: ParseJob,
    private readonly run: ParseRun,
  ) {
    this.worker = new Worker(ENTRY, {
      workerData: { job },
      // A small young generation keeps the thread's memory low; 16 MB (vs 8) stops waiting rows being promoted.
      resourceLimits: { maxOldGenerationSizeMb: run.limits.memoryMb, maxYoungGenerationSizeMb: 16 },
    });
    live.add(this.worker);
    this.worker.on('message', (reply: ParseReply) => {
      if (reply.type === 'failed') this.fail(new ConnectorError(reply.errorType, reply.message));
      else if (reply.type === 'budget') this.budget.set(reply.budgetMs);
      else {
        if (reply.type === 'described' || reply.type === 'end') this.answered = true;
        this.replies.push(reply);
      }
      this.signal();
    });
    this.worker.on('error', (error: Error & { code?: string }) =>
      this.fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ConnectorError(
              'invalid_payload',
              `Parsing the file needs more than ${run.limits.memoryMb} MB of memory (SERVICE_PARSE_MEMORY_MB).`,
            )
          : new ConnectorError('driver_error', `The file parser failed: ${error.message}`),
      ),
    );
    this.worker.on('exit', (code) => {
      live.delete(this.worker);
      // A finished job's thread exits by itself, possibly before the reader has taken the last reply.
      if (!this.stopped && !this.answered)
        this.fail(new ConnectorError('driver_error', `The file parser stopped (exit code ${code}).`));
    });
    if (run.signal?.aborted) this.onAbort();
    else run.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  async next(): Promise<ParseReply> {
    for (;;) {
      const reply = this.replies.shift();
      if (reply) return reply;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private async cpuMs(): Promise<number> {
    try {
      const usage = await this.worker.cpuUsage();
      return (usage.user + usage.system) / 1000;
    } catch {
      return 0;
    }
  }

  pull(): void {
    this.worker.postMessage('pull');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.budget.clear();
    this.run.signal?.removeEventListener('abort', this.onAbort);
    await this.worker.terminate();
    live.delete(this.worker);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.replies.length = 0;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function unexpected(reply: ParseReply): ConnectorError {
  return new ConnectorError('driver_error', `The file parser answered "${reply.type}" out of turn.`);
}

export async function describeFileInThread(
  source: FileSource,
  options: FormatOptions,
  run: ParseRun,
  sampleSize = 5,
): Promise<FileDescription> {
  const release = await slots.acquire(slotLimitsOf(run.limits), run.signal);
  try {
    const thread = new ParseThread(
      { op: 'describe', source, options: { ...options, limits: run.limits }, batchSize: 1000, sampleSize },
      run,
    );
    try {
      const reply = await thread.next();
      if (reply.type !== 'described') throw unexpected(reply);
      return reply.description;
    } finally {
      await thread.stop();
    }
  } finally {
    release();
  }
}

export async function* readFileRecordsInThread(
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
  run: ParseRun,
): AsyncGenerator<ParsedRecord[]> {
  for await (const batch of readFileBatchesInThread(
    source,
    { ...options, textTables: false },
    batchSize,
    collisions,
    run,
  )) {
    if (!isTextTable(batch)) yield batch;
  }
}

export async function* readFileBatchesInThread(
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
  run: ParseRun,
): AsyncGenerator<RowBatch> {
  const release = await slots.acquire(slotLimitsOf(run.limits), run.signal);
  try {
    const thread = new ParseThread(
      { op: 'read', source, options: { ...options, limits: run.limits }, batchSize, sampleSize: 0 },
      run,
    );
    try {
      for (;;) {
        const reply = await thread.next();
        if (reply.type === 'end') {
          collisions.add(reply.collisions);
          return;
        }
        if (reply.type !== 'batch') throw unexpected(reply);
        thread.pull();
        yield reply.records;
      }
    } finally {
      await thread.stop();
    }
  } finally {
    release();
  }
}
