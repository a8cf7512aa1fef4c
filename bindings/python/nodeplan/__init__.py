"""nodeplan: Karpenter's node-autoscaling decisions, from Python.

A thin layer over the C ABI (libnodeplan.so, through ctypes): each call
serializes a nodeplan.v1 message, calls the library once and parses the answer.

    import nodeplan
    from nodeplan.v1 import schedule_pb2

    manifests = nodeplan.load_manifests(open("cluster.yaml").read())
    request = schedule_pb2.ScheduleRequest(node_pools=manifests.node_pools, ...)
    plan = nodeplan.schedule(request)        # a ScheduleResponse

With ScheduleOptions(instance_type_encoding="Indexed") the response lists
each NodeClaim's instance-type options as indices into one table of names,
far cheaper to parse at scale; nodeplan.expand_instance_types(plan) turns it
into the usual response, nodeplan.instance_types(plan) reads the options
without expanding.

Disruption: nodeplan.disrupt(request) takes a DisruptRequest (the cluster,
its PodDisruptionBudgets and `now`) and returns what Karpenter would remove,
replace, expire and drain, and why every other node stays;
nodeplan.validate_command() re-checks a command 15 seconds later.

Errors raise nodeplan.Error (code, message); a pod that fits nowhere is an
answer (plan.unschedulable), not an error. The ABI version of the C library is
checked at import.
"""

import pkgutil

# The generated nodeplan.v1 modules live in this package once installed, or in
# the build tree's proto output during development (found on sys.path).
__path__ = pkgutil.extend_path(__path__, __name__)

from nodeplan._api import (  # noqa: E402
    ABI_VERSION,
    Cluster,
    Snapshot,
    diff,
    disrupt,
    explain,
    library_version,
    load_manifests,
    schedule,
    validate,
    validate_command,
)
from nodeplan._errors import Error, InvalidArgumentError  # noqa: E402
from nodeplan._instance_types import (  # noqa: E402
    expand_instance_types,
    instance_types,
)

__all__ = [
    "ABI_VERSION",
    "Cluster",
    "Error",
    "InvalidArgumentError",
    "Snapshot",
    "diff",
    "disrupt",
    "explain",
    "expand_instance_types",
    "instance_types",
    "library_version",
    "load_manifests",
    "schedule",
    "validate",
    "validate_command",
]
