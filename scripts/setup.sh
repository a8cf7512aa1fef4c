#!/usr/bin/env bash
# Installs what nodeplan needs on a fresh Debian 12 machine, idempotently:
# Debian packages for the C++ build (and chromium, in which tests/cli renders
# the `-o html` page headless; with --fuzz, clang and libFuzzer), a Python
# virtual environment with protobuf and pytest from PyPI, and Go's
# protoc-gen-go from the module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(build-essential cmake ninja-build pkg-config protobuf-compiler libprotobuf-dev
      libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev libyaml-dev libcli11-dev
      clang-format chromium coinor-libclp-dev)
# --fuzz: also clang-14 and libFuzzer for the `fuzz` preset (tests/fuzz/README.md);
# CI replays the corpora with gcc and does not need them.
if [ "${1:-}" = "--fuzz" ]; then
  debs+=(clang-14 libfuzzer-14-dev)
fi
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python: a virtual environment beside the build, protobuf matching protoc 3.21.
venv=build/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import google.protobuf, pytest' 2>/dev/null; then
  echo "setup: creating $venv"
  py=$(command -v python3.11 || command -v python3)
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "protobuf==4.21.12" "pytest>=7,<9"
fi
# The official Kubernetes client, for the binding's conversion helper tests,
# and wheel, so the binding's `pip install` test builds without downloads.
if ! "$venv/bin/python" -c 'import kubernetes, wheel' 2>/dev/null; then
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes>=29,<33" wheel
fi

# Go: protoc-gen-go at the version bindings/go/go.mod pins.
if command -v go >/dev/null && [ -f bindings/go/go.mod ]; then
  ver=$(awk '$1=="google.golang.org/protobuf"{print $2}
             $1=="require" && $2=="google.golang.org/protobuf"{print $3}' bindings/go/go.mod | head -n1)
  gobin=$(go env GOPATH)/bin
  if [ -n "$ver" ] && ! "$gobin/protoc-gen-go" --version 2>/dev/null | grep -q "${ver#v}"; then
    echo "setup: installing protoc-gen-go $ver"
    go install "google.golang.org/protobuf/cmd/protoc-gen-go@$ver"
  fi
fi
