#!/usr/bin/env bash
# Builds the daemon, compiles bench/sql-report-isolation/run.ts and runs it (see its header); updates docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench-sql-report-isolation --rootDir . --module commonjs --moduleResolution bundler \
  --target ES2022 --types node --skipLibCheck --strict bench/sql-report-isolation/run.ts
exec node .tmp/bench-sql-report-isolation/bench/sql-report-isolation/run.js "$@"
