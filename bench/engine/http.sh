#!/usr/bin/env bash
# Builds the daemon and runs bench/engine/http.ts (see its header); appends its table to docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench --rootDir bench --module commonjs --moduleResolution bundler --target es2022 \
  --types node --skipLibCheck --strict bench/engine/http.ts
exec node .tmp/bench/engine/http.js
