#!/usr/bin/env bash
# A/B of a change on the GPU, in one job: builds rowwise-bench from a base source tree and from this one
# (and from any more trees given), runs them in turns (base, tree, ..., base, tree, ...) on the same
# cases, and prints per case the mean % of copy of each and its difference from the base. Turns, not one
# after the other, so that drifts of the GPU's clocks and temperature fall on all alike; more trees in
# one job share its start-up and the base's build.
# Usage: scripts/ab_bench.sh BASE_DIR [--tree LABEL=DIR]... [rowwise-bench args...]   (ROUNDS=2 by default)
#   BASE_DIR: a source tree of the base, e.g. `git archive REV | tar -x -C ab-base` (git-ignored; pass it
#   to the device tool in `carry`), as each --tree DIR (paths from this tree's root). The comparison
#   (ab.txt), two logs (ab-build.log, ab-runs.log) and the JSON of every run (run-SIDE-ROUND.json, named
#   to sort after the others: a tool that brings back only the first few files of $OUT, 8 for the device
#   tool, brings back the comparison) go to $OUT (or ./out).
#   e.g. scripts/ab_bench.sh ab-base --ops absmax_scale,absmax_int8 --dtypes bf16 --cols 17,64,4096
#        scripts/ab_bench.sh ab-base --tree bound72=ab-exp2 --ops absmax_int8 --dtypes bf16 --cols 137,150
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 BASE_DIR [--tree LABEL=DIR]... [rowwise-bench args...]"; exit 2; }
[ $# -ge 1 ] && [ -f "$1/CMakeLists.txt" ] || usage
declare -A src=([base]=$(cd "$1" && pwd) [tree]=$PWD)
sides=(base tree)
shift
while [ "${1:-}" = --tree ]; do
  [ $# -ge 2 ] || usage
  label=${2%%=*} dir=${2#*=}
  # A label names files and build folders: letters, digits, _ and - only, and each once.
  [[ $label =~ ^[A-Za-z0-9_-]+$ ]] && [ -z "${src[$label]:-}" ] && [ -f "$dir/CMakeLists.txt" ] || usage
  src[$label]=$(cd "$dir" && pwd)
  sides+=("$label")
  shift 2
done
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
for side in "${sides[@]}"; do
  echo "==== $side" >> "$OUT/ab-build.log"
  { cmake -S "${src[$side]}" -B "build/ab-$side" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DROWWISE_BUILD_TESTS=OFF &&
    cmake --build "build/ab-$side" --target rowwise-bench -j "$(nproc)"; } >> "$OUT/ab-build.log" 2>&1 ||
    { tail -30 "$OUT/ab-build.log"; echo "BUILD FAILED ($side)"; exit 1; }
done
runs=()
for round in $(seq "${ROUNDS:-2}"); do
  for side in "${sides[@]}"; do
    json=$OUT/run-$side-$round.json
    echo "==== $side, round $round" >> "$OUT/ab-runs.log"
    # A run that fails leaves its side out of the comparison, not the sides that ran.
    "build/ab-$side/bench/rowwise-bench" --json "$json" "$@" >> "$OUT/ab-runs.log" 2>&1 &&
      runs+=("$side=$json") || echo "rowwise-bench ($side, round $round) exited $?: see $OUT/ab-runs.log"
  done
done
python3 scripts/ab_compare.py "${runs[@]}" | tee "$OUT/ab.txt"
