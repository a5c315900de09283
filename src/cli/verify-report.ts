import '../common/runtime/require-supported-node';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { verifyReportText } from '../modules/privacy/report-signature';

/** Verifies a saved privacy report offline (docs/privacy-report.md); exit 0 intact, 1 not verified, 2 unreadable. */
function main(argv: readonly string[]): number {
  const program = new Command()
    .name('verify-report')
    .description('Verify a saved privacy report against the appliance report key, offline.')
    .requiredOption(
      '--public-key <file>',
      'the report public key (PEM), from GET /v1/admin/privacy-report/public-key',
    )
    .option('--allow-reformatted', 'accept a re-formatted file whose signed content is intact', false)
    .argument('<report>', 'the saved response body of GET /v1/admin/privacy-report')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  try {
    program.parse(argv, { from: 'user' });
  } catch {
    return 2;
  }
  const options = program.opts<{ publicKey: string; allowReformatted: boolean }>();
  const [reportFile] = program.args;
  let publicKeyPem: string;
  let text: string;
  try {
    publicKeyPem = readPublicKey(readFileSync(options.publicKey, 'utf8'));
    text = readFileSync(reportFile, 'utf8');
  } catch (error) {
    process.stderr.write(`verify-report: ${(error as Error).message}\n`);
    return 2;
  }
  const result = verifyReportText(text, publicKeyPem, { allowReformatted: options.allowReformatted });
  if (!result.ok) {
    process.stderr.write(`FAILED: ${result.reason}\n`);
    return 1;
  }
  process.stdout.write(`OK: ${result.reason}\n`);
  return 0;
}

/** Accepts the PEM itself or the saved JSON answer of the public-key endpoint ({public_key_pem, kid}). */
function readPublicKey(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return text;
  const parsed = JSON.parse(trimmed) as { public_key_pem?: unknown };
  if (typeof parsed.public_key_pem !== 'string')
    throw new Error('the key file is JSON without public_key_pem');
  return parsed.public_key_pem;
}

process.exitCode = main(process.argv.slice(2));
