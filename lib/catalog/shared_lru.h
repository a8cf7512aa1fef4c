#ifndef NODEPLAN_LIB_CATALOG_SHARED_LRU_H_
#define NODEPLAN_LIB_CATALOG_SHARED_LRU_H_

// A small thread-safe map from byte-string keys to immutable shared values,
// least recently used evicted beyond a fixed number of entries: the
// process-wide memo of the compiled embedded catalog (CompileAwsCatalogCached)
// and of the scheduler's translation of it (scheduling/compile.cc). Keys
// hold every input of the memoized computation; values are never modified
// once put, so that callers share them across threads.

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace nodeplan::catalog {

template <typename Value>
class SharedLru {
 public:
  struct Stats {
    int64_t hits = 0, misses = 0, entries = 0;
  };

  explicit SharedLru(size_t capacity) : capacity_(capacity) {}

  // The value under `key` (now the most recently used), or null.
  std::shared_ptr<const Value> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      ++stats_.hits;
      return entries_.front().second;
    }
    ++stats_.misses;
    return nullptr;
  }

  // Keeps the first value put under a key (another caller may have filled
  // it meanwhile; both computed the same).
  void Put(std::string key, std::shared_ptr<const Value> value) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : entries_)
      if (e.first == key) return;
    entries_.emplace_front(std::move(key), std::move(value));
    if (entries_.size() > capacity_) entries_.pop_back();
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    stats_ = {};
  }

  Stats GetStats() {
    std::lock_guard<std::mutex> lock(mu_);
    Stats s = stats_;
    s.entries = static_cast<int64_t>(entries_.size());
    return s;
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const Value>>> entries_;
  Stats stats_;
};

}  // namespace nodeplan::catalog

#endif  // NODEPLAN_LIB_CATALOG_SHARED_LRU_H_
