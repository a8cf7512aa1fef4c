"""Explain and diff through the binding, on the workshop."""

import os
import pathlib

import pytest

import nodeplan
from nodeplan.v1 import diff_pb2, disrupt_pb2, explain_pb2, schedule_pb2

NOW = "2026-12-02T12:00:00Z"
WORKSHOP = pathlib.Path(os.environ.get(
    "NODEPLAN_SOURCE_DIR",
    pathlib.Path(__file__).resolve().parents[3])) / "examples" / "workshop"


@pytest.fixture(scope="module")
def workshop_text():
    """The workshop's first act: NodePools, NodeClass, the inflate
    Deployment."""
    names = ("nodepool-default.yaml", "nodepool-general-purpose.yaml",
             "nodeclass-default.yaml", "deployment-inflate.yaml")
    return "\n---\n".join((WORKSHOP / n).read_text() for n in names)


def requests(text):
    m = nodeplan.load_manifests(text, source_name="workshop")
    schedule = schedule_pb2.ScheduleRequest(
        node_pools=m.node_pools, node_classes=m.node_classes,
        node_claims=m.node_claims, nodes=m.nodes, pods=m.pods,
        deployments=m.deployments, catalog_ref="aws")
    disrupt = disrupt_pb2.DisruptRequest(
        node_pools=m.node_pools, node_classes=m.node_classes,
        node_claims=m.node_claims, nodes=m.nodes, pods=m.pods,
        deployments=m.deployments, catalog_ref="aws", now=NOW)
    return schedule, disrupt


def test_explain_pod_names_each_nodepool(workshop_text):
    schedule, _ = requests(workshop_text)
    resp = nodeplan.explain(
        explain_pb2.ExplainRequest(request=schedule, pod="default/inflate-0"))
    assert [(c.node_pool, c.failed_check) for c in resp.pod.node_pools] == [
        ("general-purpose", "requirements"), ("default", "")]
    assert resp.pod.outcome == "NodeClaim"


def test_explain_unknown_pod_is_an_error(workshop_text):
    schedule, _ = requests(workshop_text)
    with pytest.raises(nodeplan.Error, match="default/nope"):
        nodeplan.explain(
            explain_pb2.ExplainRequest(request=schedule, pod="default/nope"))


def test_diff_of_an_unchanged_cluster_is_empty(scale_in_text):
    _, disrupt = requests(scale_in_text)
    resp = nodeplan.diff(diff_pb2.DiffRequest(before=disrupt, after=disrupt))
    assert not resp.added and not resp.removed and not resp.drifted
    assert resp.cost_before == resp.cost_after
