#!/usr/bin/env bash
# Builds what is stale: native binaries through make, TypeScript through incremental tsc.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f native/Makefile ]; then
  make -s -C native -j2 all
fi
make -s -C native/sd-notify
npx tsc -p tsconfig.build.json
