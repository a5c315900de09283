#!/usr/bin/env bash
# Builds the Python SDK's wheel into OUT_DIR, offline (Debian's python3-setuptools and python3-wheel, no index,
# no build isolation), from a scratch copy so no build/ or egg-info lands in the checkout; prints the wheel's path.
# SOURCE_DATE_EPOCH, when set, fixes the timestamps inside the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:?usage: sdk-python/scripts/build-wheel.sh OUT_DIR}
# Debian's python3 carries the build backend (python3-setuptools, python3-wheel); PYTHON overrides it.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/decision-pysdk.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cp -r pyproject.toml README.md decision_service "$WORK/"
find "$WORK" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$OUT_DIR"
"$PYTHON" -m pip wheel --quiet --no-deps --no-index --no-build-isolation --disable-pip-version-check \
  --wheel-dir "$WORK/dist" "$WORK" >&2
wheel=$(ls "$WORK"/dist/*.whl)
cp "$wheel" "$OUT_DIR/"
echo "$(realpath "$OUT_DIR")/$(basename "$wheel")"
