"""Bundles the C library and the generated protobuf modules into the package.

Both come from a CMake build of the repository, never from this folder:
  $NODEPLAN_BUILD_DIR          a configured and built tree (build/release, ...)
  otherwise build/release or build/dev of the repository if they hold both,
  otherwise a fresh build of the two targets under bindings/python/build/.
$NODEPLAN_USE_SYSTEM_LIBRARY=1 leaves the library out (found at run time on
the system's search path or through $NODEPLAN_LIBRARY).
"""

import os
import pathlib
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
ABI_VERSION = 1
SONAME = f"libnodeplan.so.{ABI_VERSION}"


def _complete(build_dir):
    return (build_dir / "capi" / SONAME).exists() and \
        (build_dir / "proto" / "py" / "nodeplan" / "v1" /
         "schedule_pb2.py").exists()


def _build_dir():
    env = os.environ.get("NODEPLAN_BUILD_DIR")
    if env:
        build_dir = pathlib.Path(env).resolve()
        if not _complete(build_dir):
            raise SystemExit(f"NODEPLAN_BUILD_DIR={env} lacks capi/{SONAME} "
                             "or proto/py: build targets nodeplan_c and "
                             "nodeplan_proto_py there first")
        return build_dir
    for preset in ("release", "dev"):
        build_dir = REPO / "build" / preset
        if _complete(build_dir):
            return build_dir
    build_dir = HERE / "build" / "cmake"
    subprocess.check_call([
        "cmake", "-S", str(REPO), "-B", str(build_dir),
        "-DCMAKE_BUILD_TYPE=Release", "-DNODEPLAN_BUILD_TESTS=OFF",
        "-DNODEPLAN_BUILD_BENCHMARKS=OFF"])
    subprocess.check_call(["cmake", "--build", str(build_dir), "--target",
                           "nodeplan_c", "nodeplan_proto_py"])
    return build_dir


class BuildPyWithNative(build_py):
    def run(self):
        super().run()
        build_dir = _build_dir()
        package = pathlib.Path(self.build_lib) / "nodeplan"
        generated = package / "v1"
        generated.mkdir(parents=True, exist_ok=True)
        (generated / "__init__.py").write_text(
            "# Generated protobuf modules (nodeplan.v1), copied by setup.py.\n")
        for src in sorted((build_dir / "proto" / "py" / "nodeplan" / "v1")
                          .glob("*_pb2.py")):
            shutil.copy2(src, generated / src.name)
        if os.environ.get("NODEPLAN_USE_SYSTEM_LIBRARY") != "1":
            native = package / "_lib"
            native.mkdir(exist_ok=True)
            shutil.copy2((build_dir / "capi" / SONAME).resolve(),
                         native / SONAME)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform."""

    def has_ext_modules(self):
        return os.environ.get("NODEPLAN_USE_SYSTEM_LIBRARY") != "1"


setup(cmdclass={"build_py": BuildPyWithNative}, distclass=BinaryDistribution)
