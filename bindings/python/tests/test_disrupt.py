"""Disruption through the binding: the workshop's scale-in, the request's
contract (now required), and re-validation."""

import pytest

import nodeplan
from nodeplan.v1 import disrupt_pb2

NOW = "2026-12-02T12:00:00Z"


def scale_in_request(text):
    m = nodeplan.load_manifests(text, source_name="scale-in")
    return disrupt_pb2.DisruptRequest(
        node_pools=m.node_pools, node_classes=m.node_classes,
        node_claims=m.node_claims, nodes=m.nodes, pods=m.pods,
        pod_disruption_budgets=m.pod_disruption_budgets, catalog_ref="aws",
        now=NOW)


def test_scale_in_deletes_the_underutilized_node(scale_in_text):
    resp = nodeplan.disrupt(scale_in_request(scale_in_text))
    assert isinstance(resp, disrupt_pb2.DisruptResponse)
    assert resp.method == "single-node-consolidation"
    (cmd,) = resp.commands
    assert cmd.decision == "delete"
    assert [c.node for c in cmd.candidates] == ["ip-10-0-1-23.ec2.internal"]
    assert cmd.savings_per_hour == pytest.approx(0.192)
    # Every node is explained.
    assert {c.node for c in resp.candidates} == {
        "ip-10-0-1-23.ec2.internal", "ip-10-0-1-57.ec2.internal"}


def test_bytes_in_and_out_agree(scale_in_text):
    req = scale_in_request(scale_in_text)
    assert nodeplan.disrupt(req.SerializeToString()) == nodeplan.disrupt(req)


def test_now_is_required(scale_in_text):
    req = scale_in_request(scale_in_text)
    req.ClearField("now")
    with pytest.raises(nodeplan.InvalidArgumentError, match="now"):
        nodeplan.disrupt(req)


def test_validate_command_fifteen_seconds_later(scale_in_text):
    req = scale_in_request(scale_in_text)
    cmd = nodeplan.disrupt(req).commands[0]
    later = disrupt_pb2.DisruptRequest()
    later.CopyFrom(req)
    later.now = "2026-12-02T12:00:15Z"
    ok = nodeplan.validate_command(
        disrupt_pb2.ValidateCommandRequest(request=later, command=cmd))
    assert ok.valid, ok.reason
    # The node was nominated for a pending pod meanwhile: no longer valid.
    later.nominated.append("ip-10-0-1-23.ec2.internal")
    not_ok = nodeplan.validate_command(
        disrupt_pb2.ValidateCommandRequest(request=later, command=cmd))
    assert not not_ok.valid
    assert "no longer valid" in not_ok.reason


def test_cluster_handle_updates_and_decides(scale_in_text):
    from nodeplan.v1 import cluster_pb2
    m = nodeplan.load_manifests(scale_in_text, source_name="scale-in")
    with nodeplan.Cluster(cluster_pb2.ClusterUpdate(
            upserts=m, catalog_ref="aws")) as c:
        first = c.disrupt(disrupt_pb2.DisruptRequest(now=NOW))
        assert first == nodeplan.disrupt(scale_in_request(scale_in_text))
        # inflate scaled to zero: both nodes are empty now.
        update = cluster_pb2.ClusterUpdate(deletes=[
            cluster_pb2.ObjectRef(kind="Pod", namespace=p.metadata.namespace,
                                  name=p.metadata.name) for p in m.pods])
        result = c.update(update)
        assert (result.deleted, result.generation) == (5, 2)
        assert c.disrupt(disrupt_pb2.DisruptRequest(now=NOW)).method == \
            "emptiness"
        assert c.schedule().new_node_claims == []
    with pytest.raises(ValueError, match="closed"):
        c.disrupt(disrupt_pb2.DisruptRequest(now=NOW))


def test_optimized_consolidation_is_reported_apart(scale_in_text):
    # The option flows through the C ABI: Karpenter's command keeps its
    # bytes and nodeplan's own proposal comes in `optimized`. On the
    # scale-in the Underutilized budget (10% of two nodes, rounded up) allows
    # one node, and deleting the m5.xlarge is the best one node gives.
    req = scale_in_request(scale_in_text)
    karpenter = nodeplan.disrupt(req)
    req.options.packing = "Optimized"
    resp = nodeplan.disrupt(req)
    assert list(resp.commands) == list(karpenter.commands)
    assert not karpenter.HasField("optimized")
    assert resp.HasField("optimized")
    assert not resp.optimized.HasField("command")
    assert resp.optimized.karpenter_savings_per_hour == pytest.approx(0.192)
    assert "save as much" in resp.optimized.reason
    # Deleting the m5.xlarge already saves what it costs: nothing simulated.
    assert resp.optimized.candidate_sets_tried == 0
    req.options.packing = "Cheapest"
    with pytest.raises(nodeplan.InvalidArgumentError, match="options.packing"):
        nodeplan.disrupt(req)


def test_optimized_consolidation_comes_back_with_a_proposal(consolidate_text):
    # Three m5.xlarge with 7 pods each: Karpenter replaces two by one
    # c5.large; nodeplan proposes all three into three c5.large.
    req = scale_in_request(consolidate_text)
    req.options.packing = "Optimized"
    resp = nodeplan.disrupt(req)
    (k,) = resp.commands
    assert k.method == "multi-node-consolidation"
    assert k.savings_per_hour == pytest.approx(0.299)
    o = resp.optimized
    assert o.HasField("command"), o.reason
    assert o.reason == ""
    cmd = o.command
    assert (cmd.method, cmd.reason, cmd.decision) == (
        "optimized-consolidation", "Underutilized", "replace")
    assert [c.node for c in cmd.candidates] == [
        "ip-10-0-1-23.ec2.internal", "ip-10-0-1-41.ec2.internal",
        "ip-10-0-1-88.ec2.internal"]
    assert [(r.launch.instance_type, len(r.pods)) for r in cmd.replacements] \
        == [("c5.large", 7)] * 3
    assert cmd.savings_per_hour == pytest.approx(0.321)
    assert o.karpenter_savings_per_hour == pytest.approx(0.299)
    assert o.savings_over_karpenter_per_hour == pytest.approx(0.022)
    assert o.guaranteed_savings_per_hour == pytest.approx(0.321)
    # Never among Karpenter's commands.
    assert all(c.method != "optimized-consolidation" for c in resp.commands)
    # Re-validated fifteen seconds later through the binding.
    later = disrupt_pb2.DisruptRequest()
    later.CopyFrom(req)
    later.now = "2026-12-02T12:00:15Z"
    ok = nodeplan.validate_command(
        disrupt_pb2.ValidateCommandRequest(request=later, command=cmd))
    assert ok.valid, ok.reason
    later.marked_for_deletion.append("ip-10-0-1-88.ec2.internal")
    gone = nodeplan.validate_command(
        disrupt_pb2.ValidateCommandRequest(request=later, command=cmd))
    assert not gone.valid
    assert gone.reason == "1 candidates are no longer valid"
