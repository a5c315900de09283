import '../common/runtime/require-supported-node';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROOT } from '../common/config';
import { renderThirdPartyNotices } from './third-party-notices';

/** `npm run licenses` rewrites licenses/THIRD-PARTY-NOTICES; `--check` fails when the committed file is stale. */
export const NOTICES_FILE = join(APP_ROOT, 'licenses', 'THIRD-PARTY-NOTICES');

function run(argv: readonly string[]): number {
  const expected = renderThirdPartyNotices(APP_ROOT);
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(NOTICES_FILE, 'utf8');
    } catch {
      // A missing file is just stale.
    }
    if (current === expected) return 0;
    process.stderr.write(
      'licenses/THIRD-PARTY-NOTICES is stale: run `npm run licenses` and commit the result\n',
    );
    return 1;
  }
  writeFileSync(NOTICES_FILE, expected);
  process.stdout.write(`wrote ${NOTICES_FILE}\n`);
  return 0;
}

process.exitCode = run(process.argv.slice(2));
