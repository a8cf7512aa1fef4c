#ifndef NODEPLAN_TESTS_CATALOG_CATALOG_DIGEST_H_
#define NODEPLAN_TESTS_CATALOG_CATALOG_DIGEST_H_

// Digests of everything AwsCatalog and CompileCatalog produce, so that
// performance work can prove its output byte-identical to the code before it
// (catalog_digest_test.cc holds the digests of the pre-optimization code).

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/digest.h"
#include "nodeplan/interner.h"
#include "nodeplan/requirements.h"
#include "nodeplan/resources.h"
#include "nodeplan/v1/catalog.pb.h"

namespace nodeplan::testing_util {

using ::nodeplan::DeterministicBytes;
using ::nodeplan::Fnv1a64;

inline void AppendRequirements(const Requirements& reqs, const Interner& names,
                               std::string& out) {
  // Raw ids and integer parses (interning order is part of the contract:
  // ids never depend on map order) and Karpenter's text form.
  for (const Requirement& r : reqs) {
    absl::StrAppend(&out, "{", r.key(), ",", r.complement() ? 1 : 0);
    for (const LabelValue& v : r.values()) {
      absl::StrAppend(&out, ",", v.id, ":", v.is_int ? 1 : 0,
                      v.canonical_int ? 1 : 0, ":", v.int_value);
    }
    absl::StrAppend(
        &out, r.gte().has_value() ? absl::StrCat(">=", *r.gte()) : "",
        r.lte().has_value() ? absl::StrCat("<=", *r.lte()) : "",
        r.min_values().has_value() ? absl::StrCat("mv", *r.min_values()) : "",
        "}");
  }
  absl::StrAppend(&out, "|", reqs.String(names), "\n");
}

inline void AppendResources(const ResourceVector& v, std::string& out) {
  for (int r = 0; r < kFixedResources; ++r) {
    const Resource res = static_cast<Resource>(r);
    absl::StrAppend(&out, v.Present(res) ? 1 : 0, ":", v.Get(res), ",");
  }
  for (const ResourceVector::Extended& e : v.extended()) {
    absl::StrAppend(&out, "x", e.name, ":", e.milli, ",");
  }
  absl::StrAppend(&out, "\n");
}

// Every field of the compiled catalog, the interner's ids and the index's
// answers (types admitted by each single-type / per-key query).
inline std::string CompiledCatalogDump(const CompiledCatalog& c,
                                       const Interner& names) {
  std::string out;
  absl::StrAppend(&out, c.region(), "\n", c.source(), "\n", c.zone_key(), " ",
                  c.capacity_type_key(), " ", c.instance_type_key(), " ",
                  c.reservation_id_key(), "\n", names.key_count(), " ",
                  names.value_count(), "\n");
  for (int k = 0; k < names.key_count(); ++k) {
    absl::StrAppend(&out, names.KeyText(k), "\n");
  }
  for (int v = 0; v < names.value_count(); ++v) {
    absl::StrAppend(&out, names.ValueText(v), "\n");
  }
  for (const CompiledInstanceType& t : c.instance_types()) {
    absl::StrAppend(&out, t.name, " ", t.name_value.id, " ",
                    t.capacity_overlaid ? 1 : 0, " ",
                    absl::StrFormat("%.17g", t.cheapest_available_price), "\n");
    AppendRequirements(t.requirements, names, out);
    AppendResources(t.capacity, out);
    AppendResources(t.overhead, out);
    AppendResources(t.allocatable, out);
    for (const CompiledOffering& o : t.offerings) {
      absl::StrAppend(&out, o.zone.id, " ", o.capacity_type.id, " ",
                      o.reservation_id.id, " ", o.reservation_capacity, " ",
                      absl::StrFormat("%.17g", o.price), " ",
                      o.available ? 1 : 0, o.price_overlaid ? 1 : 0,
                      o.estimated_price ? 1 : 0, "\n");
      AppendRequirements(*o.requirements, names, out);
    }
    absl::StrAppend(&out, c.Find(t.name), "\n");
  }
  // The index: for every type, the types intersecting / compatible with it.
  TypeSet set;
  for (int i = 0; i < c.size(); ++i) {
    const Requirements& q = c.instance_type(i).requirements;
    if (!(c.index().type(i) == q)) absl::StrAppend(&out, "index differs ", i);
    c.index().Intersecting(q, &set);
    absl::StrAppend(&out, "i", i, ":", set.Count(), ":",
                    Fnv1a64(absl::StrJoin(set.ToVector(), ",")), "\n");
    CompatibilityOptions options{&c.well_known()};
    c.index().Compatible(q, options, &set);
    absl::StrAppend(&out, "c", i, ":", set.Count(), ":",
                    Fnv1a64(absl::StrJoin(set.ToVector(), ",")), "\n");
  }
  return out;
}

// CompiledCatalogDump plus what it leaves out (its digests are pinned): the
// well-known set and the overlays not applied.
inline std::string CompiledCatalogFullDump(const CompiledCatalog& c,
                                           const Interner& names) {
  std::string out = CompiledCatalogDump(c, names);
  absl::StrAppend(
      &out, "well-known:", absl::StrJoin(c.well_known().sorted_names(), ","),
      "|", absl::StrJoin(c.well_known().sorted_ids(), ","), "\n");
  for (const SkippedOverlay& s : c.skipped_overlays()) {
    absl::StrAppend(&out, "skipped:", s.name, "|", s.reason, "|", s.message,
                    "\n");
  }
  return out;
}

}  // namespace nodeplan::testing_util

#endif  // NODEPLAN_TESTS_CATALOG_CATALOG_DIGEST_H_
