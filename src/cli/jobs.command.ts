import { Command } from 'commander';
import { readJsonObject, wholeNumber } from './client/arguments';
import { connect } from './client/connection';
import { CliFailure, ExitCode } from './client/exit-codes';
import { type FormatOptions, printResult, withFormat } from './client/output';
import { withProgress } from './client/progress';
import type { DecisionService } from './client/sdk';

interface SubmitOptions extends FormatOptions {
  readonly callbackUrl?: string;
  readonly wait?: boolean;
  readonly timeout: number;
}

interface WaitOptions extends FormatOptions {
  readonly timeout: number;
}

/** Polls until the job is finished; a failed job exits 1, one still running when the time is up exits 75. */
async function waitFor(client: DecisionService, jobId: string, timeoutSeconds: number): Promise<unknown> {
  const job = await withProgress(
    `waiting for ${jobId}`,
    client.jobs.wait(jobId, { waitTimeout: timeoutSeconds * 1000 }),
  );
  return job;
}

function failIfFailed(job: unknown): void {
  const status = (job as { status?: unknown }).status;
  if (status === 'failed' || status === 'cancelled')
    throw new CliFailure(`the job ${String(status)}`, ExitCode.failure);
}

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('submit asynchronous simulation jobs and follow them');
  withFormat(
    jobs
      .command('submit')
      .description('submit a job; --wait follows it to the end')
      .argument('<file>', 'the job request (the simulation request) as JSON (- reads standard input)')
      .option('--callback-url <url>', 'where the signed job.completed webhook goes')
      .option('--wait', 'wait for the job and print it finished')
      .option('--timeout <seconds>', 'with --wait: stop waiting after this long (exit 75)', wholeNumber, 600),
  ).action(async (file: string, options: SubmitOptions) => {
    const request = readJsonObject(file);
    const { client } = await connect();
    const submitted = await client.jobs.create({
      request,
      ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
    } as Parameters<typeof client.jobs.create>[0]);
    if (!options.wait) {
      printResult(options.format, submitted);
      return;
    }
    process.stderr.write(`decisionctl: submitted ${String(submitted.job_id)}\n`);
    const job = await waitFor(client, String(submitted.job_id), options.timeout);
    printResult(options.format, job);
    failIfFailed(job);
  });
  withFormat(
    jobs.command('get').description("a job's state and result").argument('<job_id>', 'the job'),
  ).action(async (jobId: string, options: FormatOptions) => {
    const { client } = await connect();
    printResult(options.format, await client.jobs.get(jobId));
  });
  withFormat(
    jobs
      .command('wait')
      .description('wait until the job has succeeded, failed or been cancelled')
      .argument('<job_id>', 'the job')
      .option('--timeout <seconds>', 'stop waiting after this long (exit 75)', wholeNumber, 600),
  ).action(async (jobId: string, options: WaitOptions) => {
    const { client } = await connect();
    const job = await waitFor(client, jobId, options.timeout);
    printResult(options.format, job);
    failIfFailed(job);
  });
}
