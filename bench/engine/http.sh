#!/usr/bin/env bash
# Builds the daemon and runs bench/engine/http.ts (see its header); appends its table to docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build
npx tsc --outDir .tmp/bench-http --rootDir . --module nodenext --moduleResolution nodenext --target es2022 \
  --types node --skipLibCheck --strict --ignoreConfig bench/engine/http.ts bench/engine/forwarder.ts
exec node .tmp/bench-http/bench/engine/http.js
