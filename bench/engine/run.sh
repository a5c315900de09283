#!/usr/bin/env bash
# Engine benchmark: `simulate` one-shot against a plain C++ floor loop (floor.cpp) and, when python3
# has numpy, a vectorised numpy version. Scenario: RUNS runs x 10 uniform variables v0..v9,
# model v0*v1 - v2 + v3*v4 - v5 + v6*v7 - v8 + v9. Prints a markdown table.
#
#   bench/engine/run.sh              # RUNS=1000000 REPS=5
#   RUNS=200000 REPS=9 bench/engine/run.sh
#
# Wall time is the whole process (start, JSON in/out, exit) as a caller sees it; compute is the
# program's own measurement of its work (engine: compute_ms; floor and numpy: the same span).
# Repetitions are interleaved (engine, floor, numpy, engine, ...) so background load hits all alike.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-1000000}
REPS=${REPS:-5}
SEED=${SEED:-42}
OUT=engine_build/bench
mkdir -p "$OUT"

make -s -C native -j2 all
g++ -std=c++17 -O2 -ffp-contract=off -Wall -Wextra -Werror -o "$OUT/floor" bench/engine/floor.cpp

vars=""
for i in $(seq 0 9); do vars+="${vars:+,}\"v$i\":{\"low\":0,\"high\":1}"; done
printf '{"runs":%s,"seed":%s,"scenario":{"variables":{%s},"objective":"maximize_net_value","model":"v0*v1 - v2 + v3*v4 - v5 + v6*v7 - v8 + v9"}}\n' \
  "$RUNS" "$SEED" "$vars" > "$OUT/request.json"

have_numpy=0
python3 -c 'import numpy' 2>/dev/null && have_numpy=1

now_ns() { date +%s%N; }
# run_once NAME CMD...: appends "wall_ms compute_ms" to $OUT/NAME.times
run_once() {
  local name=$1; shift
  local t0 t1 out
  t0=$(now_ns)
  out=$("$@")
  t1=$(now_ns)
  local compute
  compute=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["compute_ms"])')
  echo "$(( (t1 - t0) / 1000 )) $compute" >> "$OUT/$name.times"
  printf '%s' "$out" > "$OUT/$name.last.json"
}
engine() { ./engine_build/simulate < "$OUT/request.json"; }
floor_() { "./$OUT/floor" "$RUNS" "$SEED"; }
numpy_() { python3 bench/engine/numpy_floor.py "$RUNS" "$SEED"; }

rm -f "$OUT"/*.times
engine > /dev/null; floor_ > /dev/null  # warm the page cache
for _ in $(seq 1 "$REPS"); do
  run_once engine engine
  run_once floor floor_
  [ "$have_numpy" = 1 ] && run_once numpy numpy_
done

# Peak resident memory of one engine run.
if [ -x /usr/bin/time ]; then
  rss_kb=$( { /usr/bin/time -v ./engine_build/simulate < "$OUT/request.json" > /dev/null; } 2>&1 |
            awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}')
else
  rss_kb=$(./engine_build/simulate --report-memory < "$OUT/request.json" 2>&1 >/dev/null | awk '{print $2}')
fi

python3 - "$OUT" "$RUNS" "$REPS" "$have_numpy" "$rss_kb" <<'PY'
import json, statistics, sys
out, runs, reps, have_numpy, rss_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
def load(name):
    rows = [tuple(map(float, l.split())) for l in open(f"{out}/{name}.times")]
    wall = [r[0] / 1000.0 for r in rows]
    comp = [r[1] for r in rows]
    return statistics.median(wall), min(wall), statistics.median(comp), min(comp)
names = [("engine", "`simulate` one-shot"), ("floor", "C++ floor loop (floor.cpp)")]
if have_numpy:
    names.append(("numpy", "numpy, vectorised"))
res = {n: load(n) for n, _ in names}
e = res["engine"]
print(f"Engine benchmark: {runs:,} runs x 10 uniform variables, {reps} interleaved repetitions (median / best).\n")
print("| program | wall ms (median / best) | compute ms (median / best) | engine speed vs this (median wall / compute) |")
print("|---|---|---|---|")
for n, label in names:
    r = res[n]
    ratio = "-" if n == "engine" else f"{r[0] / e[0]:.2f}x / {r[2] / e[2]:.2f}x"
    print(f"| {label} | {r[0]:.1f} / {r[1]:.1f} | {r[2]:.1f} / {r[3]:.1f} | {ratio} |")
print()
f = res["floor"]
print(f"- engine / floor (median wall): {e[0] / f[0]:.2f} (goal <= 1.5)")
if have_numpy:
    nres = res["numpy"]
    print(f"- numpy / engine (median wall): {nres[0] / e[0]:.1f}x, compute only: {nres[2] / e[2]:.1f}x (goal >= 2.5)")
else:
    print("- numpy: not available to python3 here (python3 -c 'import numpy' fails); comparison skipped")
print(f"- engine peak RSS: {int(rss_kb) / 1024:.1f} MiB (budget 20 MiB + 16 B x runs x actions = "
      f"{20 + 16 * runs * 2 / 1048576:.1f} MiB)")
eng = json.load(open(f"{out}/engine.last.json"))["actions"][0]
flo = json.load(open(f"{out}/floor.last.json"))
same = all(eng[k] == flo[k] for k in ("p5", "p50", "p95"))
print(f"- engine and floor percentiles identical: {'yes' if same else 'NO'}; means {eng['mean']:.15g} / {flo['mean']:.15g}")
PY
