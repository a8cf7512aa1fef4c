/* Many threads at once on every operation, on one shared snapshot and on two
 * clusters that another thread updates meanwhile (one with a Deployment, one
 * with a pending Pod: the latter schedules on its compiled state, rebuilt
 * after every update; the former also disrupts, its passes sharing a
 * compiled state that updates drop); each answer must equal the one computed
 * alone first. Run plain and under
 * ThreadSanitizer (capi_threads_tsan), which reports any data race inside the
 * library.
 *
 *   c_api_threads_test <examples/workshop directory> */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodeplan/c_api.h"

enum { kThreads = 4, kRounds = 3 };

struct bytes {
  unsigned char* data;
  size_t len;
};

static void put(struct bytes* b, const void* p, size_t n) {
  b->data = realloc(b->data, b->len + n);
  if (b->data == NULL) abort();
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

static void put_field(struct bytes* b, unsigned field, const void* p,
                      size_t n) {
  unsigned char head[16];
  size_t h = 0;
  uint64_t v = (uint64_t)field << 3 | 2;
  int pass;
  for (pass = 0; pass < 2; ++pass) {
    do {
      head[h] = (unsigned char)(v & 0x7f);
      v >>= 7;
      if (v) head[h] |= 0x80;
      ++h;
    } while (v);
    v = n;
  }
  put(b, head, h);
  put(b, p, n);
}

/* The next length-delimited top-level field of a message; 0 at the end. */
static int next(const unsigned char** p, const unsigned char* end,
                unsigned* field, const unsigned char** data, size_t* len) {
  uint64_t key = 0, n = 0;
  int shift;
  for (shift = 0; *p < end; shift += 7) {
    key |= (uint64_t)(**p & 0x7f) << shift;
    if (!(*(*p)++ & 0x80)) break;
  }
  if ((key & 7) != 2) return 0;
  for (shift = 0; *p < end; shift += 7) {
    n |= (uint64_t)(**p & 0x7f) << shift;
    if (!(*(*p)++ & 0x80)) break;
  }
  if (n > (uint64_t)(end - *p)) return 0;
  *field = (unsigned)(key >> 3);
  *data = *p;
  *len = (size_t)n;
  *p += n;
  return 1;
}

static char* slurp(const char* dir, const char* name) {
  char path[4096];
  FILE* f;
  long n;
  char* text;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if ((f = fopen(path, "rb")) == NULL) exit(2);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  text = calloc((size_t)n + 1, 1);
  if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  return text;
}

typedef int (*op_fn)(const void*, size_t, void**, size_t*, char**);

static struct bytes load_req, validate_req, full_req, base_req, state_req;
static struct bytes expect_load, expect_validate, expect_full;
static nodeplan_snapshot* snapshot;
static nodeplan_cluster *cluster, *pod_cluster;
static struct bytes cluster_req, churn_update, pod_cluster_req;
static struct bytes expect_pod_cluster;
/* DisruptRequest{now} for nodeplan_cluster_disrupt, whose compiled state the
   passes share until the writer's update drops it, and its answer. */
static struct bytes disrupt_req, expect_disrupt;

static struct bytes call(op_fn fn, const struct bytes* req) {
  struct bytes out = {NULL, 0};
  void* resp = NULL;
  char* error = NULL;
  int code = fn(req->data, req->len, &resp, &out.len, &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "code %d: %s\n", code, error);
    exit(1);
  }
  out.data = malloc(out.len + 1);
  memcpy(out.data, resp, out.len);
  nodeplan_free(resp);
  return out;
}

/* Copies a response the library returned, and frees it. */
static struct bytes take(void* resp, size_t len) {
  struct bytes out;
  out.data = malloc(len + 1);
  out.len = len;
  memcpy(out.data, resp, len);
  nodeplan_free(resp);
  return out;
}

static int same(const struct bytes* a, const struct bytes* b) {
  return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Updates the cluster while the workers read it: a Namespace upserted again
 * and again changes no plan. */
static void* writer(void* arg) {
  int round;
  (void)arg;
  for (round = 0; round < kThreads * kRounds; ++round) {
    void* resp = NULL;
    size_t len = 0;
    char* error = NULL;
    nodeplan_cluster* c = round % 2 == 0 ? cluster : pod_cluster;
    if (nodeplan_cluster_update(c, churn_update.data, churn_update.len, &resp,
                                &len, &error) != NODEPLAN_OK) {
      fprintf(stderr, "cluster_update: %s\n", error);
      exit(1);
    }
    nodeplan_free(resp);
  }
  return NULL;
}

static void* worker(void* arg) {
  long* mismatches = arg;
  int round;
  for (round = 0; round < kRounds; ++round) {
    struct bytes got[7];
    void* resp = NULL;
    size_t len = 0;
    char* error = NULL;
    int i;
    got[0] = call(nodeplan_load_manifests, &load_req);
    got[1] = call(nodeplan_validate, &validate_req);
    got[2] = call(nodeplan_schedule, &full_req);
    if (nodeplan_snapshot_schedule(snapshot, state_req.data, state_req.len,
                                   &resp, &len, &error) != NODEPLAN_OK) {
      fprintf(stderr, "snapshot_schedule: %s\n", error);
      exit(1);
    }
    got[3] = take(resp, len);
    if (nodeplan_cluster_schedule(cluster, NULL, 0, &resp, &len, &error) !=
        NODEPLAN_OK) {
      fprintf(stderr, "cluster_schedule: %s\n", error);
      exit(1);
    }
    got[4] = take(resp, len);
    if (nodeplan_cluster_schedule(pod_cluster, NULL, 0, &resp, &len, &error) !=
        NODEPLAN_OK) {
      fprintf(stderr, "cluster_schedule (pod cluster): %s\n", error);
      exit(1);
    }
    got[5] = take(resp, len);
    if (nodeplan_cluster_disrupt(cluster, disrupt_req.data, disrupt_req.len,
                                 &resp, &len, &error) != NODEPLAN_OK) {
      fprintf(stderr, "cluster_disrupt: %s\n", error);
      exit(1);
    }
    got[6] = take(resp, len);
    for (i = 0; i < 7; ++i) {
      static const char* const kOps[] = {
          "load_manifests",    "validate",         "schedule",
          "snapshot_schedule", "cluster_schedule", "pod cluster_schedule",
          "cluster_disrupt"};
      const struct bytes* want = i == 0   ? &expect_load
                                 : i == 1 ? &expect_validate
                                 : i == 5 ? &expect_pod_cluster
                                 : i == 6 ? &expect_disrupt
                                          : &expect_full;
      if (!same(&got[i], want)) {
        ++*mismatches;
        fprintf(stderr, "%s: %zu bytes, expected %zu\n", kOps[i], got[i].len,
                want->len);
      }
    }
    for (i = 0; i < 7; ++i) free(got[i].data);
    (void)nodeplan_version();
    (void)nodeplan_abi_version();
  }
  return NULL;
}

int main(int argc, char** argv) {
  static const char kDeployment[] =
      "\n---\napiVersion: apps/v1\nkind: Deployment\n"
      "metadata: {name: web, namespace: default}\n"
      "spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n"
      "      - name: web\n        resources: {requests: {cpu: '1', memory: "
      "1Gi}}\n";
  static const char kPod[] =
      "\n---\napiVersion: v1\nkind: Pod\n"
      "metadata: {name: lone, namespace: default}\n"
      "spec:\n  containers:\n  - name: lone\n"
      "    resources: {requests: {cpu: '1', memory: 1Gi}}\n";
  char *pool, *cls;
  struct bytes text = {NULL, 0};
  const unsigned char *p, *end, *data;
  unsigned field;
  size_t len;
  pthread_t threads[kThreads], writer_thread;
  long mismatches[kThreads] = {0};
  long total = 0;
  char* error = NULL;
  int i;

  if (argc != 2) return 2;
  pool = slurp(argv[1], "nodepool-general-purpose.yaml");
  cls = slurp(argv[1], "nodeclass-default.yaml");
  put(&text, pool, strlen(pool));
  put(&text, "\n---\n", 5);
  put(&text, cls, strlen(cls));
  put(&text, kDeployment, strlen(kDeployment));
  put_field(&load_req, 1, text.data, text.len);

  /* Computed alone first: the expected answers. */
  expect_load = call(nodeplan_load_manifests, &load_req);
  put_field(&validate_req, 1, expect_load.data, expect_load.len);
  expect_validate = call(nodeplan_validate, &validate_req);
  p = expect_load.data;
  end = p + expect_load.len;
  while (next(&p, end, &field, &data, &len)) {
    if (field == 1)
      put_field(&full_req, 1, data, len), put_field(&base_req, 1, data, len);
    if (field == 3)
      put_field(&full_req, 2, data, len), put_field(&base_req, 2, data, len);
    if (field == 8)
      put_field(&full_req, 15, data, len), put_field(&state_req, 15, data, len);
  }
  put_field(&full_req, 4, "aws", 3);
  put_field(&base_req, 4, "aws", 3);
  expect_full = call(nodeplan_schedule, &full_req);
  if (nodeplan_snapshot_new(base_req.data, base_req.len, &snapshot, &error) !=
      NODEPLAN_OK) {
    fprintf(stderr, "snapshot_new: %s\n", error);
    return 1;
  }

  /* The pod cluster: the NodePool, the NodeClass and one pending Pod; its
     answer computed alone first. */
  {
    struct bytes pod_text = {NULL, 0}, pod_load_req = {NULL, 0}, loaded;
    void* resp = NULL;
    size_t n = 0;
    put(&pod_text, pool, strlen(pool));
    put(&pod_text, "\n---\n", 5);
    put(&pod_text, cls, strlen(cls));
    put(&pod_text, kPod, strlen(kPod));
    put_field(&pod_load_req, 1, pod_text.data, pod_text.len);
    loaded = call(nodeplan_load_manifests, &pod_load_req);
    put_field(&pod_cluster_req, 1, loaded.data, loaded.len);
    put_field(&pod_cluster_req, 4, "aws", 3);
    if (nodeplan_cluster_new(pod_cluster_req.data, pod_cluster_req.len,
                             &pod_cluster, &error) != NODEPLAN_OK ||
        nodeplan_cluster_schedule(pod_cluster, NULL, 0, &resp, &n, &error) !=
            NODEPLAN_OK) {
      fprintf(stderr, "pod cluster: %s\n", error);
      return 1;
    }
    expect_pod_cluster = take(resp, n);
    free(pod_text.data);
    free(pod_load_req.data);
    free(loaded.data);
  }

  /* ClusterUpdate{upserts: the ManifestSet, catalog_ref: "aws"}, and the
     churn: upserts {namespaces {metadata {name: "churn"}}}. */
  put_field(&cluster_req, 1, expect_load.data, expect_load.len);
  put_field(&cluster_req, 4, "aws", 3);
  if (nodeplan_cluster_new(cluster_req.data, cluster_req.len, &cluster,
                           &error) != NODEPLAN_OK) {
    fprintf(stderr, "cluster_new: %s\n", error);
    return 1;
  }
  {
    void* resp = NULL;
    size_t n = 0;
    put_field(&disrupt_req, 18, "2026-12-02T12:00:00Z", 20);
    if (nodeplan_cluster_disrupt(cluster, disrupt_req.data, disrupt_req.len,
                                 &resp, &n, &error) != NODEPLAN_OK) {
      fprintf(stderr, "cluster_disrupt: %s\n", error);
      return 1;
    }
    expect_disrupt = take(resp, n);
  }
  {
    struct bytes meta = {NULL, 0}, ns = {NULL, 0}, set = {NULL, 0};
    put_field(&meta, 1, "churn", 5);
    put_field(&ns, 3, meta.data, meta.len);
    put_field(&set, 16, ns.data, ns.len);
    put_field(&churn_update, 1, set.data, set.len);
    free(meta.data);
    free(ns.data);
    free(set.data);
  }

  pthread_create(&writer_thread, NULL, writer, NULL);
  for (i = 0; i < kThreads; ++i) {
    pthread_create(&threads[i], NULL, worker, &mismatches[i]);
  }
  for (i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], NULL);
    total += mismatches[i];
  }
  pthread_join(writer_thread, NULL);
  nodeplan_snapshot_free(snapshot);
  nodeplan_cluster_free(cluster);
  nodeplan_cluster_free(pod_cluster);
  if (total != 0) {
    fprintf(stderr, "%ld answers differed from the single-threaded ones\n",
            total);
    return 1;
  }
  printf("c_api_threads_test: %d threads x %d rounds, all answers equal\n",
         kThreads, kRounds);
  free(pool);
  free(cls);
  free(text.data);
  return 0;
}
