import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { cliFetch } from './client/transport-trust';
import { checkReportChain, ChainedReport } from '../modules/privacy/report-chain';
import { extractEmbeddedReport, extractPagePublicKey } from '../modules/privacy/report-embedding';
import { verifyReportText } from '../modules/privacy/report-signature';

interface ConnectionOptions {
  readonly url?: string;
  readonly apiKeyFile?: string;
}

interface FetchOptions extends ConnectionOptions {
  readonly format: 'json' | 'html';
  readonly out?: string;
  readonly id?: string;
  readonly all?: boolean;
}

interface ListOptions extends ConnectionOptions {
  readonly format: 'json' | 'text';
  readonly limit?: number;
}

interface VerifyOptions {
  readonly publicKey?: string;
  readonly chain?: boolean;
}

export class VerificationFailed extends Error {}

function connection(options: ConnectionOptions): { baseUrl: string; apiKey: string } {
  const apiKey = options.apiKeyFile
    ? readFileSync(options.apiKeyFile, 'utf8').trim()
    : process.env.SERVICE_API_KEY;
  if (!apiKey)
    throw new Error('no API key: set SERVICE_API_KEY or pass --api-key-file (an operator admin key)');
  const port = process.env.SERVICE_PORT ?? '8080';
  const baseUrl = (options.url ?? process.env.SERVICE_BASE_URL ?? `http://127.0.0.1:${port}`).replace(
    /\/+$/,
    '',
  );
  return { baseUrl, apiKey };
}

async function get(options: ConnectionOptions, path: string, accept: string): Promise<string> {
  const { baseUrl, apiKey } = connection(options);
  const response = await cliFetch()(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${apiKey}`, accept },
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error: { code: string; message: string } }).error.message;
    } catch {
      // not our error body: show it as it came
    }
    throw new Error(`GET ${path} answered ${response.status}: ${message}`);
  }
  return text;
}

const acceptOf = (format: 'json' | 'html'): string => (format === 'html' ? 'text/html' : 'application/json');

interface Summary {
  id: string;
  generated_at: string;
  sha256: string;
  previous_report_hash: string | null;
}

async function listAll(options: ConnectionOptions, limit?: number): Promise<Summary[]> {
  const reports: Summary[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=${Math.min(limit ?? 500, 500)}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = JSON.parse(await get(options, `/v1/admin/privacy-reports?${query}`, 'application/json')) as {
      reports: Summary[];
      next_cursor: string | null;
    };
    reports.push(...page.reports);
    cursor = limit !== undefined && reports.length >= limit ? null : page.next_cursor;
  } while (cursor !== null);
  return limit === undefined ? reports : reports.slice(0, limit);
}

async function fetchReports(options: FetchOptions): Promise<void> {
  if (options.all) {
    if (!options.out) throw new Error('--all needs --out DIR (one file per report)');
    mkdirSync(options.out, { recursive: true });
    const reports = await listAll(options);
    for (const { id } of reports) {
      const body = await get(
        options,
        `/v1/admin/privacy-reports/${id}?format=${options.format}`,
        acceptOf(options.format),
      );
      writeFileSync(join(options.out, `${id}.${options.format}`), body);
    }
    process.stderr.write(`saved ${reports.length} report(s) in ${options.out}\n`);
    return;
  }
  const path = options.id
    ? `/v1/admin/privacy-reports/${encodeURIComponent(options.id)}?format=${options.format}`
    : `/v1/admin/privacy-report?format=${options.format}`;
  const body = await get(options, path, acceptOf(options.format));
  if (options.out) writeFileSync(options.out, body);
  else process.stdout.write(body);
}

async function listReports(options: ListOptions): Promise<void> {
  const reports = await listAll(options, options.limit);
  if (options.format === 'json') {
    process.stdout.write(`${JSON.stringify({ reports })}\n`);
    return;
  }
  for (const r of reports) {
    process.stdout.write(
      `${r.id}  ${r.generated_at}  ${r.sha256}  previous ${r.previous_report_hash ?? 'none'}\n`,
    );
  }
}

function reportFiles(paths: readonly string[]): string[] {
  return paths.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => /\.(json|html?)$/i.test(name))
          .sort()
          .map((name) => join(path, name))
      : [path],
  );
}

function readPublicKey(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!text.trim().startsWith('{')) return text;
  const parsed = JSON.parse(text) as { public_key_pem?: unknown };
  if (typeof parsed.public_key_pem !== 'string') throw new Error(`${file} is JSON without public_key_pem`);
  return parsed.public_key_pem;
}

function verifyFiles(paths: readonly string[], options: VerifyOptions): void {
  const files = reportFiles(paths);
  if (files.length === 0) throw new VerificationFailed('no report file found');
  const trustedKey = options.publicKey ? readPublicKey(options.publicKey) : undefined;
  const verified: ChainedReport[] = [];
  let failures = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const isPage = /^\s*<!DOCTYPE html|<html/i.test(text.slice(0, 200));
    const json = isPage ? extractEmbeddedReport(text) : text;
    const key = trustedKey ?? (isPage ? extractPagePublicKey(text) : undefined);
    if (json === undefined || key === undefined) {
      failures++;
      process.stderr.write(
        `FAILED ${file}: ${json === undefined ? 'the page carries no signed report' : 'no public key: pass --public-key'}\n`,
      );
      continue;
    }
    const result = verifyReportText(json, key);
    if (!result.ok) {
      failures++;
      process.stderr.write(`FAILED ${file}: ${result.reason}\n`);
      continue;
    }
    const note = trustedKey
      ? ''
      : ' — key taken from the page itself: compare this kid with the one you trust';
    process.stdout.write(`OK ${file}: ${result.reason}${note}\n`);
    verified.push({ source: file, report: JSON.parse(json) as Record<string, unknown> });
  }
  if (options.chain || files.length > 1) {
    const chain = checkReportChain(verified);
    for (const problem of chain.problems) process.stderr.write(`FAILED chain: ${problem}\n`);
    if (chain.ok) process.stdout.write(`OK chain: ${chain.summary}, none missing\n`);
    else failures++;
  }
  if (failures > 0) throw new VerificationFailed(`${failures} check(s) failed`);
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('give a whole number of at least 1');
  return n;
}

function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(choices as readonly string[]).includes(value))
      throw new InvalidArgumentError(`give ${choices.join(' or ')}`);
    return value as T;
  };
}

function withConnection(command: Command): Command {
  return command
    .option('--url <url>', 'the appliance (default SERVICE_BASE_URL, else http://127.0.0.1:SERVICE_PORT)')
    .option('--api-key-file <file>', 'a file holding an operator admin API key (default: SERVICE_API_KEY)');
}

export function registerPrivacyReportCommands(program: Command): void {
  const group = program
    .command('privacy-report')
    .description('fetch, list and verify signed privacy reports');
  withConnection(
    group
      .command('fetch')
      .description('serve (and keep) a fresh report, or download a kept one (--id) or all of them (--all)')
      .option(
        '--format <format>',
        'json (the signed bytes) or html (the page)',
        oneOf(['json', 'html'] as const),
        'json',
      )
      .option('--out <file>', 'write to this file (a folder with --all) instead of standard output')
      .option('--id <id>', 'a kept report, e.g. prr_000000000042')
      .option('--all', 'every kept report, one file each, into the --out folder'),
  ).action(async (options: FetchOptions) => fetchReports(options));
  withConnection(
    group
      .command('list')
      .description('list the kept reports, newest first')
      .option('--format <format>', 'text or json', oneOf(['text', 'json'] as const), 'text')
      .option('--limit <n>', 'at most this many', positiveInteger),
  ).action(async (options: ListOptions) => listReports(options));
  group
    .command('verify')
    .description(
      'verify saved reports (JSON or HTML) offline; with several, or --chain, check none is missing',
    )
    .argument('<files...>', 'report files (.json or .html) or folders of them')
    .option(
      '--public-key <file>',
      'the report public key (PEM, or the saved public-key JSON); pages carry one',
    )
    .option('--chain', 'check the previous_report_hash sequence even for one file')
    .action((files: string[], options: VerifyOptions) => verifyFiles(files, options));
}
