/* Compiled as C (so the build proves the header is C) and linked against
 * libnodeplan.so only: every function of the header, every output-poisoning
 * and bad-input rule of its conventions. */
#include "nodeplan/c_api.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static char poison_text[] = "poison";

/* One operation of the serialized-request shape. */
typedef int (*op_fn)(const void*, size_t, void**, size_t*, char**);
struct op {
  const char* name;
  op_fn fn;
  /* A small valid request and whether the empty request is valid. */
  const unsigned char* valid;
  size_t valid_len;
  int empty_ok;
};

static void test_versions(void) {
  const char* v = nodeplan_version();
  CHECK(v != NULL);
  CHECK(strlen(v) >= 5);
  CHECK(nodeplan_abi_version() == NODEPLAN_CAPI_ABI_VERSION);
  nodeplan_free(NULL); /* A no-op. */
}

/* Success: every output overwritten, a non-NULL response, no message. */
static void expect_success(const struct op* op, const void* req, size_t len) {
  void* resp = poison_text;
  size_t resp_len = SIZE_MAX;
  char* error = poison_text;
  int code = op->fn(req, len, &resp, &resp_len, &error);
  if (code != NODEPLAN_OK) {
    fprintf(stderr, "%s: code %d: %s\n", op->name, code,
            error == poison_text ? "(poison)" : (error ? error : "(null)"));
  }
  CHECK(code == NODEPLAN_OK);
  CHECK(resp != NULL && resp != (void*)poison_text);
  CHECK(resp_len != SIZE_MAX);
  CHECK(error == NULL);
  if (resp != (void*)poison_text) nodeplan_free(resp);
  if (error != poison_text) nodeplan_free(error);
  /* Outputs not wanted. */
  CHECK(op->fn(req, len, NULL, NULL, NULL) == NODEPLAN_OK);
}

/* Failure: every output overwritten, NULL response, a message. */
static void expect_failure(const struct op* op, const void* req, size_t len,
                           int want_code, const char* want_text) {
  void* resp = poison_text;
  size_t resp_len = SIZE_MAX;
  char* error = poison_text;
  int code = op->fn(req, len, &resp, &resp_len, &error);
  CHECK(code == want_code);
  CHECK(resp == NULL);
  CHECK(resp_len == 0);
  CHECK(error != NULL && error != poison_text);
  if (error != NULL && error != poison_text) {
    if (strstr(error, want_text) == NULL) {
      fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", op->name, error,
              want_text);
      ++failures;
    }
    nodeplan_free(error);
  }
  CHECK(op->fn(req, len, NULL, NULL, NULL) == want_code);
}

static void test_op(const struct op* op) {
  static const unsigned char garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff};
  fprintf(stderr, "testing %s\n", op->name);
  if (op->valid != NULL) expect_success(op, op->valid, op->valid_len);
  if (op->empty_ok) expect_success(op, NULL, 0);
  expect_failure(op, NULL, 7, NODEPLAN_INVALID_ARGUMENT, "NULL");
  expect_failure(op, garbage, (size_t)NODEPLAN_MAX_REQUEST_BYTES + 1,
                 NODEPLAN_INVALID_ARGUMENT, "exceeds");
  expect_failure(op, garbage, SIZE_MAX, NODEPLAN_INVALID_ARGUMENT, "exceeds");
  expect_failure(op, garbage, sizeof garbage, NODEPLAN_INVALID_ARGUMENT,
                 "does not decode");
  {
    /* A response without its length is a caller error, reported as such. */
    void* resp = poison_text;
    char* error = poison_text;
    CHECK(op->fn(NULL, 0, &resp, NULL, &error) == NODEPLAN_INVALID_ARGUMENT);
    CHECK(resp == NULL);
    CHECK(error != NULL && error != poison_text);
    if (error != poison_text) nodeplan_free(error);
  }
}

/* A LoadManifestsRequest holding `text` in field 1 (wire type 2). */
static size_t load_request(const char* text, unsigned char* out, size_t cap) {
  size_t len = strlen(text), n = 0, v = len;
  out[n++] = 0x0a;
  do {
    unsigned char b = (unsigned char)(v & 0x7f);
    v >>= 7;
    out[n++] = (unsigned char)(b | (v ? 0x80 : 0));
  } while (v);
  if (n + len > cap) return 0;
  memcpy(out + n, text, len);
  return n + len;
}

static void test_load_manifests_answers(void) {
  unsigned char req[256];
  size_t len = load_request(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: b}\n", req,
      sizeof req);
  void* resp = poison_text;
  size_t resp_len = SIZE_MAX;
  char* error = poison_text;
  CHECK(nodeplan_load_manifests(req, len, &resp, &resp_len, &error) ==
        NODEPLAN_OK);
  /* ManifestSet.pods (field 6) holds the one Pod. */
  CHECK(resp != NULL && resp_len > 2 && ((unsigned char*)resp)[0] == 0x32);
  CHECK(error == NULL);
  if (resp != (void*)poison_text) nodeplan_free(resp);

  /* Malformed YAML is INVALID_ARGUMENT with a message, never a crash. */
  len = load_request("kind: Pod\nmetadata: [unclosed\n", req, sizeof req);
  resp = poison_text;
  resp_len = SIZE_MAX;
  error = poison_text;
  CHECK(nodeplan_load_manifests(req, len, &resp, &resp_len, &error) ==
        NODEPLAN_INVALID_ARGUMENT);
  CHECK(resp == NULL && resp_len == 0);
  CHECK(error != NULL && error != poison_text && strlen(error) > 0);
  if (error != poison_text) nodeplan_free(error);
}

/* A ScheduleRequest whose options (field 14) hold instanceTypeEncoding
 * (field 6) = `encoding` (under 100 bytes: one-byte lengths). */
static size_t encoding_request(const char* encoding, unsigned char* out) {
  size_t len = strlen(encoding);
  out[0] = 0x72;
  out[1] = (unsigned char)(len + 2);
  out[2] = 0x32;
  out[3] = (unsigned char)len;
  memcpy(out + 4, encoding, len);
  return len + 4;
}

static void test_schedule_encoding_option(void) {
  static const struct op schedule = {"nodeplan_schedule", nodeplan_schedule,
                                     NULL, 0, 1};
  unsigned char req[128];
  expect_success(&schedule, req, encoding_request("Names", req));
  expect_success(&schedule, req, encoding_request("Indexed", req));
  expect_failure(&schedule, req, encoding_request("Bogus", req),
                 NODEPLAN_INVALID_ARGUMENT,
                 "options.instanceTypeEncoding: \"Bogus\" is not one of "
                 "Names, Indexed");
}

int main(void) {
  size_t i;
  static unsigned char load_req[128];
  const size_t load_len = load_request(
      "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": "
      "{\"name\": \"n\"}}",
      load_req, sizeof load_req);
  /* DisruptRequest{now: "2026-12-02T10:00:00Z"} (field 18): an empty
     cluster, a valid request. */
  static const unsigned char disrupt_req[] = {
      0x92, 0x01, 20,  '2', '0', '2', '6', '-', '1', '2', '-', '0',
      '2',  'T',  '1', '0', ':', '0', '0', ':', '0', '0', 'Z'};
  /* ValidateCommandRequest{command: {method: "drift"}}: drift commands are
     not re-validated, so always valid. */
  static const unsigned char validate_command_req[] = {
      0x12, 0x07, 0x0a, 0x05, 'd', 'r', 'i', 'f', 't'};
  const struct op ops[] = {
      {"nodeplan_load_manifests", nodeplan_load_manifests, load_req, load_len,
       1},
      {"nodeplan_validate", nodeplan_validate, NULL, 0, 1},
      {"nodeplan_disrupt", nodeplan_disrupt, disrupt_req, sizeof disrupt_req,
       0},
      {"nodeplan_validate_command", nodeplan_validate_command,
       validate_command_req, sizeof validate_command_req, 0},
  };
  test_versions();
  for (i = 0; i < sizeof ops / sizeof ops[0]; ++i) test_op(&ops[i]);
  test_load_manifests_answers();
  test_schedule_encoding_option();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_test: all checks passed\n");
  return 0;
}
