#!/usr/bin/env bash
# Packs the TypeScript SDK (sdk/) into OUT_DIR/decision-service-sdk-<version>.tgz with `npm pack`, from a fresh
# compile in a scratch copy (so nothing stale in sdk/dist ships), and prints the tarball's path.
# Zero dependencies: `npm install --offline <tarball>` installs it on an air-gapped machine.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:?usage: packaging/pack-sdk.sh OUT_DIR}
PATH="$PWD/node_modules/.bin:$PATH"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/decision-sdk.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cp -r sdk/src sdk/package.json sdk/README.md sdk/tsconfig.json sdk/tsconfig.build.json "$WORK/"
tsc -p "$WORK/tsconfig.build.json" --typeRoots "$PWD/node_modules/@types" >&2
mkdir -p "$OUT_DIR"
name=$(cd "$WORK" && npm pack --silent --offline --pack-destination "$(realpath "$OUT_DIR")" | tail -n 1)
echo "$(realpath "$OUT_DIR")/$name"
