import '../common/runtime/require-supported-node';
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { CONTRACT_FILE } from '../modules/contract/contract-file';
import { buildOpenApiDocument, serializeDocument } from './openapi-document/openapi-document';

/** `npm run openapi` rewrites contract/openapi.json; `--check` fails when the committed file is stale. */
async function run(argv: readonly string[]): Promise<number> {
  const expected = serializeDocument(await buildOpenApiDocument());
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(CONTRACT_FILE, 'utf8');
    } catch {
      // A missing file is just stale.
    }
    if (current === expected) return 0;
    process.stderr.write('contract/openapi.json is stale: run `npm run openapi` and commit the result\n');
    return 1;
  }
  writeFileSync(CONTRACT_FILE, expected);
  process.stdout.write(`wrote ${CONTRACT_FILE}\n`);
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
