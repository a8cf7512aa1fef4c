#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: C++ (GoogleTest), C,
# Python (pytest), Go (go test) and the examples, all through ctest.
#   scripts/test.sh                 the release preset: everything
#   scripts/test.sh --preset asan   the C++ suite under ASan+UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
if [ "${1:-}" = "--preset" ]; then preset=$2; fi
./scripts/setup.sh
export PATH="$(go env GOPATH 2>/dev/null)/bin:$PATH"
cmake --preset "$preset" -DPython3_EXECUTABLE="$PWD/build/venv/bin/python" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)"
