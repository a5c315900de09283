#!/usr/bin/env bash
# Runs the Python SDK's tests with Debian's python3 and prints the counts: the unit tests (loopback stub servers),
# then the e2e suite against the built daemon (`npm run -s build` first; it boots one daemon for the run).
#   PYTHON=/path/to/python3   another interpreter (3.9 or newer)
#   bash sdk-python/scripts/test.sh unit|e2e   one suite only
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "python sdk: $PYTHON is missing (apt-get install python3)" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))' ||
  { echo "python sdk: $("$PYTHON" -V) is older than 3.9" >&2; exit 1; }

status=0
for suite in "${@:-unit e2e}"; do
  for name in $suite; do
    started=$SECONDS
    if output=$(PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m unittest discover -s "tests/$name" -t . 2>&1); then
      verdict=passed
    else
      verdict=FAILED status=1
      printf '%s\n' "$output"
    fi
    ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' <<<"$output")
    skipped=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$output")
    echo "python sdk: $name: ${ran:-0} tests ${verdict}, ${skipped:-0} skipped, $((SECONDS - started)) s ($("$PYTHON" -V))"
  done
done
exit $status
