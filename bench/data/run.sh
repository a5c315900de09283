#!/usr/bin/env bash
# Builds the daemon and runs bench/data/run.ts (see its header); writes its section of docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
command -v sqlite3 >/dev/null || { echo "bench/data needs the sqlite3 shell: apt-get install -y sqlite3" >&2; exit 1; }
npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench-data --rootDir . --module commonjs --moduleResolution bundler --target es2022 \
  --types node --skipLibCheck --strict bench/data/run.ts
exec node .tmp/bench-data/bench/data/run.js
