#!/usr/bin/env bash
# The main job: installs what is missing, builds, and plans the seed workshop
# (examples/workshop/) with the embedded AWS catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$(go env GOPATH 2>/dev/null)/bin:$PATH"
cmake --preset release -DPython3_EXECUTABLE="$PWD/build/venv/bin/python" >/dev/null
cmake --build --preset release -j "$(nproc)" --target nodeplan
./build/release/tools/nodeplan schedule -f examples/workshop/
