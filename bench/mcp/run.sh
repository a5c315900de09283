#!/usr/bin/env bash
# Builds the daemon and the runtime binary, compiles the bench and compares query_data over MCP with POST /v1/query,
# then times execute round trips on the runtime-library socket.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build
npx tsc --outDir .tmp/bench-mcp --rootDir . --module nodenext --moduleResolution nodenext --target ES2022 \
  --types node --skipLibCheck --strict --experimentalDecorators --emitDecoratorMetadata --ignoreConfig bench/mcp/run.ts
exec node .tmp/bench-mcp/bench/mcp/run.js "$@"
