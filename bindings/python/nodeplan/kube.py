"""Kubernetes objects -> nodeplan messages.

Accepts objects of the official `kubernetes` Python client (V1Pod, V1Node,
... from CoreV1Api and friends), plain dicts as `kubectl get -o json` prints
them or as CustomObjectsApi returns Karpenter's NodePools, and `List`s of
either. Nothing here imports the kubernetes package: client objects are read
through their own `attribute_map`, which names each field as Kubernetes'
JSON does.

    pods = nodeplan.kube.manifest_set(core.list_namespaced_pod("default"))
    request = nodeplan.kube.schedule_request([*nodes.items, *pools["items"]])
"""

import datetime
import re

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from nodeplan.v1 import k8s_pb2, karpenter_pb2, manifest_pb2, schedule_pb2

# kind -> (message class, ManifestSet field, ScheduleRequest field or None).
KINDS = {
    "Pod": (k8s_pb2.Pod, "pods", "pods"),
    "Node": (k8s_pb2.Node, "nodes", "nodes"),
    "Namespace": (k8s_pb2.Namespace, "namespaces", "namespaces"),
    "DaemonSet": (k8s_pb2.DaemonSet, "daemon_sets", "daemon_sets"),
    "Deployment": (k8s_pb2.Deployment, "deployments", "deployments"),
    "PodDisruptionBudget": (k8s_pb2.PodDisruptionBudget,
                            "pod_disruption_budgets", None),
    "PersistentVolumeClaim": (k8s_pb2.PersistentVolumeClaim,
                              "persistent_volume_claims",
                              "persistent_volume_claims"),
    "PersistentVolume": (k8s_pb2.PersistentVolume, "persistent_volumes",
                         "persistent_volumes"),
    "StorageClass": (k8s_pb2.StorageClass, "storage_classes",
                     "storage_classes"),
    "CSINode": (k8s_pb2.CSINode, "csi_nodes", "csi_nodes"),
    "NodePool": (karpenter_pb2.NodePool, "node_pools", "node_pools"),
    "NodeClaim": (karpenter_pb2.NodeClaim, "node_claims", "node_claims"),
    "NodeClass": (karpenter_pb2.NodeClass, "node_classes", "node_classes"),
    "EC2NodeClass": (karpenter_pb2.NodeClass, "node_classes", "node_classes"),
    "NodeOverlay": (karpenter_pb2.NodeOverlay, "node_overlays",
                    "node_overlays"),
}

_CLIENT_CLASS = re.compile(r"^V\d+(?:(?:alpha|beta)\d+)?(?P<kind>[A-Z]\w*)$")


def _rfc3339(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return value.isoformat(timespec="seconds") + "Z"
        return value.isoformat(timespec="seconds")
    return value.isoformat()


def to_dict(obj):
    """The JSON form of `obj`: a kubernetes client model, dict, list or
    scalar, with Kubernetes' camelCase keys and RFC 3339 timestamps."""
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    if isinstance(obj, (datetime.datetime, datetime.date)):
        return _rfc3339(obj)
    if isinstance(obj, dict):
        return {k: to_dict(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    attribute_map = getattr(obj, "attribute_map", None)
    if isinstance(attribute_map, dict):
        out = {}
        for attr, key in attribute_map.items():
            value = getattr(obj, attr, None)
            if value is not None:
                out[key] = to_dict(value)
        return out
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")


def _kind_of(obj, data):
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind:
        return kind
    match = _CLIENT_CLASS.match(type(obj).__name__)
    return match.group("kind") if match else None


def _coerce(data, descriptor):
    """Kubernetes JSON writes int-or-string fields (maxUnavailable: 1) and
    some quantities as numbers; nodeplan keeps them as strings."""
    if not isinstance(data, dict):
        return data
    fields = {}
    for f in descriptor.fields:
        fields[f.json_name] = f
        fields[f.name] = f
    out = {}
    for key, value in data.items():
        field = fields.get(key)
        if field is None or value is None:
            out[key] = value
            continue
        out[key] = _coerce_field(value, field)
    return out


def _coerce_scalar(value, field):
    if (field.type == FieldDescriptor.TYPE_STRING
            and isinstance(value, (int, float)) and not isinstance(value, bool)):
        return str(value)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return _coerce(value, field.message_type)
    return value


def _coerce_field(value, field):
    if field.type == FieldDescriptor.TYPE_MESSAGE and \
            field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        if isinstance(value, dict):
            return {k: _coerce_scalar(v, value_field) for k, v in value.items()}
        return value
    if field.label == FieldDescriptor.LABEL_REPEATED and \
            isinstance(value, list):
        return [_coerce_scalar(v, field) for v in value]
    return _coerce_scalar(value, field)


def _items(objs):
    """Flattens lists, `kind: List` dicts and client *List objects."""
    if isinstance(objs, dict):
        kind = objs.get("kind") or ""
        if kind.endswith("List") or (not kind and
                                     isinstance(objs.get("items"), list)):
            for item in objs.get("items") or []:
                yield from _items(item)
            return
        yield objs
        return
    if isinstance(objs, (list, tuple)):
        for item in objs:
            yield from _items(item)
        return
    if type(objs).__name__.endswith("List") and \
            isinstance(getattr(objs, "items", None), list):
        yield from _items(objs.items)
        return
    yield objs


def to_message(obj, kind=None):
    """One Kubernetes object as its nodeplan message (k8s_pb2.Pod,
    karpenter_pb2.NodePool, ...). `kind` is needed only when neither the
    object nor its class names it. Unknown JSON fields are ignored."""
    data = to_dict(obj)
    kind = kind or _kind_of(obj, data)
    if kind not in KINDS:
        raise ValueError(f"nodeplan.kube: unsupported kind {kind!r}")
    message_type = KINDS[kind][0]
    message = message_type()
    try:
        json_format.ParseDict(_coerce(data, message_type.DESCRIPTOR), message,
                              ignore_unknown_fields=True)
    except json_format.ParseError as e:
        name = (data.get("metadata") or {}).get("name", "?")
        raise ValueError(f"nodeplan.kube: {kind} {name}: {e}") from e
    return message


def manifest_set(objs):
    """Objects (any mix of kinds, lists and Lists) grouped into a
    ManifestSet, as nodeplan.load_manifests would return them."""
    out = manifest_pb2.ManifestSet()
    for obj in _items(objs):
        data = to_dict(obj)
        kind = _kind_of(obj, data)
        if kind not in KINDS:
            raise ValueError(f"nodeplan.kube: unsupported kind {kind!r}")
        getattr(out, KINDS[kind][1]).append(to_message(obj, kind))
    return out


def schedule_request(objs, **fields):
    """A ScheduleRequest from objects (NodePools, NodeClasses, Nodes,
    NodeClaims, Namespaces, Pods, DaemonSets, Deployments, volumes); `fields`
    sets other ScheduleRequest fields (catalog_ref="aws", options=...)."""
    request = schedule_pb2.ScheduleRequest(**fields)
    merge_into_request(manifest_set(objs), request)
    return request


def merge_into_request(manifests, request):
    """Appends every object of a ManifestSet that a ScheduleRequest carries to
    `request` (PodDisruptionBudgets are not part of scheduling)."""
    pairs = {(set_field, request_field)
             for _, set_field, request_field in KINDS.values()
             if request_field is not None}
    for set_field, request_field in sorted(pairs):
        getattr(request, request_field).extend(getattr(manifests, set_field))
    if manifests.catalogs and not request.HasField("catalog"):
        request.catalog.CopyFrom(manifests.catalogs[0])
    return request
