"""Loads libnodeplan.so with ctypes and declares the C ABI (nodeplan/c_api.h).

The library is looked up, in order: the file named by $NODEPLAN_LIBRARY, the
copy bundled in this package by `pip install`, then the system's search path
(libnodeplan.so.<ABI>). Its ABI version must equal ABI_VERSION.
"""

import ctypes
import ctypes.util
import os
import pathlib

# The C ABI this package was written for (NODEPLAN_CAPI_ABI_VERSION).
ABI_VERSION = 1

_SONAME = f"libnodeplan.so.{ABI_VERSION}"


def _candidates():
    env = os.environ.get("NODEPLAN_LIBRARY")
    if env:
        yield env
        return
    bundled = pathlib.Path(__file__).with_name("_lib") / _SONAME
    if bundled.exists():
        yield str(bundled)
    yield _SONAME
    found = ctypes.util.find_library("nodeplan")
    if found:
        yield found


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError(
        "nodeplan: cannot load the C library (set NODEPLAN_LIBRARY to the path "
        "of libnodeplan.so): " + "; ".join(errors))


lib = _load()

_P = ctypes.c_void_p
_OPERATION_ARGS = [_P, ctypes.c_size_t, ctypes.POINTER(_P),
                   ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_P)]

lib.nodeplan_version.argtypes = []
lib.nodeplan_version.restype = ctypes.c_char_p
lib.nodeplan_abi_version.argtypes = []
lib.nodeplan_abi_version.restype = ctypes.c_int
lib.nodeplan_free.argtypes = [_P]
lib.nodeplan_free.restype = None

_abi = lib.nodeplan_abi_version()
if _abi != ABI_VERSION:
    raise ImportError(
        f"nodeplan: the C library {getattr(lib, '_name', '?')} implements ABI "
        f"version {_abi}, this package needs ABI version {ABI_VERSION}")

# Operations: (request, request_len, &response, &response_len, &error) -> code.
# The error message is declared as void* (not c_char_p) so that the pointer
# survives for nodeplan_free.
OPERATIONS = ("nodeplan_schedule", "nodeplan_load_manifests",
              "nodeplan_validate", "nodeplan_disrupt",
              "nodeplan_validate_command", "nodeplan_explain", "nodeplan_diff")
for _name in OPERATIONS:
    _fn = getattr(lib, _name)
    _fn.argtypes = _OPERATION_ARGS
    _fn.restype = ctypes.c_int

lib.nodeplan_snapshot_new.argtypes = [_P, ctypes.c_size_t, ctypes.POINTER(_P),
                                      ctypes.POINTER(_P)]
lib.nodeplan_snapshot_new.restype = ctypes.c_int
lib.nodeplan_snapshot_schedule.argtypes = [_P] + _OPERATION_ARGS
lib.nodeplan_snapshot_schedule.restype = ctypes.c_int
lib.nodeplan_snapshot_free.argtypes = [_P]
lib.nodeplan_snapshot_free.restype = None

lib.nodeplan_cluster_new.argtypes = [_P, ctypes.c_size_t, ctypes.POINTER(_P),
                                     ctypes.POINTER(_P)]
lib.nodeplan_cluster_new.restype = ctypes.c_int
for _name in ("nodeplan_cluster_update", "nodeplan_cluster_schedule",
              "nodeplan_cluster_disrupt"):
    _fn = getattr(lib, _name)
    _fn.argtypes = [_P] + _OPERATION_ARGS
    _fn.restype = ctypes.c_int
lib.nodeplan_cluster_free.argtypes = [_P]
lib.nodeplan_cluster_free.restype = None
