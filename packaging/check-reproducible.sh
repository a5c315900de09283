#!/usr/bin/env bash
# packaging/check-reproducible.sh [COMMIT]: builds the package of COMMIT (default HEAD) twice, each time in a fresh
# clone at its own path (so no build path, leftover or uncommitted change can hide), and checks that the two .deb
# files are byte-identical. On a difference it shows the first one (packaging/first-difference.sh) and fails.
# Release procedure: run it on the release commit and publish the .deb's SHA-256 it prints (docs/operations.md).
#   KEEP_REPRO_DIR=1   keep the scratch directory (both trees and packages) for inspection
#   PACKAGE_XZ_LEVEL   passed on to both builds (default 6, as a release)
# Costs two full builds (minutes of CPU each): run for releases, not on every CI pass.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
COMMIT=$(git rev-parse --verify "${1:-HEAD}^{commit}")
MODULES=$(realpath node_modules)
[ -d "$MODULES" ] || { echo "check-reproducible: node_modules is missing: run npm ci" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/decision-repro.XXXXXX")
if [ "${KEEP_REPRO_DIR:-0}" = 1 ]; then
  echo "check-reproducible: keeping $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi

for side in a b; do
  tree="$WORK/tree-$side"
  git clone --quiet --shared --no-checkout "$ROOT" "$tree"
  git -C "$tree" checkout --quiet --detach "$COMMIT"
  # The installed dependencies are an input like the lock that pins them; they are shared, never rebuilt.
  ln -s "$MODULES" "$tree/node_modules"
  echo "check-reproducible: build $side of $COMMIT in $tree"
  (cd "$tree" && env -u SOURCE_DATE_EPOCH -u SOURCE_COMMIT PACKAGE_OUT_DIR="$WORK/out-$side" bash packaging/build-deb.sh)
done

a=$(find "$WORK/out-a" -name '*_amd64.deb')
b=$(find "$WORK/out-b" -name '*_amd64.deb')
if cmp -s "$a" "$b"; then
  echo "check-reproducible: reproducible: $(basename "$a") sha256 $(sha256sum "$a" | cut -d' ' -f1)"
  exit 0
fi
echo "check-reproducible: NOT reproducible: the two builds of $COMMIT differ" >&2
bash packaging/first-difference.sh "$a" "$b" >&2 || true
exit 1
