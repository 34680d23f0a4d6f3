#!/usr/bin/env bash
# Builds everything and runs every test, C++ then Python: CPU tests always, GPU tests where a CUDA device
# is present (they report skipped, with the reason, where none is). ROWWISE_PRESET picks the CMake preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${ROWWISE_PRESET:-ci}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)"
# The Python package: built, installed into build/py-venv, tests/python run (ROWWISE_PYTHON_TESTS=0 skips).
[ "${ROWWISE_PYTHON_TESTS:-1}" = 0 ] || scripts/python_test.sh
