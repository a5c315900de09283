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
have_time=0
[ -x /usr/bin/time ] && have_time=1
# run_once NAME STDIN CMD...: appends "wall_us compute_ms cpu_ms" to $OUT/NAME.times. cpu is the
# process's user + system time, less sensitive than wall time to other load on the machine (-1
# without /usr/bin/time).
run_once() {
  local name=$1 input=$2; shift 2
  local t0 t1 out cpu=-1
  t0=$(now_ns)
  if [ "$have_time" = 1 ]; then
    out=$(/usr/bin/time -f '%U %S' -o "$OUT/time.txt" "$@" < "$input")
  else
    out=$("$@" < "$input")
  fi
  t1=$(now_ns)
  [ "$have_time" = 1 ] && cpu=$(awk '{printf "%.0f", ($1 + $2) * 1000}' "$OUT/time.txt")
  local compute
  compute=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["compute_ms"])')
  echo "$(( (t1 - t0) / 1000 )) $compute $cpu" >> "$OUT/$name.times"
  printf '%s' "$out" > "$OUT/$name.last.json"
}

rm -f "$OUT"/*.times
./engine_build/simulate < "$OUT/request.json" > /dev/null  # warm the page cache
"./$OUT/floor" "$RUNS" "$SEED" > /dev/null
for _ in $(seq 1 "$REPS"); do
  run_once engine "$OUT/request.json" ./engine_build/simulate
  run_once floor /dev/null "./$OUT/floor" "$RUNS" "$SEED"
  if [ "$have_numpy" = 1 ]; then run_once numpy /dev/null python3 bench/engine/numpy_floor.py "$RUNS" "$SEED"; fi
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
    cpu = [r[2] for r in rows]
    return statistics.median(wall), min(wall), statistics.median(comp), min(comp), statistics.median(cpu), min(cpu)
names = [("engine", "`simulate` one-shot"), ("floor", "C++ floor loop (floor.cpp)")]
if have_numpy:
    names.append(("numpy", "numpy, vectorised"))
res = {n: load(n) for n, _ in names}
e = res["engine"]
print(f"Engine benchmark: {runs:,} runs x 10 uniform variables, {reps} interleaved repetitions (median / best).\n")
cpu_known = e[4] >= 0
print("| program | wall ms (median / best) | CPU ms, user+sys (median / best) | in-program compute ms (median / best) |")
print("|---|---|---|---|")
for n, label in names:
    r = res[n]
    cpu = f"{r[4]:.0f} / {r[5]:.0f}" if cpu_known else "n/a"
    print(f"| {label} | {r[0]:.1f} / {r[1]:.1f} | {cpu} | {r[2]:.1f} / {r[3]:.1f} |")
print()
f = res["floor"]
line = f"- engine / floor: wall {e[0] / f[0]:.2f} (best {e[1] / f[1]:.2f})"
if cpu_known:
    line += f", CPU {e[4] / f[4]:.2f} (best {e[5] / f[5]:.2f})"
print(line + "  (goal <= 1.5)")
if have_numpy:
    nres = res["numpy"]
    line = f"- numpy / engine: wall {nres[0] / e[0]:.1f}x, in-program compute {nres[2] / e[2]:.1f}x"
    if cpu_known:
        line += f", CPU {nres[4] / e[4]:.1f}x"
    print(line + "  (goal >= 2.5)")
else:
    print("- numpy: not available to python3 here (python3 -c 'import numpy' fails); comparison skipped")
print(f"- engine peak RSS: {int(rss_kb) / 1024:.1f} MiB (budget 20 MiB + 16 B x runs x actions = "
      f"{20 + 16 * runs * 2 / 1048576:.1f} MiB)")
eng = json.load(open(f"{out}/engine.last.json"))["actions"][0]
flo = json.load(open(f"{out}/floor.last.json"))
same = all(eng[k] == flo[k] for k in ("p5", "p50", "p95"))
print(f"- engine and floor percentiles identical: {'yes' if same else 'NO'}; means {eng['mean']:.15g} / {flo['mean']:.15g}")
PY
