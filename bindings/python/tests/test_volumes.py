"""CSI volume limits through the C ABI: CSINode objects loaded from YAML, in
a one-shot ScheduleRequest and in a Cluster handle, where deleting them lifts
the limit again."""

import nodeplan
from nodeplan.v1 import cluster_pb2, schedule_pb2

# The workshop's two nodes cannot attach another EBS volume (their CSINodes
# allow none), and a pending pod mounts a fresh gp3 claim: it needs a new
# node, where the other pods' spare room would otherwise take it.
VOLUMES_YAML = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  storageClassName: gp3
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec:
  containers:
  - name: db
    image: postgres
    resources: {requests: {cpu: 100m, memory: 128Mi}}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
"""

NODES = ("ip-10-0-1-23.ec2.internal", "ip-10-0-1-57.ec2.internal")


def csi_nodes_yaml(count):
    return "".join(f"""
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: {node}}}
spec:
  drivers:
  - name: ebs.csi.aws.com
    nodeID: {node}
    allocatable: {{count: {count}}}
""" for node in NODES)


def request(m):
    return schedule_pb2.ScheduleRequest(
        node_pools=m.node_pools, node_classes=m.node_classes,
        node_claims=m.node_claims, nodes=m.nodes, pods=m.pods,
        storage_classes=m.storage_classes,
        persistent_volume_claims=m.persistent_volume_claims,
        csi_nodes=m.csi_nodes, catalog_ref="aws")


def where_db_goes(plan):
    for claim in plan.new_node_claims:
        if "default/db" in claim.pods:
            return "new"
    for node in plan.existing_nodes:
        if "default/db" in node.pods:
            return node.name
    return None


def test_csi_node_limits_apply_through_the_abi(scale_in_text):
    free = nodeplan.load_manifests(scale_in_text + "\n---\n" + VOLUMES_YAML)
    assert where_db_goes(nodeplan.schedule(request(free))) in NODES

    full = nodeplan.load_manifests(
        scale_in_text + "\n---\n" + VOLUMES_YAML + csi_nodes_yaml(0))
    assert sorted(c.metadata.name for c in full.csi_nodes) == sorted(NODES)
    plan = nodeplan.schedule(request(full))
    assert where_db_goes(plan) == "new"
    assert not plan.unschedulable
    # A limit with room left does not hold the pod back.
    roomy = nodeplan.load_manifests(
        scale_in_text + "\n---\n" + VOLUMES_YAML + csi_nodes_yaml(25))
    assert where_db_goes(nodeplan.schedule(request(roomy))) in NODES


def test_cluster_handle_tracks_csi_nodes(scale_in_text):
    full = nodeplan.load_manifests(
        scale_in_text + "\n---\n" + VOLUMES_YAML + csi_nodes_yaml(0))
    with nodeplan.Cluster(cluster_pb2.ClusterUpdate(
            upserts=full, catalog_ref="aws")) as c:
        plan = c.schedule()
        assert where_db_goes(plan) == "new"
        assert plan == nodeplan.schedule(request(full))
        # The CSINodes go (the driver was removed): the limit goes too.
        result = c.update(cluster_pb2.ClusterUpdate(deletes=[
            cluster_pb2.ObjectRef(kind="CSINode", name=n) for n in NODES]))
        assert result.deleted == 2
        assert where_db_goes(c.schedule()) in NODES
