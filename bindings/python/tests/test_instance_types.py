"""instance_type_encoding "Indexed": the compact response, expanded into
exactly the Names response, and read without expanding."""

import pytest

import nodeplan
from nodeplan.v1 import schedule_pb2


def deterministic(message):
    return message.SerializeToString(deterministic=True)


@pytest.fixture(scope="module")
def request_names(seed_text, two_deployments_text):
    manifests = nodeplan.load_manifests(
        seed_text + "---\n" + two_deployments_text)
    return schedule_pb2.ScheduleRequest(
        node_pools=manifests.node_pools, node_classes=manifests.node_classes,
        deployments=manifests.deployments, catalog_ref="aws")


def indexed(request):
    copy = schedule_pb2.ScheduleRequest()
    copy.CopyFrom(request)
    copy.options.instance_type_encoding = "Indexed"
    return copy


def test_indexed_expands_to_the_names_bytes(request_names):
    names = nodeplan.schedule(request_names)
    compact = nodeplan.schedule(indexed(request_names))
    assert len(names.new_node_claims) > 3
    assert compact.instance_type_names
    assert list(compact.instance_type_names) == \
        sorted(set(compact.instance_type_names))
    assert all(not c.instance_types for c in compact.new_node_claims)
    assert compact.ByteSize() * 3 < names.ByteSize()
    assert nodeplan.expand_instance_types(compact) is compact
    assert deterministic(compact) == deterministic(names)


def test_snapshot_indexed_expands_to_the_names_bytes(request_names):
    base = schedule_pb2.ScheduleRequest()
    base.CopyFrom(request_names)
    base.ClearField("deployments")
    state = schedule_pb2.ScheduleRequest(
        deployments=request_names.deployments)
    with nodeplan.Snapshot(base) as snap:
        names = snap.schedule(state)
        compact = snap.schedule(indexed(state))
    assert deterministic(nodeplan.expand_instance_types(compact)) == \
        deterministic(names)


def test_instance_types_reads_either_encoding(request_names):
    names = nodeplan.schedule(request_names)
    compact = nodeplan.schedule(indexed(request_names))
    expected = [list(c.instance_types) for c in names.new_node_claims]
    assert nodeplan.instance_types(names) == expected
    lists = nodeplan.instance_types(compact)
    assert lists == expected
    # One str object per name, shared by every NodeClaim listing it.
    first = {}
    for options in lists:
        for name in options:
            assert first.setdefault(name, name) is name
    assert not compact.new_node_claims[0].instance_types  # not expanded


def test_names_and_expanded_responses_are_left_as_they_are(request_names):
    names = nodeplan.schedule(request_names)
    before = deterministic(names)
    assert deterministic(nodeplan.expand_instance_types(names)) == before
    compact = nodeplan.expand_instance_types(
        nodeplan.schedule(indexed(request_names)))
    assert deterministic(nodeplan.expand_instance_types(compact)) == before


@pytest.mark.parametrize("corrupt, message", [
    (lambda r: r.new_node_claims[1].instance_type_indices.append(
        len(r.instance_type_names)), "is not a position in instanceTypeNames"),
    (lambda r: r.new_node_claims[1].instance_type_indices.__setitem__(0, -1),
     "newNodeClaims[1].instanceTypeIndices[0]: -1 is not a position"),
    (lambda r: r.new_node_claims[1].instance_type_indices.__setitem__(
        1, r.new_node_claims[1].instance_type_indices[0]), "listed twice"),
    (lambda r: r.new_node_claims[1].instance_types.append("m5.large"),
     "has both instanceTypes and instanceTypeIndices"),
    (lambda r: r.new_node_claims[1].node_claim.spec.ClearField("requirements"),
     "requirement `In` without values"),
])
def test_malformed_responses_are_rejected_unchanged(request_names, corrupt,
                                                    message):
    compact = nodeplan.schedule(indexed(request_names))
    assert len(compact.new_node_claims[1].instance_type_indices) >= 2
    corrupt(compact)
    before = deterministic(compact)
    with pytest.raises(nodeplan.InvalidArgumentError) as info:
        nodeplan.expand_instance_types(compact)
    assert message in info.value.message
    assert deterministic(compact) == before


def test_unknown_encoding_is_invalid_argument(request_names):
    bad = indexed(request_names)
    bad.options.instance_type_encoding = "indexed"
    with pytest.raises(nodeplan.InvalidArgumentError) as info:
        nodeplan.schedule(bad)
    assert info.value.message == ('options.instanceTypeEncoding: "indexed" '
                                  'is not one of Names, Indexed')
