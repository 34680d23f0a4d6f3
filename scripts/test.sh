#!/usr/bin/env bash
# Builds everything and runs every test: CPU tests always, GPU tests where a CUDA device is present
# (they report skipped, with the reason, where none is). ROWWISE_PRESET picks the CMake preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${ROWWISE_PRESET:-ci}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset"
