#!/usr/bin/env bash
# Builds the daemon, compiles the load generator and compares GET /v1/me (API key) with GET /v1/health.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build
npx tsc --outDir .tmp/bench-http-auth --rootDir . --module nodenext --moduleResolution nodenext --target ES2022 \
  --types node --skipLibCheck --strict --ignoreConfig bench/http-auth/run.ts
exec node .tmp/bench-http-auth/bench/http-auth/run.js "$@"
