"""Plans the seed workshop (its NodePool and NodeClass) plus a three-replica
Deployment through the Python binding, and prints the plan.

    python schedule.py <examples/workshop directory>
"""

import pathlib
import sys

import nodeplan
from nodeplan.v1 import k8s_pb2, schedule_pb2


def web_deployment():
    """The Deployment, built as a message (it could be YAML too)."""
    deployment = k8s_pb2.Deployment(api_version="apps/v1", kind="Deployment")
    deployment.metadata.name, deployment.metadata.namespace = "web", "default"
    deployment.spec.replicas = 3
    deployment.spec.selector.match_labels["app"] = "web"
    template = deployment.spec.template
    template.metadata.labels["app"] = "web"
    container = template.spec.containers.add(name="web")
    container.resources.requests.update({"cpu": "1", "memory": "1Gi"})
    return deployment


def print_plan(plan):
    print(f"plan by {plan.library_version}")
    placed = 0
    for claim in plan.new_node_claims:
        launch = claim.launch
        print(f"nodeclaim {claim.name} nodepool={claim.node_pool} "
              f"type={launch.instance_type} zone={launch.zone} "
              f"capacity={launch.capacity_type} price={launch.price:.4f} "
              f"pods={len(claim.pods)}")
        placed += len(claim.pods)
    for pod in plan.unschedulable:
        print(f"unschedulable {pod.pod}: {pod.reason}")
    print(f"total nodeclaims={len(plan.new_node_claims)} pods={placed} "
          f"unschedulable={len(plan.unschedulable)} cost={plan.cost:.4f}/hour")


def main(workshop):
    text = "\n---\n".join(
        (workshop / name).read_text()
        for name in ("nodepool-general-purpose.yaml", "nodeclass-default.yaml"))
    seed = nodeplan.load_manifests(text, source_name=str(workshop))
    request = schedule_pb2.ScheduleRequest(
        node_pools=seed.node_pools, node_classes=seed.node_classes,
        deployments=[web_deployment()], catalog_ref="aws")
    print_plan(nodeplan.schedule(request))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} <examples/workshop directory>")
    main(pathlib.Path(sys.argv[1]))
