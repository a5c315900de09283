#!/usr/bin/env bash
# Engine benchmark: `simulate` one-shot against a plain C++ floor loop (floor.cpp) and, when python3
# has numpy, a vectorised numpy version. Scenario: RUNS runs x 10 uniform variables v0..v9 on [0, 1],
# model v0*v1 - v2 + v3*v4 - v5 + v6*v7 - v8 + v9, default actions. Prints a markdown table.
#
#   bench/engine/run.sh                  # RUNS=1000000 REPS=5
#   RUNS=200000 REPS=9 bench/engine/run.sh
#
# Per program and repetition: wall time of the whole process (start, JSON in/out, exit, as a caller
# sees it), its CPU time (user + system, from wait4: far less sensitive than wall time to other load
# on the machine), and the program's own measurement of its work (engine: compute_ms; floor and
# numpy: the same span, numpy without its import). The engine runs twice per repetition: as shipped
# (its large per-run arrays advised for transparent huge pages, as numpy does) and with
# SIMULATE_NO_HUGEPAGES=1, which faults its memory in 4 KiB pages like the floor. With hyperfine
# installed, its wall-time summary is printed as well. Repetitions are interleaved.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"

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

# Peak resident memory of one engine run.
if [ -x /usr/bin/time ]; then
  rss_kb=$( { /usr/bin/time -v ./engine_build/simulate < "$OUT/request.json" > /dev/null; } 2>&1 |
            awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}')
else
  rss_kb=$(./engine_build/simulate --report-memory < "$OUT/request.json" 2>&1 >/dev/null | awk '{print $2}')
fi

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 1 --runs "$REPS" --input "$OUT/request.json" './engine_build/simulate' \
    "./$OUT/floor $RUNS $SEED" 2>/dev/null | grep -E 'Benchmark|Time' || true
  echo
fi

python3 - "$OUT" "$RUNS" "$REPS" "$SEED" "$have_numpy" "$rss_kb" <<'PY'
import json, os, statistics, subprocess, sys, time

out, runs, reps, seed, have_numpy, rss_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1", sys.argv[6]
progs = [
    ("engine", "`simulate` one-shot", ["./engine_build/simulate"], f"{out}/request.json"),
    ("engine_4k", "`simulate`, SIMULATE_NO_HUGEPAGES=1", ["env", "SIMULATE_NO_HUGEPAGES=1", "./engine_build/simulate"],
     f"{out}/request.json"),
    ("floor", "C++ floor loop (floor.cpp)", [f"./{out}/floor", str(runs), seed], None),
]
if have_numpy:
    progs.append(("numpy", "numpy, vectorised (numpy_floor.py)", ["python3", "bench/engine/numpy_floor.py", str(runs), seed], None))

def run(cmd, stdin_path):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE)
    data = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    if stdin_path:
        stdin.close()
    if status != 0:
        sys.exit(f"{cmd[0]} failed with status {status}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, json.loads(data)

for _, _, cmd, stdin_path in progs:  # warm the page cache
    run(cmd, stdin_path)
res = {name: [] for name, *_ in progs}
numpy_cpu = []
last = {}
for _ in range(reps):
    for name, _, cmd, stdin_path in progs:
        wall, cpu, doc = run(cmd, stdin_path)
        res[name].append((wall, cpu, doc["compute_ms"]))
        last[name] = doc
        if name == "numpy":
            numpy_cpu.append(doc["compute_cpu_ms"])

def stat(name, i):
    xs = [r[i] for r in res[name]]
    return statistics.median(xs), min(xs)

print(f"Engine benchmark: {runs:,} runs x 10 uniform variables, {reps} interleaved repetitions; "
      f"load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.\n")
print("| program | wall ms, median / best | CPU ms (user+sys), median / best | in-program compute ms, median / best |")
print("|---|---|---|---|")
for name, label, *_ in progs:
    w, c, k = stat(name, 0), stat(name, 1), stat(name, 2)
    print(f"| {label} | {w[0]:.1f} / {w[1]:.1f} | {c[0]:.1f} / {c[1]:.1f} | {k[0]:.1f} / {k[1]:.1f} |")
print()
def ratio(a, b, i):
    (am, ab), (bm, bb) = stat(a, i), stat(b, i)
    return f"{am / bm:.2f} (best {ab / bb:.2f})"
print(f"- engine / floor: wall {ratio('engine', 'floor', 0)}, CPU {ratio('engine', 'floor', 1)}  (goal <= 1.5)")
print(f"- engine without huge-page advice (page faults like the floor's) / floor: wall {ratio('engine_4k', 'floor', 0)}, "
      f"CPU {ratio('engine_4k', 'floor', 1)}")
if have_numpy:
    print(f"- numpy / engine: wall {ratio('numpy', 'engine', 0)}, CPU {ratio('numpy', 'engine', 1)}, "
          f"in-program compute {ratio('numpy', 'engine', 2)}  (goal >= 2.5)")
    # numpy's own CPU time for its computation alone (no interpreter start, no import) against the
    # engine's whole process: the comparison least flattering to the engine and least hurt by load.
    npc = [d for d in numpy_cpu]
    eng_cpu = [r[1] for r in res["engine"]]
    print(f"- numpy computation alone (process_time, median {statistics.median(npc):.1f} ms) / whole engine "
          f"process CPU (median {statistics.median(eng_cpu):.1f} ms): {statistics.median(npc) / statistics.median(eng_cpu):.2f}")
else:
    print("- numpy: python3 here has no numpy (python3 -c 'import numpy' fails); comparison skipped")
print(f"- engine peak RSS: {int(rss_kb) / 1024:.1f} MiB (budget 20 MiB + 16 B x runs x actions = "
      f"{20 + 16 * runs * 2 / 1048576:.1f} MiB)")
eng = last["engine"]["actions"][0]
flo = last["floor"]
same = all(eng[k] == flo[k] for k in ("p5", "p50", "p95"))
print(f"- engine and floor percentiles identical: {'yes' if same else 'NO'}; means {eng['mean']:.15g} / {flo['mean']:.15g}")
PY
