import { basename } from 'node:path';
import { UNSUPPORTED_RUNTIME_EXIT_CODE, unsupportedRuntimeReason } from './node-runtime';

// Imported first by every entry point, before any dependency loads: on an older runtime a dependency may fail in
// ways that hide the actual cause.
const reason = unsupportedRuntimeReason(process.version);
if (reason !== null) {
  process.stderr.write(`${basename(process.argv[1] ?? 'decision-service', '.js')}: ${reason}\n`);
  process.exit(UNSUPPORTED_RUNTIME_EXIT_CODE);
}
