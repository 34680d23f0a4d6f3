#!/usr/bin/env bash
# The Python job on the GPU machine (no network there): installs the package with the machine's own
# nanobind and scikit-build-core into build/py-target, runs the Python tests, then the peer benchmark.
# Logs and the benchmark's table, JSON and plot go to $OUT (or ./out); a short summary prints last.
# Usage: scripts/python_gpu.sh [all|test|bench] [python -m rowwise.bench args...]
#   e.g. scripts/python_gpu.sh bench --ops softmax,log_softmax --dtypes bf16
# ROWWISE_PY_BUILD=<CMake build folder> takes the package's compiled part from that build, not from pip.
# The full default sweep is long (a torch.compile and a Triton compile per case): where a command has a
# time limit, run it in parts with --ops and --out, then merge with --from-json (see --help).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
mode=${1:-all}
[ $# -gt 0 ] && shift
case "$mode" in all|test|bench) ;; *) echo "usage: $0 [all|test|bench] [bench args...]"; exit 2 ;; esac

if [ -n "${ROWWISE_PY_BUILD:-}" ]; then
  # A CMake build configured with ROWWISE_BUILD_PYTHON=ON (scripts/gpu_run.sh's): its module and librowwise,
  # installed beside the package's sources as a wheel lays them out. This spares the wheel's own build of
  # librowwise, ~2.5 minutes on the GPU machine; CI's scripts/python_test.sh still installs by pip.
  target=$PWD/build/py-stage
  rm -rf "$target"
  { cmake --install "$ROWWISE_PY_BUILD" --component python --prefix "$target" && cp -r python/rowwise/. "$target/rowwise/"; } \
    > "$OUT/py-install.log" 2>&1 || { tail -40 "$OUT/py-install.log"; echo "INSTALL FAILED"; exit 1; }
else
  target=$PWD/build/py-target
  python3 -m pip install --no-build-isolation --no-deps --upgrade --target "$target" . > "$OUT/py-install.log" 2>&1 ||
    { tail -40 "$OUT/py-install.log"; echo "INSTALL FAILED"; exit 1; }
fi
export PYTHONPATH=$target${PYTHONPATH:+:$PYTHONPATH}

tests_rc=skipped
if [ "$mode" != bench ]; then
  python3 -m pytest tests/python -ra > "$OUT/py-tests.log" 2>&1
  tests_rc=$?
fi
bench_rc=skipped
if [ "$mode" != test ]; then
  python3 -m rowwise.bench --out "$OUT/python-bench" "$@" > "$OUT/py-bench.log" 2>&1
  bench_rc=$?
fi

echo "==== $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "==== python tests (rc $tests_rc)"
[ "$tests_rc" = skipped ] || grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$OUT/py-tests.log" | tail -30
echo "==== python bench (rc $bench_rc)"
[ "$bench_rc" = skipped ] || tail -60 "$OUT/py-bench.log"
