#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the seed workshop
# (examples/workshop/) in two acts on the embedded AWS catalog: scale-out
# (the NodeClaims Karpenter launches for inflate's 20 pending pods) and
# scale-in (an hour later, inflate scaled down to 5: what Karpenter's
# consolidation removes).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$(go env GOPATH 2>/dev/null)/bin:$PATH"
cmake --preset release -DPython3_EXECUTABLE="$PWD/build/venv/bin/python" >/dev/null
cmake --build --preset release -j "$(nproc)" --target nodeplan
w=examples/workshop
echo "== Act 1, scale-out: nodeplan schedule -f $w/"
./build/release/tools/nodeplan schedule -f "$w/"
echo
echo "== Act 2, scale-in: inflate scaled to 5 replicas (see $w/scale-in/README.md)"
./build/release/tools/nodeplan disrupt -f "$w/nodepool-default.yaml" \
  -f "$w/nodepool-general-purpose.yaml" -f "$w/nodeclass-default.yaml" \
  -f "$w/scale-in/" --now 2026-12-02T12:00:00Z
