#!/usr/bin/env bash
# The one GPU job: configure and build a release build, run every test (C++ and Python, GPU ones
# included), run rowwise-bench and its peers (PyTorch eager, cuDNN) beside it, print a short summary
# last. Full logs and JSON go to $OUT (or ./out).
# Usage: scripts/gpu_run.sh [all|tests|bench] [rowwise-bench args...]
#   tests: build, C++ tests, Python tests.   bench: build, rowwise-bench, its peers PyTorch eager and
#   cuDNN on the same cases (torch_peer.json, cudnn_peer.json; with no rowwise-bench args, also the
#   long-row sweep and its peers: long.json, torch_peer_long.json, cudnn_peer_long.json).
#   ROWWISE_PEER=0 skips the peers. On a device with a 10-minute limit, run tests and bench apart, and
#   the bench in parts (e.g. bench --ops softmax,log_softmax --cols 128,1000,4096).
#   Measured on an H200 with 16 cores: `tests` 6.2 minutes in all (the build with the Python module ~2.5,
#   the C++ tests ~3: 436 tests, one process a core, queued for the GPU one context at a time; the Python
#   tests 28 s on this build's librowwise, staged by `cmake --install`, no wheel built): it fits a
#   10-minute call.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
mode=${1:-all}
[ $# -gt 0 ] && shift
case "$mode" in all|tests|bench) ;; *) echo "usage: $0 [all|tests|bench] [rowwise-bench args...]"; exit 2 ;; esac
JOBS=$(nproc)

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# The Python module in the same build where nanobind is there: the Python tests then use this build's
# librowwise (scripts/python_gpu.sh, ROWWISE_PY_BUILD) rather than build it again for a wheel.
python_module=()
python3 -c "import nanobind" 2>/dev/null &&
  python_module=(-DROWWISE_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)")
{
  cmake --preset release "${generator[@]}" "${python_module[@]}" && cmake --build build/release -j "$JOBS"
} > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; echo "BUILD FAILED"; exit 1; }

tests_rc=skipped py_rc=skipped bench_rc=skipped peer_rc=skipped
if [ "$mode" != bench ]; then
  ctest --test-dir build/release -j "$JOBS" --output-on-failure > "$OUT/tests.log" 2>&1
  tests_rc=$?
  ROWWISE_PY_BUILD=${python_module:+build/release} scripts/python_gpu.sh test > "$OUT/python.log" 2>&1
  py_rc=$?
fi
if [ "$mode" != tests ]; then
  ./build/release/bench/rowwise-bench --json "$OUT/bench.json" "$@" > "$OUT/bench.log" 2>&1
  bench_rc=$?
  # Without bench arguments, also the long-row sweep (decode batches, millions of columns, tensors).
  [ $# -eq 0 ] && ./build/release/bench/rowwise-bench --sweep long --json "$OUT/long.json" > "$OUT/long.log" 2>&1
  if [ "${ROWWISE_PEER:-1}" = 1 ] && python3 -c "import torch" 2>/dev/null; then
    peer_rc=
    for peer in torch cudnn; do
      python3 bench/torch_peer.py --peer $peer --like "$OUT/bench.json" --rowwise "$OUT/bench.json" \
        --json "$OUT/${peer}_peer.json" > "$OUT/${peer}_peer.log" 2>&1
      peer_rc="$peer_rc $peer $?"
      [ -f "$OUT/long.json" ] && python3 bench/torch_peer.py --peer $peer --like "$OUT/long.json" \
        --rowwise "$OUT/long.json" --json "$OUT/${peer}_peer_long.json" > "$OUT/${peer}_peer_long.log" 2>&1
    done
  fi
fi

echo "==== $(sed -n 2p "$OUT/gpu.txt")"
echo "==== commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo '+dirty')"
echo "==== C++ tests (rc $tests_rc)"
[ "$tests_rc" = skipped ] || grep -E "tests passed|tests failed|\*\*\*Failed" "$OUT/tests.log" | tail -15
echo "==== Python tests (rc $py_rc)"
[ "$py_rc" = skipped ] || grep -E "passed|failed|^FAILED|^ERROR" "$OUT/python.log" | tail -15
echo "==== peers: PyTorch eager, cuDNN (rc$peer_rc)"
for log in "$OUT"/torch_peer.log "$OUT"/cudnn_peer.log "$OUT"/torch_peer_long.log "$OUT"/cudnn_peer_long.log; do
  [ -f "$log" ] && sed -n '/^rowwise slower than/,$p' "$log" | head -12
done
if [ -f "$OUT/long.log" ]; then
  echo "==== long rows (rowwise-bench --sweep long; the peers beside it in *_peer_long.log)"
  sed -n '/summary/,$p' "$OUT/long.log"
fi
echo "==== rowwise-bench (rc $bench_rc)"
[ "$bench_rc" = skipped ] || sed -n '/seed baselines vs rowwise/,$p' "$OUT/bench.log" | tail -60
