#!/usr/bin/env bash
# The fitting math over 1,000,000 values; see bench/fit/run.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc --ignoreConfig --outDir .tmp/bench-fit --rootDir . --module commonjs --moduleResolution bundler --target es2022 \
  --types node --skipLibCheck --strict bench/fit/run.ts
exec node_modules/.bin/node .tmp/bench-fit/bench/fit/run.js "$@"
