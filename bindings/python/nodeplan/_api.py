"""The calls: serialize, call the C library, copy the answer out, free it."""

import ctypes
import threading

from nodeplan import _errors
from nodeplan._native import ABI_VERSION, lib
from nodeplan.v1 import (cluster_pb2, diff_pb2, disrupt_pb2, explain_pb2,
                         manifest_pb2, schedule_pb2)

__all__ = ["ABI_VERSION", "Cluster", "Snapshot", "diff", "disrupt", "explain",
           "library_version", "load_manifests", "schedule", "validate",
           "validate_command"]


def library_version():
    """The C library's release, e.g. "0.1.0"."""
    return lib.nodeplan_version().decode()


def _to_bytes(request, message_type):
    if isinstance(request, (bytes, bytearray, memoryview)):
        return bytes(request)
    if isinstance(request, message_type):
        return request.SerializeToString()
    raise TypeError(
        f"expected {message_type.DESCRIPTOR.full_name} or bytes, got "
        f"{type(request).__name__}")


def _take_error(code, error_ptr):
    try:
        text = ctypes.string_at(error_ptr.value).decode("utf-8", "replace") \
            if error_ptr.value else "(no message)"
    finally:
        lib.nodeplan_free(error_ptr)
    return _errors.make_error(code, text)


def _invoke(fn, leading_args, data, response_type):
    """Calls one operation; returns a parsed `response_type` or raises."""
    response = ctypes.c_void_p()
    response_len = ctypes.c_size_t()
    error = ctypes.c_void_p()
    code = fn(*leading_args, data, len(data), ctypes.byref(response),
              ctypes.byref(response_len), ctypes.byref(error))
    if code != 0:
        raise _take_error(code, error)
    try:
        payload = ctypes.string_at(response.value, response_len.value)
    finally:
        lib.nodeplan_free(response)
    return response_type.FromString(payload)


def schedule(request):
    """Schedules a ScheduleRequest (a message or its serialized bytes) and
    returns the ScheduleResponse."""
    data = _to_bytes(request, schedule_pb2.ScheduleRequest)
    return _invoke(lib.nodeplan_schedule, (), data,
                   schedule_pb2.ScheduleResponse)


def disrupt(request):
    """Runs Karpenter's disruption pass on a DisruptRequest (a message or its
    serialized bytes; `now` is required) and returns the DisruptResponse:
    the command of the first method that produces one, budgets, every node's
    candidacy, conditions, expirations, drains, annotations and events."""
    data = _to_bytes(request, disrupt_pb2.DisruptRequest)
    return _invoke(lib.nodeplan_disrupt, (), data,
                   disrupt_pb2.DisruptResponse)


def validate_command(request):
    """Karpenter's 15-second re-validation: a ValidateCommandRequest (the
    cluster at the later time and a command from an earlier disrupt()) ->
    ValidateCommandResponse."""
    data = _to_bytes(request, disrupt_pb2.ValidateCommandRequest)
    return _invoke(lib.nodeplan_validate_command, (), data,
                   disrupt_pb2.ValidateCommandResponse)


def explain(request):
    """An ExplainRequest (a ScheduleRequest and a pod "namespace/name" or a
    NodePool name) -> ExplainResponse: for the pod, every NodePool in the
    scheduler's order with its first failing check or why it fits; for the
    NodePool, its admitted types, limits, budgets and pods."""
    data = _to_bytes(request, explain_pb2.ExplainRequest)
    return _invoke(lib.nodeplan_explain, (), data, explain_pb2.ExplainResponse)


def diff(request):
    """A DiffRequest (the cluster before and after, as DisruptRequests;
    after.now required) -> DiffResponse: both plans' cost, NodeClaims added
    and removed, pods changing sides, NodeClaims that drift and the budgets
    pacing them."""
    data = _to_bytes(request, diff_pb2.DiffRequest)
    return _invoke(lib.nodeplan_diff, (), data, diff_pb2.DiffResponse)


def load_manifests(text, *, source_name="", skip_unknown_kinds=False):
    """Parses Kubernetes manifests (multi-document YAML or JSON as kubectl
    prints it, `kind: List` included) into a ManifestSet. `text` may be str
    or UTF-8 bytes."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    request = manifest_pb2.LoadManifestsRequest(
        text=text,
        options=manifest_pb2.LoadOptions(
            source_name=source_name, skip_unknown_kinds=skip_unknown_kinds))
    return _invoke(lib.nodeplan_load_manifests, (),
                   request.SerializeToString(), manifest_pb2.ManifestSet)


def validate(request):
    """Validates a ManifestSet (or a ValidateRequest, or its bytes) and returns
    the ValidateResponse listing every violation."""
    if isinstance(request, manifest_pb2.ManifestSet):
        request = manifest_pb2.ValidateRequest(manifests=request)
    data = _to_bytes(request, manifest_pb2.ValidateRequest)
    return _invoke(lib.nodeplan_validate, (), data,
                   manifest_pb2.ValidateResponse)


class Snapshot:
    """The compiled catalog, NodeClasses and NodePools of `base` (a
    ScheduleRequest or its bytes, holding only those fields), compiled once
    and scheduled against many times, from any number of threads.

        with nodeplan.Snapshot(base) as snap:
            plan = snap.schedule(state)   # nodes, pods, ... of the moment
    """

    def __init__(self, base):
        data = _to_bytes(base, schedule_pb2.ScheduleRequest)
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        code = lib.nodeplan_snapshot_new(data, len(data), ctypes.byref(handle),
                                         ctypes.byref(error))
        if code != 0:
            raise _take_error(code, error)
        self._handle = _Handle(handle, lib.nodeplan_snapshot_free, "Snapshot")

    def schedule(self, state):
        """Schedules `state` (nodes, nodeClaims, pods, daemonSets, volumes,
        options) against the snapshot; returns a ScheduleResponse."""
        return self._handle.call(
            lib.nodeplan_snapshot_schedule,
            _to_bytes(state, schedule_pb2.ScheduleRequest),
            schedule_pb2.ScheduleResponse)

    def close(self):
        """Releases the snapshot once no call uses it. Idempotent."""
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class _Handle:
    """A native handle released once no call uses it (close() waits for
    calls in flight instead of serializing calls)."""

    def __init__(self, handle, free, what):
        self._handle = handle
        self._free = free
        self._what = what
        self._cond = threading.Condition()
        self._in_flight = 0

    def call(self, fn, data, response_type):
        with self._cond:
            if self._handle is None:
                raise ValueError(f"nodeplan.{self._what} is closed")
            handle = self._handle
            self._in_flight += 1
        try:
            return _invoke(fn, (handle,), data, response_type)
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify_all()

    def close(self):
        with self._cond:
            while self._in_flight:
                self._cond.wait()
            handle, self._handle = self._handle, None
        if handle is not None:
            self._free(handle)


class Cluster:
    """A long-lived cluster a controller feeds with the changes its informers
    see and asks to schedule or disrupt, from any number of threads, also
    while one thread updates it.

        with nodeplan.Cluster(ClusterUpdate(upserts=manifests,
                                            catalog_ref="aws")) as c:
            c.update(ClusterUpdate(deletes=[ObjectRef(kind="Pod", ...)]))
            decision = c.disrupt(DisruptRequest(now="2026-12-02T12:00:00Z"))

    Answers do not depend on the order updates arrived in.
    """

    def __init__(self, initial=None):
        data = _to_bytes(initial if initial is not None
                         else cluster_pb2.ClusterUpdate(),
                         cluster_pb2.ClusterUpdate)
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        code = lib.nodeplan_cluster_new(data, len(data), ctypes.byref(handle),
                                        ctypes.byref(error))
        if code != 0:
            raise _take_error(code, error)
        self._handle = _Handle(handle, lib.nodeplan_cluster_free, "Cluster")

    def update(self, update):
        """Applies a ClusterUpdate (deletes, then upserts, all or nothing);
        returns a ClusterUpdateResponse."""
        return self._handle.call(
            lib.nodeplan_cluster_update,
            _to_bytes(update, cluster_pb2.ClusterUpdate),
            cluster_pb2.ClusterUpdateResponse)

    def schedule(self, request=None):
        """Plans on the cluster; `request` (a ScheduleRequest) holds only
        what-if pods, Deployments and options."""
        data = _to_bytes(request if request is not None
                         else schedule_pb2.ScheduleRequest(),
                         schedule_pb2.ScheduleRequest)
        return self._handle.call(lib.nodeplan_cluster_schedule, data,
                                 schedule_pb2.ScheduleResponse)

    def disrupt(self, request):
        """Runs the disruption pass on the cluster; `request` (a
        DisruptRequest) holds only now, options, markedForDeletion,
        providerDrifted and nominated."""
        return self._handle.call(
            lib.nodeplan_cluster_disrupt,
            _to_bytes(request, disrupt_pb2.DisruptRequest),
            disrupt_pb2.DisruptResponse)

    def close(self):
        """Releases the cluster once no call uses it. Idempotent."""
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
