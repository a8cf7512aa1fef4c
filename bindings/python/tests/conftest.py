import os
import pathlib

import pytest

REPO = pathlib.Path(os.environ.get(
    "NODEPLAN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
WORKSHOP = REPO / "examples" / "workshop"


@pytest.fixture(scope="session")
def seed_text():
    return "---\n".join(
        (WORKSHOP / name).read_text()
        for name in ("nodepool-general-purpose.yaml", "nodeclass-default.yaml"))


DEPLOYMENT_YAML = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        resources:
          requests: {cpu: "1", memory: 1Gi}
"""


@pytest.fixture(scope="session")
def deployment_text():
    return DEPLOYMENT_YAML


@pytest.fixture(scope="session")
def two_deployments_text():
    """Two Deployments of different shapes: several NodeClaims whose option
    lists differ."""
    return (REPO / "bindings" / "testdata" / "two-deployments.yaml").read_text()


@pytest.fixture(scope="session")
def scale_in_text():
    """The workshop's second act: its NodePools and NodeClass plus the
    cluster after inflate was scaled down (examples/workshop/scale-in)."""
    names = ("nodepool-default.yaml", "nodepool-general-purpose.yaml",
             "nodeclass-default.yaml", "scale-in/cluster.yaml")
    return "\n---\n".join((WORKSHOP / name).read_text() for name in names)


@pytest.fixture(scope="session")
def consolidate_text():
    """The workshop's consolidation: three m5.xlarge with 7 of inflate's pods
    each, where nodeplan's optimized consolidation saves more than
    Karpenter's command (examples/workshop/consolidate)."""
    names = ("nodeclass-default.yaml", "consolidate/cluster.yaml")
    return "\n---\n".join((WORKSHOP / name).read_text() for name in names)
