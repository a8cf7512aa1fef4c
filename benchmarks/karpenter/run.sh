#!/usr/bin/env bash
# Karpenter side by side: builds libnodeplan (release) and the Go protos,
# then runs this module's unit tests, the NodePool hash comparison, the
# differential tests on random clusters (scheduling and disruption) and the
# side-by-side speed benchmarks.
#
#   benchmarks/karpenter/run.sh            # everything (hours on 2 busy cores)
#   benchmarks/karpenter/run.sh smoke      # the CI-sized subset
#
# Environment: N (random clusters, default 1000), NV (varied clusters,
# default 2000), REPS (Karpenter runs per
# cluster, default 8), BENCH (benchmark regexp, default all shapes), PRESET
# (CMake preset of libnodeplan, default release; speed figures need release);
# for disruption DN (clusters, default 1000), DREPS (Karpenter runs per
# cluster, default 3) and DISRUPT_BENCH_NODES (default 100,1000,5000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=${1:-full}
preset=${PRESET:-release}
out=$here/out
mkdir -p "$out"

# libnodeplan.so and nodeplan.pc in build/$preset (the bindings' CMake part,
# which needs a Python venv, is not required here).
# GCC 12 at -O2 reports a false maybe-uninitialized in absl::InlinedVector
# moves (lib/requirements/resources.cc); keep it a warning in this build.
cmake --preset "$preset" -DNODEPLAN_BUILD_BINDINGS=OFF \
  "-DCMAKE_CXX_FLAGS=-Wno-error=maybe-uninitialized" -S "$root" >/dev/null
cmake --build "$root/build/$preset" -j2 --target nodeplan_c
# bindings/go/nodeplanv1 (generated, gitignored), as bindings/CMakeLists.txt
# generates it.
gen=$(go env GOPATH)/bin/protoc-gen-go
[ -x "$gen" ] || go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11
(cd "$root/proto" && protoc -I . --plugin=protoc-gen-go="$gen" --go_out="$root/bindings/go" \
  --go_opt=module=github.com/nodeplan/nodeplan/bindings/go nodeplan/v1/*.proto)
export PKG_CONFIG_PATH=$root/build/$preset/capi/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export CGO_ENABLED=1
# The Go build cache does not key cgo packages on PKG_CONFIG_PATH; naming the
# library directory in CGO_LDFLAGS keeps release and dev builds apart.
export CGO_LDFLAGS="-O2 -g -L$root/build/$preset/capi -Wl,-rpath,$root/build/$preset/capi"

cd "$here"
if [ "$mode" = smoke ]; then
  go test -count=1 ./catalog ./compare ./workload ./kadapter ./kdisrupt
  go test -count=1 -run 'TestNodePoolHash' ./nodeplanside
  go run ./cmd/difftest -n 50 -reps 4 -cases "" | tee "$out/difftest-smoke.txt"
  go run ./cmd/difftest -gen varied -n 20 -reps 4 -cases "" | tee "$out/difftest-varied-smoke.txt"
  go run ./cmd/disruptdiff -n 30 -reps 2 -cases "" | tee "$out/disruptdiff-smoke.txt"
  go test -run XXX -bench 'SideBySide/Diverse/pods=(100|1000)$' -benchtime 1x ./nodeplanside | tee "$out/bench-smoke.txt"
  DISRUPT_BENCH_NODES=100 go test -run XXX -bench 'DisruptSideBySide' -benchtime 1x ./nodeplanside | tee "$out/disrupt-bench-smoke.txt"
  exit 0
fi
go test -count=1 ./...
go test -count=1 -v -run 'TestNodePoolHash' ./nodeplanside | tee "$out/hash.txt"
go run ./cmd/difftest -n "${N:-1000}" -reps "${REPS:-8}" -cases "$here/cases" | tee "$out/difftest.txt"
go run ./cmd/difftest -gen varied -n "${NV:-2000}" -reps "${REPS:-8}" -cases "$here/cases" | tee "$out/difftest-varied.txt"
go run ./cmd/disruptdiff -n "${DN:-1000}" -reps "${DREPS:-3}" -cases "$here/cases/disruption" | tee "$out/disruptdiff.txt"
go test -run XXX -bench "^BenchmarkSideBySide/${BENCH:-.}" -benchtime 1x -timeout 6h ./nodeplanside | tee "$out/bench.txt"
go test -run XXX -bench 'DisruptSideBySide' -benchtime 1x -timeout 6h ./nodeplanside | tee "$out/disrupt-bench.txt"
