// nodeplan_soak: invariants at volume. Schedules many seeded random clusters
// (workload::RandomCluster) and runs Disrupt over as many random disruption
// clusters (workload::RandomDisruptionCluster), on several threads, and
// checks, for each:
//   - Verify (VerifyDisruption) finds no violation;
//   - the same request run again gives the same bytes;
//   - a second pass, seeds in reverse order on other threads, gives the same
//     bytes as the first (no state shared between calls or threads);
//   - the request with every list of input objects shuffled (pods, nodes,
//     NodeClaims, DaemonSets, Deployments, NodePools, NodeClasses, catalog
//     instance types and offerings, overlays, volumes, namespaces, PDBs, ...)
//     gives the same bytes (the canonical input order of
//     include/nodeplan/schedule.h). When it does not, each list is shuffled
//     alone to name the ones that matter. --reorder=check fails on it,
//     --reorder=report only counts.
// Not run in CI at full size (100,000 clusters); ctest runs a small one.
//
//   nodeplan_soak [--clusters N] [--threads T] [--first-seed S]
//                 [--reorder check|report|off]
//                 [--requests schedule|disrupt|both]
//                 [--packing Karpenter|Optimized]
// --packing Optimized asks every request for the Optimized packing (and
// Disrupt for its optimized consolidation): the same checks then hold for
// nodeplan's own plans, which the scheduler's rounds and the verifier meet
// only through it.
//   nodeplan_soak --print SEED [--requests schedule|disrupt]
//       writes that seed's request as JSON (the request a failing seed
//       names, for triage with the bindings or a test).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/util/json_util.h"
#include "nodeplan/digest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/schedule.h"
#include "nodeplan/verify.h"
#include "nodeplan/workload.h"

namespace {

using Rng = std::mt19937_64;

// --packing: set once before the threads start, read by every Make.
std::string g_packing;  // NOLINT: a flag

template <typename T>
void Shuffle(google::protobuf::RepeatedPtrField<T>* field, Rng& rng) {
  for (int i = field->size() - 1; i > 0; --i) {
    field->SwapElements(i, static_cast<int>(rng() % (i + 1)));
  }
}

// One list of input objects and how to shuffle it in a request.
template <typename Request>
struct Field {
  const char* name;
  std::function<void(Request&, Rng&)> shuffle;
};

// The lists ScheduleRequest and DisruptRequest share (same field names).
template <typename Request>
std::vector<Field<Request>> CommonFields() {
  return {
      {"pods", [](Request& r, Rng& g) { Shuffle(r.mutable_pods(), g); }},
      {"nodes", [](Request& r, Rng& g) { Shuffle(r.mutable_nodes(), g); }},
      {"nodeClaims",
       [](Request& r, Rng& g) { Shuffle(r.mutable_node_claims(), g); }},
      {"daemonSets",
       [](Request& r, Rng& g) { Shuffle(r.mutable_daemon_sets(), g); }},
      {"deployments",
       [](Request& r, Rng& g) { Shuffle(r.mutable_deployments(), g); }},
      {"nodePools",
       [](Request& r, Rng& g) { Shuffle(r.mutable_node_pools(), g); }},
      {"nodeClasses",
       [](Request& r, Rng& g) { Shuffle(r.mutable_node_classes(), g); }},
      {"nodeOverlays",
       [](Request& r, Rng& g) { Shuffle(r.mutable_node_overlays(), g); }},
      {"unavailableOfferings",
       [](Request& r, Rng& g) {
         Shuffle(r.mutable_unavailable_offerings(), g);
       }},
      {"persistentVolumeClaims",
       [](Request& r, Rng& g) {
         Shuffle(r.mutable_persistent_volume_claims(), g);
       }},
      {"persistentVolumes",
       [](Request& r, Rng& g) { Shuffle(r.mutable_persistent_volumes(), g); }},
      {"storageClasses",
       [](Request& r, Rng& g) { Shuffle(r.mutable_storage_classes(), g); }},
      {"csiNodes",
       [](Request& r, Rng& g) { Shuffle(r.mutable_csi_nodes(), g); }},
      {"namespaces",
       [](Request& r, Rng& g) { Shuffle(r.mutable_namespaces(), g); }},
      {"catalog.instanceTypes",
       [](Request& r, Rng& g) {
         if (r.has_catalog()) {
           Shuffle(r.mutable_catalog()->mutable_instance_types(), g);
         }
       }},
      {"catalog.instanceTypes[].offerings",
       [](Request& r, Rng& g) {
         if (!r.has_catalog()) return;
         for (auto& t : *r.mutable_catalog()->mutable_instance_types()) {
           Shuffle(t.mutable_offerings(), g);
         }
       }},
  };
}

struct Outcome {
  bool ok = false;
  std::string error;
  std::string bytes;
  std::vector<std::string> violations;
};

// One call of `plan` (Schedule or Disrupt) and, with `verify`, of the
// checker `check` (Verify or VerifyDisruption) on its answer.
template <typename Request, typename Plan, typename Check>
Outcome RunAndCheck(const Request& request, bool verify, Plan plan,
                    Check check) {
  Outcome o;
  auto resp = plan(request);
  if (!resp.ok()) {
    o.error = std::string(resp.status().message());
    return o;
  }
  o.ok = true;
  o.bytes = nodeplan::DeterministicBytes(*resp);
  if (verify) {
    for (const nodeplan::Violation& v : check(request, *resp))
      o.violations.push_back(nodeplan::FormatViolation(v));
  }
  return o;
}

struct ScheduleSubject {
  using Request = nodeplan::v1::ScheduleRequest;
  static constexpr const char* kName = "Schedule";
  static Request Make(uint64_t seed) {
    Request r = nodeplan::workload::RandomCluster(seed);
    if (!g_packing.empty()) r.mutable_options()->set_packing(g_packing);
    return r;
  }
  static Outcome Run(const Request& request, bool verify) {
    return RunAndCheck(
        request, verify, [](const Request& r) { return nodeplan::Schedule(r); },
        [](const Request& r, const nodeplan::v1::ScheduleResponse& resp) {
          return nodeplan::Verify(r, resp);
        });
  }
  static std::vector<Field<Request>> Fields() {
    return CommonFields<Request>();
  }
};

struct DisruptSubject {
  using Request = nodeplan::v1::DisruptRequest;
  static constexpr const char* kName = "Disrupt";
  static Request Make(uint64_t seed) {
    Request r = nodeplan::workload::RandomDisruptionCluster(seed);
    if (!g_packing.empty()) r.mutable_options()->set_packing(g_packing);
    return r;
  }
  static Outcome Run(const Request& request, bool verify) {
    return RunAndCheck(
        request, verify, [](const Request& r) { return nodeplan::Disrupt(r); },
        [](const Request& r, const nodeplan::v1::DisruptResponse& resp) {
          return nodeplan::VerifyDisruption(r, resp);
        });
  }
  static std::vector<Field<Request>> Fields() {
    std::vector<Field<Request>> f = CommonFields<Request>();
    f.push_back({"podDisruptionBudgets", [](Request& r, Rng& g) {
                   Shuffle(r.mutable_pod_disruption_budgets(), g);
                 }});
    f.push_back({"markedForDeletion", [](Request& r, Rng& g) {
                   Shuffle(r.mutable_marked_for_deletion(), g);
                 }});
    f.push_back({"nominated", [](Request& r, Rng& g) {
                   Shuffle(r.mutable_nominated(), g);
                 }});
    return f;
  }
};

struct Totals {
  std::atomic<int64_t> done{0}, errors{0}, violations{0}, nondeterministic{0},
      cross_thread{0}, order_dependent{0};
  std::mutex mu;
  std::map<std::string, int64_t> by_field;  // guarded by mu
};

struct Config {
  uint64_t clusters = 100000;
  uint64_t first_seed = 0;
  int threads = 2;
  std::string reorder = "check";
  std::string requests = "both";
  std::optional<uint64_t> print;
};

std::mutex print_mu;
void Report(const char* subject, uint64_t seed, const std::string& what) {
  std::lock_guard<std::mutex> lock(print_mu);
  std::fprintf(stderr, "%s seed %llu: %s\n", subject,
               static_cast<unsigned long long>(seed), what.c_str());
}

// The lists whose order alone changes the bytes of `request`'s response.
template <typename S>
std::vector<std::string> OrderDependentFields(
    const typename S::Request& request, const std::string& bytes,
    uint64_t seed) {
  std::vector<std::string> out;
  for (const Field<typename S::Request>& f : S::Fields()) {
    // A few shuffles each: one may happen to keep the order that matters.
    for (uint64_t k = 0; k < 3; ++k) {
      typename S::Request r = request;
      Rng rng(seed * 104729 + k);
      f.shuffle(r, rng);
      Outcome o = S::Run(r, /*verify=*/false);
      if (!o.ok || o.bytes != bytes) {
        out.push_back(f.name);
        break;
      }
    }
  }
  return out;
}

// Pass 1: everything but the cross-thread comparison; digests kept.
template <typename S>
void First(const Config& cfg, uint64_t i, std::vector<std::string>& digests,
           Totals& t) {
  const uint64_t seed = cfg.first_seed + i;
  const typename S::Request request = S::Make(seed);
  Outcome first = S::Run(request, /*verify=*/true);
  ++t.done;
  if (!first.ok) {
    ++t.errors;
    Report(S::kName, seed, first.error);
    return;
  }
  digests[i] = first.bytes;
  for (const std::string& v : first.violations) {
    ++t.violations;
    Report(S::kName, seed, v);
  }
  Outcome again = S::Run(request, /*verify=*/false);
  if (!again.ok || again.bytes != digests[i]) {
    ++t.nondeterministic;
    Report(S::kName, seed, "the same request gave different bytes");
  }
  if (cfg.reorder == "off") return;
  typename S::Request reordered = request;
  Rng rng(seed * 7919 + 1);
  for (const Field<typename S::Request>& f : S::Fields())
    f.shuffle(reordered, rng);
  Outcome o = S::Run(reordered, /*verify=*/false);
  if (o.ok && o.bytes == digests[i]) return;
  ++t.order_dependent;
  std::vector<std::string> fields =
      OrderDependentFields<S>(request, digests[i], seed);
  std::string names;
  for (const std::string& f : fields) names += (names.empty() ? "" : ", ") + f;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    for (const std::string& f : fields) ++t.by_field[f];
    if (fields.empty()) ++t.by_field["(only all lists together)"];
  }
  if (cfg.reorder == "check") {
    Report(S::kName, seed,
           "reordered input objects gave different bytes (order of: " +
               (names.empty() ? std::string("several lists together") : names) +
               ")");
  }
}

template <typename S>
void Second(const Config& cfg, uint64_t i,
            const std::vector<std::string>& digests, Totals& t) {
  if (digests[i].empty()) return;
  const uint64_t seed = cfg.first_seed + i;
  Outcome o = S::Run(S::Make(seed), /*verify=*/false);
  if (!o.ok || o.bytes != digests[i]) {
    ++t.cross_thread;
    Report(S::kName, seed,
           "another thread, another order of calls: different bytes");
  }
}

template <typename Fn>
void Parallel(int threads, uint64_t n, bool reverse, Fn fn) {
  std::atomic<uint64_t> next{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w) {
    pool.emplace_back([&] {
      for (uint64_t k = next++; k < n; k = next++) fn(reverse ? n - 1 - k : k);
    });
  }
  for (std::thread& th : pool) th.join();
}

// Runs both passes for one subject, prints its summary line; true when
// nothing failed.
template <typename S>
bool Soak(const Config& cfg) {
  std::vector<std::string> digests(cfg.clusters);
  Totals t;
  Parallel(cfg.threads, cfg.clusters, false,
           [&](uint64_t i) { First<S>(cfg, i, digests, t); });
  Parallel(cfg.threads, cfg.clusters, true,
           [&](uint64_t i) { Second<S>(cfg, i, digests, t); });
  std::string fields;
  for (const auto& [name, n] : t.by_field) {
    fields += (fields.empty() ? " (" : ", ") + name + " " + std::to_string(n);
  }
  if (!fields.empty()) fields += ")";
  std::printf(
      "%s: clusters %lld (seeds %llu..%llu), threads %d: errors %lld, "
      "violations %lld, nondeterministic %lld, cross-thread differences "
      "%lld, order-dependent %lld%s%s\n",
      S::kName, static_cast<long long>(t.done.load()),
      static_cast<unsigned long long>(cfg.first_seed),
      static_cast<unsigned long long>(cfg.first_seed + cfg.clusters - 1),
      cfg.threads, static_cast<long long>(t.errors.load()),
      static_cast<long long>(t.violations.load()),
      static_cast<long long>(t.nondeterministic.load()),
      static_cast<long long>(t.cross_thread.load()),
      static_cast<long long>(t.order_dependent.load()), fields.c_str(),
      cfg.reorder == "off" ? " (not checked)" : "");
  std::fflush(stdout);
  return !(t.errors || t.violations || t.nondeterministic || t.cross_thread ||
           (cfg.reorder == "check" && t.order_dependent));
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--clusters") {
      cfg.clusters = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--threads") {
      cfg.threads = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--first-seed") {
      cfg.first_seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--print") {
      cfg.print = std::strtoull(value.c_str(), nullptr, 10);
    } else if (flag == "--reorder" &&
               (value == "check" || value == "report" || value == "off")) {
      cfg.reorder = value;
    } else if (flag == "--requests" &&
               (value == "schedule" || value == "disrupt" || value == "both")) {
      cfg.requests = value;
    } else if (flag == "--packing" &&
               (value == "Karpenter" || value == "Optimized")) {
      g_packing = value;
    } else {
      std::fprintf(stderr,
                   "usage: nodeplan_soak [--clusters N] [--threads T] "
                   "[--first-seed S] [--reorder check|report|off] "
                   "[--requests schedule|disrupt|both] "
                   "[--packing Karpenter|Optimized]\n"
                   "       nodeplan_soak --print SEED "
                   "[--requests schedule|disrupt]\n");
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "nodeplan_soak: %s needs a value\n", argv[argc - 1]);
    return 2;
  }
  if (cfg.print.has_value()) {
    const bool disrupt = cfg.requests == "disrupt";
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    const auto s = disrupt
                       ? google::protobuf::util::MessageToJsonString(
                             DisruptSubject::Make(*cfg.print), &json, options)
                       : google::protobuf::util::MessageToJsonString(
                             ScheduleSubject::Make(*cfg.print), &json, options);
    if (!s.ok()) {
      std::fprintf(stderr, "nodeplan_soak: %s\n", s.ToString().c_str());
      return 1;
    }
    std::fwrite(json.data(), 1, json.size(), stdout);
    return 0;
  }
  bool ok = true;
  if (cfg.requests != "disrupt") ok = Soak<ScheduleSubject>(cfg) && ok;
  if (cfg.requests != "schedule") ok = Soak<DisruptSubject>(cfg) && ok;
  return ok ? 0 : 1;
}
