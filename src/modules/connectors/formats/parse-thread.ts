import { Worker } from 'node:worker_threads';
import { compiledEntry } from '../../../common/runtime/compiled-entry';
import { ConnectorError, ConnectorErrorType } from '../connector-error';
import { DecodeBudget } from './decode-budget';
import type { FileDescription, FileSource, FormatOptions } from './index';
import { ParseLimits } from './parse-limits';
import { ParseSlots } from './parse-slots';
import { CollisionLog, isTextTable, ParsedRecord, RowBatch } from './records';

/** What the parse thread is asked to do: describe a whole file, or stream its records. */
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

/** Batches the parse thread may post before the reader asks for more: parsing runs ahead, memory stays bounded. */
export const BATCHES_AHEAD = 2;

export interface ParseRun {
  readonly limits: ParseLimits;
  /** Aborting it (a deadline) terminates the thread at once, wherever its parser is. */
  readonly signal?: AbortSignal;
}

const ENTRY = compiledEntry(__dirname, 'parse-worker');

const live = new Set<Worker>();
const slots = new ParseSlots();

/** Parse threads running now, and parses waiting for one because the appliance-wide caps are reached. */
export function parseThreadLoad(): { readonly running: number; readonly queued: number } {
  return { running: live.size, queued: slots.queued };
}

const slotLimitsOf = (limits: ParseLimits) => ({
  maxThreads: limits.maxThreads,
  totalMemoryMb: limits.totalMemoryMb,
  memoryMb: limits.memoryMb,
});

/**
 * One parse on its own thread, so a hostile file can block neither the event loop nor anything else: its heap is
 * capped (`resourceLimits`), and stopping it terminates the thread mid-parse.
 */
class ParseThread {
  private readonly worker: Worker;
  private readonly replies: ParseReply[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  /** The job's last reply ('described' or 'end') has come: the thread ending on its own then is no failure. */
  private answered = false;
  /**
   * Busy time is the thread's own CPU time: waiting for the reader to pull does not count, a decoder spinning in one
   * synchronous call does, and a machine busy with other work does not make a sound file look damaged (the
   * event loop's active time is wall-clock time and grew tenfold under load).
   */
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
      // A parse's garbage is a few chunks' strings and rows: a small young generation keeps the thread's memory low
      // (left to V8 it grew to about 50 MB on a 1M-row CSV). At 8 MB the rows waiting for the reader outlived
      // scavenges and were promoted; 16 MB took a fifth off the ingest's CPU time and no more memory.
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
      // The thread has exited: it spends nothing more.
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

/** describeFile on a parse thread, with the limits checked. */
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

/** readFileRecords on a parse thread, with the limits checked; the thread stops when the reader stops. */
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
    // Without textTables every batch is records.
    if (!isTextTable(batch)) yield batch;
  }
}

/** readFileBatches on a parse thread: CSV and TSV as text tables when `options.textTables` asks for them. */
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
