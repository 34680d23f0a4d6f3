#!/usr/bin/env bash
# A/B of a change on the GPU, in one job: builds rowwise-bench from a base source tree and from this one,
# runs them in turns (base, tree, base, tree, ...) on the same cases, and prints per case the mean % of
# copy of each and the difference. Turns, not one after the other, so that drifts of the GPU's clocks and
# temperature fall on both alike.
# Usage: scripts/ab_bench.sh BASE_DIR [rowwise-bench args...]   (ROUNDS=2 by default)
#   BASE_DIR: a source tree of the base, e.g. `git archive REV | tar -x -C ab-base` (git-ignored; pass it
#   to the device tool in `carry`). JSON of every run, the comparison (ab.txt) and two logs (ab-build.log,
#   ab-runs.log: few files, so that a tool bringing back only some of $OUT brings back all) go to $OUT
#   (or ./out).
#   e.g. scripts/ab_bench.sh ab-base --ops absmax_scale,absmax_int8 --dtypes bf16 --cols 17,64,4096
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && [ -f "$1/CMakeLists.txt" ] || { echo "usage: $0 BASE_DIR [rowwise-bench args...]"; exit 2; }
base=$(cd "$1" && pwd)
shift
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
for side in base tree; do
  src=$PWD
  [ $side = base ] && src=$base
  echo "==== $side" >> "$OUT/ab-build.log"
  { cmake -S "$src" -B "build/ab-$side" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DROWWISE_BUILD_TESTS=OFF &&
    cmake --build "build/ab-$side" --target rowwise-bench -j "$(nproc)"; } >> "$OUT/ab-build.log" 2>&1 ||
    { tail -30 "$OUT/ab-build.log"; echo "BUILD FAILED ($side)"; exit 1; }
done
runs=()
for round in $(seq "${ROUNDS:-2}"); do
  for side in base tree; do
    json=$OUT/ab-$side-$round.json
    echo "==== $side, round $round" >> "$OUT/ab-runs.log"
    "build/ab-$side/bench/rowwise-bench" --json "$json" "$@" >> "$OUT/ab-runs.log" 2>&1 ||
      echo "rowwise-bench ($side, round $round) exited $?: see $OUT/ab-runs.log"
    runs+=("$side=$json")
  done
done
python3 scripts/ab_compare.py "${runs[@]}" | tee "$OUT/ab.txt"
