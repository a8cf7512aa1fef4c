"""Runs Karpenter's disruption pass on the workshop's second act (its
NodePools and NodeClass plus scale-in/cluster.yaml: inflate scaled down)
through the Python binding, and prints the decision.

    python disrupt.py <examples/workshop directory>
"""

import pathlib
import sys

import nodeplan
from nodeplan.v1 import disrupt_pb2

FILES = ("nodepool-default.yaml", "nodepool-general-purpose.yaml",
         "nodeclass-default.yaml", "scale-in/cluster.yaml")


def main(workshop):
    text = "\n---\n".join((workshop / name).read_text() for name in FILES)
    m = nodeplan.load_manifests(text, source_name=str(workshop))
    request = disrupt_pb2.DisruptRequest(
        node_pools=m.node_pools, node_classes=m.node_classes,
        node_claims=m.node_claims, nodes=m.nodes, pods=m.pods,
        pod_disruption_budgets=m.pod_disruption_budgets, catalog_ref="aws",
        now="2026-12-02T12:00:00Z")
    decision = nodeplan.disrupt(request)
    print(f"decision by {decision.library_version}")
    for cmd in decision.commands:
        print(f"command method={cmd.method} reason={cmd.reason} "
              f"decision={cmd.decision} savings={cmd.savings_per_hour:.4f}/hour")
        for c in cmd.candidates:
            print(f"candidate {c.node} nodepool={c.node_pool} "
                  f"type={c.instance_type} price={c.price:.4f} "
                  f"pods={len(c.pods)}")
    print(f"total commands={len(decision.commands)} "
          f"nodes={len(decision.candidates)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} <examples/workshop directory>")
    main(pathlib.Path(sys.argv[1]))
