#!/usr/bin/env bash
# Builds the Python package, installs it into a virtual environment (build/py-venv) and runs its tests
# (tests/python): all of them where a CUDA GPU is present; elsewhere the GPU ones report skipped, with
# the reason. Needs Python >= 3.9 with venv and its headers, and PyPI for what the venv lacks of nanobind,
# scikit-build-core, numpy and pytest. ROWWISE_PYTHON picks the interpreter (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/py-venv
[ -x "$venv/bin/python" ] || "${ROWWISE_PYTHON:-python3}" -m venv "$venv"
py=$venv/bin/python
"$py" -m pip install -q nanobind scikit-build-core numpy pytest
# The venv's build tools, not an isolated copy: the build folder (build/py-<wheel tag>) is then reused.
"$py" -m pip install -q --no-build-isolation --no-deps .
rc=0
"$py" -m pytest tests/python -ra || rc=$?
if [ "$rc" -eq 5 ]; then  # pytest: no tests collected; not a failure
  echo "python_test.sh: no Python tests were collected"
  rc=0
fi
exit "$rc"
