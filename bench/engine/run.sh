#!/usr/bin/env bash
# Engine benchmark: `simulate` one-shot against a plain C++ floor loop (floor.cpp) and, when python3
# has numpy, a vectorised numpy version. Scenario: RUNS runs x 10 uniform variables v0..v9 on [0, 1],
# model v0*v1 - v2 + v3*v4 - v5 + v6*v7 - v8 + v9, default actions. Prints a markdown table.
#
#   bench/engine/run.sh                  # RUNS=1000000 REPS=9; writes its section of docs/BENCHMARKS.md
#   RUNS=200000 REPS=5 bench/engine/run.sh
#
# Per program and repetition: wall time of the whole process (start, JSON in/out, exit, as a caller
# sees it), its CPU time (user + system, from wait4: far less sensitive than wall time to other load
# on the machine), and the program's own measurement of its work (engine: compute_ms; floor and
# numpy: the same span, numpy without its import). The engine runs twice per repetition: as shipped
# (its large per-run arrays advised for transparent huge pages, as numpy does) and with
# SIMULATE_NO_HUGEPAGES=1, which faults its memory in 4 KiB pages like the floor. With hyperfine
# installed, its wall-time summary is printed as well. Repetitions are interleaved; each figure is
# reported as median (min-max) and each ratio repetition by repetition, with the load average.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The project's own runtime (Node 24 from node_modules), as npm scripts get it.
PATH="$PWD/node_modules/.bin:$PATH"

RUNS=${RUNS:-1000000}
REPS=${REPS:-9}
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
load_before = os.getloadavg()[0]
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
load_after = os.getloadavg()[0]
quiet = max(load_before, load_after) <= os.cpu_count()

def cell(xs, digits=1):
    return f"{statistics.median(xs):.{digits}f} ({min(xs):.{digits}f}–{max(xs):.{digits}f})"

def col(name, i):
    return [r[i] for r in res[name]]

def ratio(a, b, i):
    # Repetition by repetition (they are interleaved), so a drift of the machine's speed cancels out.
    return cell([x / y for x, y in zip(col(a, i), col(b, i))], 2)

lines = []
lines.append("<!-- bench:engine:start -->")
lines.append(f"## Engine one-shot: {runs:,} runs × 10 uniform variables")
lines.append("")
lines.append(f"{runs:,} runs x 10 uniform variables, {reps} interleaved repetitions, {os.cpu_count()} CPUs; load average "
             f"{load_before:.1f} before, {load_after:.1f} at the end"
             + ("." if quiet else " (**under load, not a goal figure**).")
             + " Transparent huge pages on this machine: `"
             + open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
             + "` (the engine advises its large arrays itself; the second row turns that off). Figures are "
             "median (min–max) over the repetitions; ratios are taken repetition by repetition.")
lines.append("")
lines.append("```sh")
lines.append(f"RUNS={runs} REPS={reps} bash bench/engine/run.sh")
lines.append("```")
lines.append("")
lines.append("| program | wall ms | CPU ms (user+sys) | in-program compute ms |")
lines.append("|---|---|---|---|")
for name, label, *_ in progs:
    lines.append(f"| {label} | {cell(col(name, 0))} | {cell(col(name, 1))} | {cell(col(name, 2))} |")
lines.append("")
lines.append(f"- engine / floor: CPU **{ratio('engine', 'floor', 1)}**, wall {ratio('engine', 'floor', 0)} (goal <= 1.3)")
lines.append(f"- engine without huge-page advice / floor: CPU {ratio('engine_4k', 'floor', 1)}, wall {ratio('engine_4k', 'floor', 0)}")
if have_numpy:
    lines.append(f"- numpy / engine: CPU **{ratio('numpy', 'engine', 1)}**, wall {ratio('numpy', 'engine', 0)}, "
                 f"in-program compute {ratio('numpy', 'engine', 2)} (goal >= 3)")
    npc = numpy_cpu
    eng_cpu = col("engine", 1)
    lines.append(f"- numpy computation alone (process_time, median {statistics.median(npc):.1f} ms) / whole engine "
                 f"process CPU (median {statistics.median(eng_cpu):.1f} ms): {statistics.median(npc) / statistics.median(eng_cpu):.2f}")
else:
    lines.append("- numpy: python3 here has no numpy (python3 -c 'import numpy' fails); comparison skipped")
lines.append(f"- engine peak RSS: {int(rss_kb) / 1024:.1f} MiB (budget 20 MiB + 16 B x runs x actions = "
             f"{20 + 16 * runs * 2 / 1048576:.1f} MiB)")
eng = last["engine"]["actions"][0]
flo = last["floor"]
same = all(eng[k] == flo[k] for k in ("p5", "p50", "p95"))
lines.append(f"- engine and floor percentiles identical: {'yes' if same else 'NO'}; means {eng['mean']:.15g} / {flo['mean']:.15g}")
lines.append("<!-- bench:engine:end -->")
section = "\n".join(lines)
print(section)

path = "docs/BENCHMARKS.md"
try:
    doc = open(path).read()
except FileNotFoundError:
    doc = "# Benchmarks\n"
start, end = doc.find("<!-- bench:engine:start -->"), doc.find("<!-- bench:engine:end -->")
if start >= 0 and end > start:
    doc = doc[:start] + section + doc[end + len("<!-- bench:engine:end -->"):]
else:
    doc = doc.rstrip() + "\n\n" + section + "\n"
open(path, "w").write(doc)
PY
