/* Runs Karpenter's disruption pass on the workshop's second act (its
 * NodePools and NodeClass plus scale-in/cluster.yaml: inflate scaled down)
 * through nodeplan's C ABI, and prints the decision.
 *
 *   disrupt_c <examples/workshop directory>
 *
 * As schedule.c: nodeplan_load_manifests turns YAML into a ManifestSet whose
 * records are re-numbered into a DisruptRequest, and the DisruptResponse is
 * read field by field (wire.h). */
#include <nodeplan/c_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

static const char kNow[] = "2026-12-02T12:00:00Z";

/* ManifestSet field -> DisruptRequest field. */
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
    case 9:
      return 17; /* pod_disruption_budgets */
    default:
      return 0;
  }
}

/* A DisruptionCommand: method 1, reason 2, decision 3, candidates 4,
 * savings_per_hour 6. */
static void print_command(const unsigned char* p, const unsigned char* end) {
  struct field f;
  double savings = 0;
  printf("command");
  while (next_field(&p, end, &f)) {
    if (f.wire_type == 2 && f.number >= 1 && f.number <= 3) {
      printf(f.number == 1   ? " method="
             : f.number == 2 ? " reason="
                             : " decision=");
      print_text(&f);
    } else if (f.number == 6 && f.wire_type == 1) {
      savings = as_double(f.varint);
    }
  }
  printf(" savings=%.4f/hour\n", savings);
}

/* A CommandCandidate: node 1, node_pool 3, instance_type 4, price 7,
 * pods 9. */
static void print_candidate(const unsigned char* p, const unsigned char* end) {
  struct field f;
  int pods = 0;
  printf("candidate");
  while (next_field(&p, end, &f)) {
    if (f.number == 1 && f.wire_type == 2) printf(" "), print_text(&f);
    if (f.number == 3 && f.wire_type == 2) printf(" nodepool="), print_text(&f);
    if (f.number == 4 && f.wire_type == 2) printf(" type="), print_text(&f);
    if (f.number == 7 && f.wire_type == 1)
      printf(" price=%.4f", as_double(f.varint));
    if (f.number == 9 && f.wire_type == 2) ++pods;
  }
  printf(" pods=%d\n", pods);
}

int main(int argc, char** argv) {
  static const char* const kFiles[] = {
      "nodepool-default.yaml", "nodepool-general-purpose.yaml",
      "nodeclass-default.yaml", "scale-in/cluster.yaml"};
  struct buf text = {0}, load = {0}, request = {0};
  struct field f, g;
  const unsigned char *p, *end, *q, *qend;
  void* manifests = NULL;
  void* decision = NULL;
  size_t manifests_len = 0, decision_len = 0, i;
  char* error = NULL;
  int code, commands = 0, explained = 0;

  if (argc != 2) {
    fprintf(stderr, "usage: %s <examples/workshop directory>\n", argv[0]);
    return 2;
  }
  for (i = 0; i < sizeof kFiles / sizeof kFiles[0]; ++i) {
    char* yaml = read_file(argv[1], kFiles[i]);
    put(&text, yaml, strlen(yaml));
    put(&text, "\n---\n", 5);
    free(yaml);
  }
  put_bytes(&load, 1, text.data, text.len);
  code = nodeplan_load_manifests(load.data, load.len, &manifests,
                                 &manifests_len, &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "load_manifests: code %d: %s\n", code, error);
    nodeplan_free(error);
    return 1;
  }
  p = manifests;
  end = p + manifests_len;
  while (next_field(&p, end, &f)) {
    uint32_t to = request_field(f.number);
    if (to != 0 && f.wire_type == 2) put_bytes(&request, to, f.data, f.len);
  }
  put_bytes(&request, 4, "aws", 3);            /* catalog_ref */
  put_bytes(&request, 18, kNow, strlen(kNow)); /* now */
  nodeplan_free(manifests);

  code = nodeplan_disrupt(request.data, request.len, &decision, &decision_len,
                          &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "disrupt: code %d: %s\n", code, error);
    nodeplan_free(error);
    return 1;
  }
  /* DisruptResponse: commands 1, candidates 3, library_version 10. */
  p = decision;
  end = p + decision_len;
  while (next_field(&p, end, &f)) {
    if (f.number == 10 && f.wire_type == 2) {
      printf("decision by ");
      print_text(&f);
      printf("\n");
    }
  }
  p = decision;
  while (next_field(&p, end, &f)) {
    if (f.number == 1 && f.wire_type == 2) {
      ++commands;
      print_command(f.data, f.data + f.len);
      q = f.data;
      qend = f.data + f.len;
      while (next_field(&q, qend, &g)) {
        if (g.number == 4 && g.wire_type == 2) {
          print_candidate(g.data, g.data + g.len);
        }
      }
    } else if (f.number == 3 && f.wire_type == 2) {
      ++explained;
    }
  }
  printf("total commands=%d nodes=%d\n", commands, explained);
  nodeplan_free(decision);
  free(text.data);
  free(load.data);
  free(request.data);
  return 0;
}
