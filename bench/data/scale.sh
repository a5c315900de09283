#!/usr/bin/env bash
# Builds the daemon and runs bench/data/scale.ts (see its header): datasets at 10 million rows.
# The CSVs stay in var/bench-scale/imports/ for the next run (about 600 MB); remove the folder when done.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
command -v sqlite3 >/dev/null || { echo "bench/data needs the sqlite3 shell: apt-get install -y sqlite3" >&2; exit 1; }
npm run -s build
npx tsc --ignoreConfig --outDir .tmp/bench-scale --rootDir . --module commonjs --moduleResolution bundler --target es2022 \
  --types node --skipLibCheck --strict bench/data/scale.ts
exec node .tmp/bench-scale/bench/data/scale.js
