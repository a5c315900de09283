#!/usr/bin/env bash
# Builds the daemon, compiles bench/soak/run.ts and runs it (see its header): 60 s per hot route with autocannon,
# then a mixed soak of SOAK_MINUTES (default 30). Prints a section ready for docs/BENCHMARKS.md. Not in CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
[ "${SKIP_BUILD:-}" = 1 ] || npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench-soak --rootDir . --module commonjs --moduleResolution bundler --target ES2022 \
  --types node --skipLibCheck --strict --esModuleInterop bench/soak/run.ts bench/soak/loop-probe.ts
exec node .tmp/bench-soak/bench/soak/run.js "$@"
