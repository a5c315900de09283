#!/usr/bin/env bash
# Seconds from `npm start` on an up-to-date tree to the first 200 from GET /v1/health, per round and the median,
# beside the same for `node dist/main.js` (the daemon's own start, without npm and the build check), taken in turn.
# Usage: bash bench/start/run.sh [ROUNDS] (default 5). One warm-up round builds what is stale and creates the data
# directory's keys; the timed rounds then start the way an operator's second `npm start` does.
set -euo pipefail
cd "$(dirname "$0")/../.."
PATH="$PWD/node_modules/.bin:$PATH"
rounds=${1:-5}
port=${BENCH_PORT:-18437}
data_dir=$(mktemp -d)
trap 'rm -rf "$data_dir"' EXIT

now_ns() { date +%s%N; }

# Runs the command in its own process group, waits for /v1/health, prints the seconds taken, then stops it.
one_round() {
  local started pid
  started=$(now_ns)
  SERVICE_DATA_DIR="$data_dir" SERVICE_PORT="$port" SERVICE_LOG_LEVEL=warn setsid "$@" >/dev/null 2>&1 &
  pid=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$port/v1/health"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$* exited before answering" >&2
      return 1
    fi
    sleep 0.02
  done
  awk -v ns=$(($(now_ns) - started)) 'BEGIN { printf "%.2f\n", ns / 1e9 }'
  kill -TERM -- "-$pid"
  wait "$pid" || true
}

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

load() { cut -d' ' -f1 /proc/loadavg; }

load_before=$(load)
one_round npm start >/dev/null
with_npm=()
direct=()
for _ in $(seq 1 "$rounds"); do
  with_npm+=("$(one_round npm start)")
  direct+=("$(one_round node dist/main.js)")
done
echo "npm start          rounds (s): ${with_npm[*]}  median: $(median "${with_npm[@]}")"
echo "node dist/main.js  rounds (s): ${direct[*]}  median: $(median "${direct[@]}")"
echo "load average (1 min): $load_before before, $(load) after"
