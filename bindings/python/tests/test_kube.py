"""nodeplan.kube: objects of the official kubernetes client and kubectl JSON
dicts into nodeplan messages."""

import datetime

import pytest
from kubernetes import client

from nodeplan import kube
from nodeplan.v1 import k8s_pb2, karpenter_pb2, schedule_pb2


def _pod():
    return client.V1Pod(
        metadata=client.V1ObjectMeta(
            name="web-1", namespace="default", labels={"app": "web"},
            creation_timestamp=datetime.datetime(
                2024, 5, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)),
        spec=client.V1PodSpec(
            node_selector={"kubernetes.io/arch": "amd64"},
            host_network=True,
            tolerations=[client.V1Toleration(
                key="dedicated", operator="Equal", value="web",
                effect="NoExecute", toleration_seconds=300)],
            containers=[client.V1Container(
                name="web", image="nginx",
                resources=client.V1ResourceRequirements(
                    requests={"cpu": "250m", "memory": "512Mi"}))]))


def test_client_pod_becomes_a_pod_message():
    pod = kube.to_message(_pod())
    assert isinstance(pod, k8s_pb2.Pod)
    assert pod.metadata.name == "web-1"
    assert pod.metadata.creation_timestamp == "2024-05-01T12:00:00Z"
    assert dict(pod.spec.node_selector) == {"kubernetes.io/arch": "amd64"}
    assert pod.spec.host_network
    assert pod.spec.tolerations[0].toleration_seconds == 300
    assert dict(pod.spec.containers[0].resources.requests) == {
        "cpu": "250m", "memory": "512Mi"}


def test_client_node_becomes_a_node_message():
    node = client.V1Node(
        metadata=client.V1ObjectMeta(name="ip-10-0-1-23",
                                     labels={"topology.kubernetes.io/zone":
                                             "us-east-1a"}),
        spec=client.V1NodeSpec(provider_id="aws:///us-east-1a/i-0abc",
                               taints=[client.V1Taint(key="k", value="v",
                                                      effect="NoSchedule")]),
        status=client.V1NodeStatus(allocatable={"cpu": "3920m", "pods": "58"}))
    message = kube.to_message(node)
    assert isinstance(message, k8s_pb2.Node)
    assert message.spec.provider_id == "aws:///us-east-1a/i-0abc"
    assert message.spec.taints[0].effect == "NoSchedule"
    assert message.status.allocatable["pods"] == "58"


NODEPOOL = {  # As CustomObjectsApi.get_cluster_custom_object returns it.
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
    "metadata": {"name": "general-purpose", "generation": 1},
    "spec": {
        "weight": 10,
        "limits": {"cpu": 1000},
        "disruption": {"consolidateAfter": "30s",
                       "budgets": [{"nodes": "10%"}]},
        "template": {"spec": {
            "nodeClassRef": {"group": "eks.amazonaws.com",
                             "kind": "NodeClass", "name": "default"},
            "requirements": [{"key": "eks.amazonaws.com/instance-generation",
                              "operator": "Gt", "values": [4]}],
            "expireAfter": "336h"}},
    },
    "status": {"conditions": [{"type": "Ready", "status": "True"}]},
}


def test_nodepool_dict_with_numbers_where_strings_belong():
    pool = kube.to_message(NODEPOOL)
    assert isinstance(pool, karpenter_pb2.NodePool)
    assert pool.spec.weight == 10
    assert pool.spec.limits["cpu"] == "1000"
    req = pool.spec.template.spec.requirements[0]
    assert (req.key, req.operator, list(req.values)) == (
        "eks.amazonaws.com/instance-generation", "Gt", ["4"])


def test_int_or_string_fields_from_kubectl_json():
    pdb = kube.to_message({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"maxUnavailable": 1,
                 "selector": {"matchLabels": {"app": "web"}}}})
    assert pdb.spec.max_unavailable == "1"


def test_lists_and_mixed_kinds_make_a_manifest_set():
    pods = client.V1PodList(items=[_pod(), _pod()])
    kubectl_list = {"apiVersion": "v1", "kind": "List",
                    "metadata": {"resourceVersion": ""},
                    "items": [NODEPOOL]}
    manifests = kube.manifest_set([pods, kubectl_list])
    assert len(manifests.pods) == 2
    assert [p.metadata.name for p in manifests.node_pools] == [
        "general-purpose"]


def test_schedule_request_routes_kinds():
    request = kube.schedule_request([_pod(), NODEPOOL], catalog_ref="aws")
    assert isinstance(request, schedule_pb2.ScheduleRequest)
    assert request.catalog_ref == "aws"
    assert len(request.pods) == 1 and len(request.node_pools) == 1


def test_namespaces_reach_the_request_with_their_labels():
    namespace = client.V1Namespace(metadata=client.V1ObjectMeta(
        name="data", labels={"team": "data"}))
    request = kube.schedule_request([namespace, _pod()])
    assert [n.metadata.name for n in request.namespaces] == ["data"]
    assert request.namespaces[0].metadata.labels["team"] == "data"


def test_unsupported_kind_is_named():
    with pytest.raises(ValueError, match="ConfigMap"):
        kube.to_message({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "x"}})


def test_malformed_object_names_kind_and_name():
    with pytest.raises(ValueError, match="Pod web-1"):
        kube.to_message({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "web-1"},
                         "spec": {"containers": "not-a-list"}})
