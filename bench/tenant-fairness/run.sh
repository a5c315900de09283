#!/usr/bin/env bash
# Builds the daemon, compiles bench/tenant-fairness/run.ts and runs it (see its header); updates docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench-tenant-fairness --rootDir . --module commonjs --moduleResolution bundler \
  --target ES2022 --types node --skipLibCheck --strict bench/tenant-fairness/run.ts
exec node .tmp/bench-tenant-fairness/bench/tenant-fairness/run.js "$@"
