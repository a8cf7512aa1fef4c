#!/usr/bin/env bash
# pip-installs bindings/python (bundling the library and generated modules
# from the build tree $NODEPLAN_BUILD_DIR) into a scratch target and runs the
# pytest suite against that installed copy, with no source paths involved.
#   pip_install_test.sh PYTHON SOURCE_DIR SCRATCH_DIR
set -euo pipefail
python=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
# An in-place build would leave build/ and *.egg-info in the source tree:
# build from a copy.
cp -r "$src/bindings/python" "$scratch/src"
rm -rf "$scratch/src/build" "$scratch/src/"*.egg-info
"$python" -m pip install -q --disable-pip-version-check --no-build-isolation \
  --no-deps --target "$scratch/site" "$scratch/src"
test -f "$scratch/site/nodeplan/_lib/libnodeplan.so.1"
test -f "$scratch/site/nodeplan/v1/schedule_pb2.py"
cd "$scratch"
env -u NODEPLAN_LIBRARY PYTHONPATH="$scratch/site" NODEPLAN_SOURCE_DIR="$src" \
  "$python" -m pytest -q -p no:cacheprovider "$src/bindings/python/tests"
