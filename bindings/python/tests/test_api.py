"""The binding's contract: messages or bytes in, messages out, errors as
nodeplan.Error, the ABI checked, snapshots shared between threads."""

import concurrent.futures

import pytest

import nodeplan
from nodeplan import _native
from nodeplan.v1 import k8s_pb2, manifest_pb2, schedule_pb2

GARBAGE = b"\xff" * 11


def test_versions():
    assert nodeplan.ABI_VERSION == 1
    assert _native.lib.nodeplan_abi_version() == nodeplan.ABI_VERSION
    major, minor, patch = nodeplan.library_version().split(".")
    assert all(part.isdigit() for part in (major, minor, patch))


def test_abi_mismatch_is_refused(monkeypatch):
    # Re-run the import-time check against a library reporting ABI 2.
    import importlib
    import ctypes

    real = _native.lib

    class WrongAbi:
        def __getattr__(self, name):
            return getattr(real, name)

    wrong = WrongAbi()
    wrong.nodeplan_abi_version = ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 2)
    monkeypatch.setattr(_native.ctypes, "CDLL", lambda path: wrong)
    with pytest.raises(ImportError, match="ABI version 2.*needs ABI version 1"):
        importlib.reload(_native)
    monkeypatch.undo()
    importlib.reload(_native)


def test_load_manifests_reads_the_seed(seed_text):
    manifests = nodeplan.load_manifests(seed_text, source_name="seed.yaml")
    assert isinstance(manifests, manifest_pb2.ManifestSet)
    assert [p.metadata.name for p in manifests.node_pools] == ["general-purpose"]
    assert [c.metadata.name for c in manifests.node_classes] == ["default"]
    reqs = manifests.node_pools[0].spec.template.spec.requirements
    assert [r.key for r in reqs][0] == "karpenter.sh/capacity-type"


def test_load_manifests_accepts_bytes(seed_text):
    assert nodeplan.load_manifests(seed_text.encode()) == \
        nodeplan.load_manifests(seed_text)


def test_load_manifests_error_names_the_source():
    with pytest.raises(nodeplan.Error) as info:
        nodeplan.load_manifests("kind: Pod\nmetadata: [unclosed\n",
                                source_name="broken.yaml")
    assert info.value.code == 3
    assert info.value.code_name == "INVALID_ARGUMENT"
    assert "broken.yaml" in info.value.message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("fn", [nodeplan.schedule, nodeplan.validate])
def test_undecodable_bytes_are_invalid_argument(fn):
    with pytest.raises(nodeplan.InvalidArgumentError) as info:
        fn(GARBAGE)
    assert info.value.code == 3
    assert "does not decode" in info.value.message


@pytest.mark.parametrize("fn", [nodeplan.schedule, nodeplan.validate])
def test_wrong_type_is_a_type_error(fn):
    with pytest.raises(TypeError):
        fn(k8s_pb2.Pod())


def test_schedule_plans_the_seed(seed_text, deployment_text):
    manifests = nodeplan.load_manifests(seed_text + "---\n" + deployment_text)
    request = schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        deployments=manifests.deployments, catalog_ref="aws")
    plan = nodeplan.schedule(request)
    assert isinstance(plan, schedule_pb2.ScheduleResponse)
    assert plan.library_version == "nodeplan/" + nodeplan.library_version()
    placed = [pod for claim in plan.new_node_claims for pod in claim.pods]
    assert len(placed) == 3
    assert all(c.node_pool == "general-purpose" for c in plan.new_node_claims)
    assert not plan.unschedulable
    assert plan.cost > 0
    # Bytes in give the same answer; same input, same output bytes.
    again = nodeplan.schedule(request.SerializeToString())
    assert again.SerializeToString() == plan.SerializeToString()


def test_no_fit_is_an_answer_not_an_error(seed_text):
    manifests = nodeplan.load_manifests(seed_text)
    pod = k8s_pb2.Pod()
    pod.metadata.name, pod.metadata.namespace = "huge", "default"
    container = pod.spec.containers.add(name="c")
    container.resources.requests["cpu"] = "100000"
    request = schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        pods=[pod], catalog_ref="aws")
    plan = nodeplan.schedule(request)
    assert [u.pod for u in plan.unschedulable] == ["default/huge"]
    assert plan.unschedulable[0].reason


def test_validate_lists_violations(seed_text):
    manifests = nodeplan.load_manifests(seed_text)
    assert list(nodeplan.validate(manifests).violations) == []
    bad = manifest_pb2.ManifestSet()
    bad.CopyFrom(manifests)
    req = bad.node_pools[0].spec.template.spec.requirements[0]
    req.operator = "Sometimes"
    violations = nodeplan.validate(bad).violations
    assert violations
    assert any("operator" in v.field_path for v in violations)


def test_snapshot_schedules_from_many_threads(seed_text, deployment_text):
    manifests = nodeplan.load_manifests(seed_text + "---\n" + deployment_text)
    base = schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        catalog_ref="aws")
    state = schedule_pb2.ScheduleRequest(deployments=manifests.deployments)
    full = schedule_pb2.ScheduleRequest()
    full.CopyFrom(base)
    full.MergeFrom(state)
    expected = nodeplan.schedule(full).SerializeToString()
    with nodeplan.Snapshot(base) as snap:
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(lambda _: snap.schedule(state),
                                    range(16)))
    assert all(a.SerializeToString() == expected for a in answers)
    with pytest.raises(ValueError, match="closed"):
        snap.schedule(state)
    snap.close()  # Idempotent.


def test_snapshot_errors():
    with pytest.raises(nodeplan.InvalidArgumentError):
        nodeplan.Snapshot(GARBAGE)
    pod_in_base = schedule_pb2.ScheduleRequest(pods=[k8s_pb2.Pod()])
    with pytest.raises(nodeplan.Error) as info:
        nodeplan.Snapshot(pod_in_base)
    assert info.value.code == 3


def test_error_carries_code_and_message():
    err = nodeplan.Error(13, "boom")
    assert (err.code, err.code_name, err.message) == (13, "INTERNAL", "boom")
    assert str(err) == "INTERNAL: boom"
    assert not isinstance(err, ValueError)


def test_limits_are_resource_exhausted(seed_text, deployment_text):
    # docs/LIMITS.md: past a limit the call fails quickly with the C ABI's
    # code, naming the limit and the field.
    manifests = nodeplan.load_manifests(seed_text + "---\n" + deployment_text)
    request = schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        deployments=manifests.deployments, catalog_ref="aws")
    request.deployments[0].spec.replicas = 2147483647
    with pytest.raises(nodeplan.Error) as info:
        nodeplan.schedule(request)
    assert info.value.code_name == "RESOURCE_EXHAUSTED"
    assert "spec.replicas" in info.value.message
    assert "kMaxReplicas" in info.value.message
    request.deployments[0].spec.replicas = -1
    with pytest.raises(nodeplan.InvalidArgumentError) as bad:
        nodeplan.schedule(request)
    assert "spec.replicas: Invalid value: -1" in bad.value.message


def test_packing_option_and_cost_bound_round_trip():
    # The workshop's default NodePool and inflate's 20 replicas: Karpenter's
    # packing costs $0.277/hour, the Optimized one three c5.large.
    from conftest import WORKSHOP
    text = "---\n".join(
        (WORKSHOP / name).read_text()
        for name in ("nodepool-default.yaml", "nodeclass-default.yaml",
                     "deployment-inflate.yaml"))
    manifests = nodeplan.load_manifests(text)
    request = schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        deployments=manifests.deployments, catalog_ref="aws",
        options=schedule_pb2.ScheduleOptions(cost_bound="Compute"))
    karpenter = nodeplan.schedule(request)
    assert karpenter.packing.mode == "Karpenter"
    assert round(karpenter.cost, 3) == 0.277
    bound = karpenter.cost_bound
    assert bound.covered_pods == 20
    if bound.available:
        assert 0 < bound.lower_bound <= karpenter.cost
    else:
        assert "no LP solver" in bound.reason
    request.options.packing = "Optimized"
    optimized = nodeplan.schedule(request)
    assert optimized.packing.mode == "Optimized"
    assert round(optimized.packing.karpenter_cost, 3) == 0.277
    assert optimized.cost <= karpenter.cost
    if bound.available:
        assert round(optimized.cost, 3) == 0.255
        assert optimized.cost_bound.lower_bound == bound.lower_bound
    request.options.packing = "Cheapest"
    with pytest.raises(nodeplan.Error, match="options.packing"):
        nodeplan.schedule(request)
