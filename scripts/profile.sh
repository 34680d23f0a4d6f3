#!/usr/bin/env bash
# Nsight Compute summary of one rowwise-bench case per argument set (speed of light, occupancy, warp
# stalls), clocks left alone. Run after scripts/gpu_run.sh built the tree.
# Usage: scripts/profile.sh "--dtypes bf16 --cols 2048" "--dtypes fp32 --cols 128" ...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
i=0
for args in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
      --section SchedulerStats --section LaunchStats -k regex:rows_kernel --launch-skip 2 --launch-count 1 \
      ./build/release/bench/rowwise-bench --sweep quick --iters 2 --ops softmax $args > "$OUT/ncu_$i.txt" 2>&1
  echo "==== ncu $i: $args"
  grep -E "Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Issue Slots Busy|No Eligible|Stall" "$OUT/ncu_$i.txt" | head -14
done
