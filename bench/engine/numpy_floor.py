"""Vectorised numpy version of the engine benchmark scenario (the comparison the engine must beat).

Same work as floor.cpp: runs x 10 uniforms, the formula, the mean and type-7 p5/p50/p95
(np.percentile's default "linear" method is type 7 and selects with a partition, not a sort).
numpy's generator is PCG64, not xoshiro256**, so the numbers agree only statistically.
"""
import json
import sys
import time

t_import = time.perf_counter()
import numpy as np  # noqa: E402

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 42
t0 = time.perf_counter()
c0 = time.process_time()
rng = np.random.default_rng(seed)
u = rng.random((10, runs))
v = u[0] * u[1] - u[2] + u[3] * u[4] - u[5] + u[6] * u[7] - u[8] + u[9]
mean = float(v.mean())
p5, p50, p95 = (float(x) for x in np.percentile(v, [5, 50, 95]))
ms = (time.perf_counter() - t0) * 1000.0
cpu_ms = (time.process_time() - c0) * 1000.0
print(json.dumps({"mean": mean, "p5": p5, "p50": p50, "p95": p95, "compute_ms": ms, "compute_cpu_ms": cpu_ms,
                  "import_ms": (t0 - t_import) * 1000.0, "numpy": np.__version__}))
