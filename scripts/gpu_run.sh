#!/usr/bin/env bash
# The one GPU job: configure and build a release build, run every test (GPU ones included), run the
# benchmark and the PyTorch peer beside it, print a short summary last. Full logs go to $OUT (or ./out).
# Usage: scripts/gpu_run.sh [bench args...]   e.g. scripts/gpu_run.sh --sweep quick
# ROWWISE_PEER=0 skips the PyTorch peer.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
JOBS=$(nproc)

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
{
  cmake --preset release "${generator[@]}" && cmake --build build/release -j "$JOBS"
} > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; echo "BUILD FAILED"; exit 1; }

ctest --test-dir build/release -j 4 --output-on-failure > "$OUT/tests.log" 2>&1
tests_rc=$?

./build/release/bench/rowwise-bench --json "$OUT/bench.json" "$@" > "$OUT/bench.log" 2>&1
bench_rc=$?

peer_rc=skipped
if [ "${ROWWISE_PEER:-1}" = 1 ] && python3 -c "import torch" 2>/dev/null; then
  python3 bench/torch_peer.py --json "$OUT/torch_peer.json" --rowwise "$OUT/bench.json" > "$OUT/torch_peer.log" 2>&1
  peer_rc=$?
fi

echo "==== $(head -2 "$OUT/gpu.txt" | tail -1)"
echo "==== commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo '+dirty')"
echo "==== tests (rc $tests_rc)"
grep -E "tests passed|tests failed|Failed|\*\*\*Failed" "$OUT/tests.log" | tail -15
echo "==== torch peer (rc $peer_rc)"
tail -3 "$OUT/torch_peer.log" 2>/dev/null
echo "==== bench (rc $bench_rc)"
tail -45 "$OUT/bench.log"
