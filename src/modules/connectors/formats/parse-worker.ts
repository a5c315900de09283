import { parentPort, workerData } from 'node:worker_threads';
import { ConnectorError } from '../connector-error';
import { describeFile, readFileBatches } from './index';
import { BATCHES_AHEAD, ParseJob, ParseReply } from './parse-thread';
import { parquetDecodeBudgetMs, ParquetInfo } from './parquet';
import { CollisionLog, isTextTable } from './records';

/** The body of a parse thread (started by parse-thread.ts): runs one job and reports to the parent. */
async function runJob(
  job: ParseJob,
  post: (reply: ParseReply, transfer?: ArrayBuffer[]) => void,
): Promise<void> {
  const options = {
    ...job.options,
    onParquetFooter: (footer: ParquetInfo) =>
      post({ type: 'budget', budgetMs: parquetDecodeBudgetMs(footer.metadata) }),
  };
  if (job.op === 'describe') {
    post({ type: 'described', description: await describeFile(job.source, options, job.sampleSize) });
    return;
  }
  let credit = BATCHES_AHEAD;
  let wake: (() => void) | undefined;
  parentPort?.on('message', () => {
    credit++;
    wake?.();
  });
  const collisions = new CollisionLog();
  for await (const records of readFileBatches(job.source, options, job.batchSize, collisions)) {
    while (credit === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    credit--;
    post({ type: 'batch', records }, isTextTable(records) ? [records.ends.buffer] : undefined);
  }
  post({ type: 'end', collisions: collisions.keys });
}

const port = parentPort;
if (port) {
  const post = (reply: ParseReply, transfer?: ArrayBuffer[]): void => port.postMessage(reply, transfer);
  runJob((workerData as { job: ParseJob }).job, post).catch((error: unknown) => {
    const failure =
      error instanceof ConnectorError
        ? error
        : new ConnectorError(
            'driver_error',
            `The file parser failed: ${(error as Error)?.message ?? String(error)}`,
          );
    post({ type: 'failed', errorType: failure.errorType, message: failure.message });
  });
}
