/* The protobuf wire format by hand, shared by the C examples: C has no
 * protobuf runtime here, and the ABI needs nothing but bytes. A real C
 * program would use a protobuf library such as upb or nanopb. */
#ifndef NODEPLAN_EXAMPLES_C_WIRE_H_
#define NODEPLAN_EXAMPLES_C_WIRE_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A growable byte buffer and protobuf wire-format writing ----------- */
struct buf {
  unsigned char* data;
  size_t len, cap;
};

static inline void put(struct buf* b, const void* p, size_t n) {
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2;
    b->data = realloc(b->data, b->cap);
    if (b->data == NULL) abort();
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

static inline void put_varint(struct buf* b, uint64_t v) {
  unsigned char c;
  do {
    c = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) c |= 0x80;
    put(b, &c, 1);
  } while (v);
}

/* A length-delimited field (strings, bytes, messages). */
static inline void put_bytes(struct buf* b, uint32_t field, const void* p,
                             size_t n) {
  put_varint(b, (uint64_t)field << 3 | 2);
  put_varint(b, n);
  put(b, p, n);
}

/* ---- Reading ------------------------------------------------------------ */
struct field {
  uint32_t number;
  uint32_t wire_type;
  uint64_t varint;           /* wire types 0, 1 (as bits) */
  const unsigned char* data; /* wire type 2 */
  size_t len;
};

static inline int get_varint(const unsigned char** p, const unsigned char* end,
                             uint64_t* v) {
  int shift = 0;
  *v = 0;
  while (*p < end && shift < 64) {
    unsigned char c = *(*p)++;
    *v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) return 1;
    shift += 7;
  }
  return 0;
}

/* Reads the next field of [*p, end); 0 at the end or on malformed input. */
static inline int next_field(const unsigned char** p, const unsigned char* end,
                             struct field* f) {
  uint64_t key, n;
  if (*p >= end || !get_varint(p, end, &key)) return 0;
  f->number = (uint32_t)(key >> 3);
  f->wire_type = (uint32_t)(key & 7);
  switch (f->wire_type) {
    case 0:
      return get_varint(p, end, &f->varint);
    case 1:
      if (end - *p < 8) return 0;
      memcpy(&f->varint, *p, 8); /* little-endian hosts */
      *p += 8;
      return 1;
    case 2:
      if (!get_varint(p, end, &n) || n > (uint64_t)(end - *p)) return 0;
      f->data = *p;
      f->len = (size_t)n;
      *p += n;
      return 1;
    case 5:
      if (end - *p < 4) return 0;
      *p += 4;
      return 1;
    default:
      return 0;
  }
}

static inline double as_double(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

static inline void print_text(const struct field* f) {
  printf("%.*s", (int)f->len, (const char*)f->data);
}

static inline char* read_file(const char* dir, const char* name) {
  char path[4096];
  FILE* f;
  long n;
  char* text;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "rb");
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  rewind(f);
  text = malloc((size_t)n + 1);
  if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) exit(1);
  text[n] = '\0';
  fclose(f);
  return text;
}

#endif /* NODEPLAN_EXAMPLES_C_WIRE_H_ */
