/* Plans the seed workshop (its NodePool and NodeClass) plus a three-replica
 * Deployment through nodeplan's C ABI, and prints the plan.
 *
 *   schedule_c <examples/workshop directory>
 *
 * C has no protobuf runtime here, so this program speaks the wire format
 * directly: nodeplan_load_manifests turns YAML into a ManifestSet, whose
 * top-level records are re-numbered into a ScheduleRequest (both are flat
 * lists of the same messages), and the ScheduleResponse is read field by
 * field. A real C program would use a protobuf library such as upb or
 * nanopb; the point here is that the ABI needs nothing but bytes. */
#include <nodeplan/c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static const char kDeployment[] =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata: {name: web, namespace: default}\n"
    "spec:\n"
    "  replicas: 3\n"
    "  selector: {matchLabels: {app: web}}\n"
    "  template:\n"
    "    metadata: {labels: {app: web}}\n"
    "    spec:\n"
    "      containers:\n"
    "      - name: web\n"
    "        image: nginx\n"
    "        resources: {requests: {cpu: '1', memory: 1Gi}}\n";

/* ManifestSet field -> ScheduleRequest field for what a plan needs. */
static uint32_t request_field(uint32_t manifest_field) {
  switch (manifest_field) {
    case 1:
      return 1; /* node_pools */
    case 3:
      return 2; /* node_classes */
    case 5:
      return 6; /* nodes */
    case 2:
      return 7; /* node_claims */
    case 6:
      return 8; /* pods */
    case 7:
      return 9; /* daemon_sets */
    case 8:
      return 15; /* deployments */
    default:
      return 0; /* not part of this plan */
  }
}

static void print_claim(const unsigned char* p, const unsigned char* end,
                        int* pods_placed) {
  struct field f, g;
  int pods = 0;
  const unsigned char *q, *qend;
  printf("nodeclaim");
  while (next_field(&p, end, &f)) {
    if (f.number == 1 && f.wire_type == 2) {
      printf(" ");
      print_text(&f);
    } else if (f.number == 2 && f.wire_type == 2) {
      printf(" nodepool=");
      print_text(&f);
    } else if (f.number == 5 && f.wire_type == 2) { /* launch */
      q = f.data;
      qend = f.data + f.len;
      while (next_field(&q, qend, &g)) {
        if (g.number == 1 && g.wire_type == 2) printf(" type="), print_text(&g);
        if (g.number == 2 && g.wire_type == 2) printf(" zone="), print_text(&g);
        if (g.number == 3 && g.wire_type == 2)
          printf(" capacity="), print_text(&g);
        if (g.number == 4 && g.wire_type == 1)
          printf(" price=%.4f", as_double(g.varint));
      }
    } else if (f.number == 6 && f.wire_type == 2) {
      ++pods;
    }
  }
  printf(" pods=%d\n", pods);
  *pods_placed += pods;
}

int main(int argc, char** argv) {
  static const char* const kSeed[] = {"nodepool-general-purpose.yaml",
                                      "nodeclass-default.yaml"};
  struct buf text = {0}, load = {0}, request = {0};
  struct field f, g;
  const unsigned char *p, *end, *q, *qend;
  void* manifests = NULL;
  void* plan = NULL;
  size_t manifests_len = 0, plan_len = 0;
  char* error = NULL;
  int code, claims = 0, placed = 0, unschedulable = 0;
  double cost = 0;
  size_t i;

  if (argc != 2) {
    fprintf(stderr, "usage: %s <examples/workshop directory>\n", argv[0]);
    return 2;
  }
  if (nodeplan_abi_version() != NODEPLAN_CAPI_ABI_VERSION) {
    fprintf(stderr, "libnodeplan ABI %d, built for %d\n",
            nodeplan_abi_version(), NODEPLAN_CAPI_ABI_VERSION);
    return 1;
  }
  for (i = 0; i < 2; ++i) {
    char* yaml = read_file(argv[1], kSeed[i]);
    put(&text, yaml, strlen(yaml));
    put(&text, "\n---\n", 5);
    free(yaml);
  }
  put(&text, kDeployment, strlen(kDeployment));

  /* LoadManifestsRequest{text = 1} -> ManifestSet. */
  put_bytes(&load, 1, text.data, text.len);
  code = nodeplan_load_manifests(load.data, load.len, &manifests,
                                 &manifests_len, &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "load_manifests: code %d: %s\n", code, error);
    nodeplan_free(error);
    return 1;
  }

  /* ManifestSet -> ScheduleRequest, plus catalog_ref (4) = "aws". */
  p = manifests;
  end = p + manifests_len;
  while (next_field(&p, end, &f)) {
    uint32_t to = request_field(f.number);
    if (to != 0 && f.wire_type == 2) put_bytes(&request, to, f.data, f.len);
  }
  put_bytes(&request, 4, "aws", 3);
  nodeplan_free(manifests);

  code = nodeplan_schedule(request.data, request.len, &plan, &plan_len, &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "schedule: code %d: %s\n", code, error);
    nodeplan_free(error);
    return 1;
  }

  /* Library version first, then claims and unschedulable pods in order. */
  p = plan;
  end = p + plan_len;
  while (next_field(&p, end, &f)) {
    if (f.number == 5 && f.wire_type == 2) {
      printf("plan by ");
      print_text(&f);
      printf("\n");
    }
  }
  p = plan;
  while (next_field(&p, end, &f)) {
    if (f.number == 1 && f.wire_type == 2) {
      ++claims;
      print_claim(f.data, f.data + f.len, &placed);
    } else if (f.number == 3 && f.wire_type == 2) {
      ++unschedulable;
      q = f.data;
      qend = f.data + f.len;
      printf("unschedulable");
      while (next_field(&q, qend, &g)) {
        if (g.wire_type != 2) continue;
        printf(g.number == 1 ? " " : ": ");
        print_text(&g);
      }
      printf("\n");
    } else if (f.number == 4 && f.wire_type == 1) {
      cost = as_double(f.varint);
    }
  }
  printf("total nodeclaims=%d pods=%d unschedulable=%d cost=%.4f/hour\n",
         claims, placed, unschedulable, cost);
  nodeplan_free(plan);
  free(text.data);
  free(load.data);
  free(request.data);
  return 0;
}
