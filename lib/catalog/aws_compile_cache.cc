// CompileAwsCatalogCached: CompileAwsCatalog behind a small process-wide
// cache. The disruption view compiles the embedded catalog on every call
// (about 2 ms of a 1,000-node Disrupt), always from the same few inputs.
//
// The compile is a pure function of the NodeClass, the options and the
// strings the interner holds on entry (they decide which ids the catalog's
// strings get). An entry is keyed by all three and keeps, besides the
// catalog, the strings the compile interned, in id order. A hit interns them
// into the caller's interner, which then holds exactly the strings, at the
// same ids, that the entry's own interner holds: the catalog reads names
// through the latter (CompiledCatalog keeps an Interner pointer), and every
// id it hands out means the same text in both.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catalog/shared_lru.h"
#include "nodeplan/catalog.h"
#include "nodeplan/digest.h"

namespace nodeplan {
namespace {

struct Entry {
  // The caller's strings on entry, then the compile's: the catalog's names.
  Interner names;
  std::shared_ptr<const CompiledCatalog> catalog;
  AwsCatalogStats stats;
  // Interned by the compile.
  InternedStrings interned;
};

// Process-wide, never destroyed (no destruction-order hazard).
catalog::SharedLru<Entry>& Cache() {
  static auto* const cache = new catalog::SharedLru<Entry>(8);
  return *cache;
}

// Everything the compile reads, as bytes (length-prefixed parts, so that no
// two inputs share a key).
std::string CacheKey(const v1::NodeClass* node_class,
                     const CatalogCompileOptions& options,
                     const Interner& interner) {
  std::string key;
  auto add = [&key](absl::string_view part) {
    absl::StrAppend(&key, part.size(), ":", part, ";");
  };
  add(node_class == nullptr ? "-" : DeterministicBytes(*node_class));
  for (const auto& o : options.overlays) add(DeterministicBytes(o));
  add("|");
  for (const auto& u : options.unavailable) add(DeterministicBytes(u));
  add("|");
  add(options.reservation_id_label);
  add("|");
  AppendInternerContents(interner, &key);
  return key;
}

std::shared_ptr<const CompiledCatalog> CatalogOf(std::shared_ptr<const Entry> e,
                                                 AwsCatalogStats* stats) {
  if (stats != nullptr) *stats = e->stats;
  const CompiledCatalog* catalog = e->catalog.get();
  // Shares ownership of the entry: its interner outlives the catalog.
  return std::shared_ptr<const CompiledCatalog>(std::move(e), catalog);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CompiledCatalog>> CompileAwsCatalogCached(
    const v1::NodeClass* node_class, const CatalogCompileOptions& options,
    Interner& interner, AwsCatalogStats* stats) {
  catalog::SharedLru<Entry>& cache = Cache();
  std::string key = CacheKey(node_class, options, interner);
  if (std::shared_ptr<const Entry> hit = cache.Find(key)) {
    // A failed replay interned a prefix of the compile's own strings, in
    // order: compiling now gives the uncached result.
    if (hit->interned.ReplayInto(interner))
      return CatalogOf(std::move(hit), stats);
    return CompileAwsCatalog(node_class, options, interner, stats);
  }
  auto entry = std::make_shared<Entry>();
  for (LabelKeyId id = 0; id < interner.key_count(); ++id)
    entry->names.InternKey(interner.KeyText(id));
  for (LabelValueId id = 0; id < interner.value_count(); ++id)
    entry->names.InternValue(interner.ValueText(id));
  absl::StatusOr<std::shared_ptr<const CompiledCatalog>> compiled =
      CompileAwsCatalog(node_class, options, entry->names, &entry->stats);
  if (!compiled.ok()) return compiled.status();
  entry->catalog = *std::move(compiled);
  entry->interned = InternedStrings::Since(entry->names, interner.key_count(),
                                           interner.value_count());
  if (!entry->interned.ReplayInto(interner)) {
    // Cannot happen (the entry's interner started as a copy of `interner`);
    // compile into `interner` itself rather than hand out foreign ids.
    return CompileAwsCatalog(node_class, options, interner, stats);
  }
  std::shared_ptr<const Entry> shared = std::move(entry);
  cache.Put(std::move(key), shared);
  return CatalogOf(std::move(shared), stats);
}

}  // namespace nodeplan
