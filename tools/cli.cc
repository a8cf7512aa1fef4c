#include "cli.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/util/json_util.h"
#include "nodeplan/catalog.h"
#include "nodeplan/compiled_catalog.h"
#include "nodeplan/diff.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/explain.h"
#include "nodeplan/hash.h"
#include "nodeplan/interner.h"
#include "nodeplan/labels.h"
#include "nodeplan/manifest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/validate.h"
#include "render.h"
#include "render_diff.h"
#include "render_disrupt.h"
#include "render_explain.h"
#include "render_html.h"

namespace nodeplan::cli {
namespace {

constexpr int kExitViolations = 1;
constexpr int kExitBadInput = 2;

// Why a command failed: bad input, reported on stderr.
struct Failure {
  std::string message;
};

absl::StatusOr<v1::ManifestSet> Load(const std::vector<std::string>& files) {
  v1::LoadOptions options;
  // A directory of manifests may hold Services, ConfigMaps...: skipped and
  // reported as findings rather than failing the run.
  options.set_skip_unknown_kinds(true);
  options.set_record_origins(true);
  return LoadManifestFiles(files, options);
}

void PrintFindings(const v1::ManifestSet& set, std::ostream& err) {
  for (const v1::Finding& f : set.findings()) {
    err << "nodeplan: warning: " << f.object();
    if (!f.field_path().empty()) err << ": " << f.field_path();
    err << ": " << f.message() << "\n";
  }
}

// Object -> "nodepool.yaml: document 1 (line 1)", from the loader, so that a
// violation names the file a person has to edit among many (two objects of
// one name: the first).
class Locations {
 public:
  explicit Locations(const v1::ManifestSet& set) {
    for (const v1::ObjectOrigin& origin : set.origins()) {
      by_object_.try_emplace(origin.object(), origin.location());
    }
  }

  std::string ViolationLine(const v1::FieldViolation& v) const {
    std::string line =
        absl::StrCat(v.object(), ": ", v.field_path(), ": ", v.message());
    auto it = by_object_.find(v.object());
    if (it == by_object_.end()) return line;
    return absl::StrCat(it->second, ": ", line);
  }

 private:
  absl::flat_hash_map<std::string, std::string> by_object_;
};

// Violations of the Karpenter objects (the API server would have refused
// them); pod findings are answers of `schedule`, not input errors.
std::vector<std::string> KarpenterObjectViolations(const v1::ManifestSet& set) {
  v1::ManifestSet karpenter;
  *karpenter.mutable_node_pools() = set.node_pools();
  *karpenter.mutable_node_claims() = set.node_claims();
  *karpenter.mutable_node_overlays() = set.node_overlays();
  std::vector<std::string> lines;
  const v1::ValidateResponse response = Validate(karpenter);
  const Locations locations(set);
  for (const v1::FieldViolation& v : response.violations()) {
    lines.push_back(locations.ViolationLine(v));
  }
  return lines;
}

// The files of a planning command (schedule, disrupt, explain): loaded, the
// loader's findings on stderr, and refused when a Karpenter object is
// invalid. (An optional so the callers keep reading `set->`.)
std::optional<v1::ManifestSet> LoadCluster(
    const std::vector<std::string>& files, std::ostream& err) {
  absl::StatusOr<v1::ManifestSet> set = Load(files);
  if (!set.ok()) throw Failure{std::string(set.status().message())};
  PrintFindings(*set, err);
  if (std::vector<std::string> v = KarpenterObjectViolations(*set);
      !v.empty()) {
    throw Failure{absl::StrJoin(v, "\n")};
  }
  return *std::move(set);
}

const v1::NodeClass* FindNodeClass(const v1::ManifestSet& set,
                                   const v1::NodePool* np) {
  if (np == nullptr) {
    return set.node_classes().empty() ? nullptr : &set.node_classes(0);
  }
  const std::string& name =
      np->spec().template_().spec().node_class_ref().name();
  for (const v1::NodeClass& nc : set.node_classes()) {
    if (nc.metadata().name() == name) return &nc;
  }
  return nullptr;
}

// --catalog FILE (not "aws", the embedded catalog): one Catalog document.
absl::StatusOr<v1::Catalog> LoadCatalogFile(const std::string& ref) {
  absl::StatusOr<v1::ManifestSet> set = Load({ref});
  if (!set.ok()) return set.status();
  if (set->catalogs_size() != 1) {
    // Say why a document did not count (a skipped kind, e.g. a Catalog of
    // another apiVersion), not only how many did.
    std::string why;
    for (const v1::Finding& f : set->findings()) {
      absl::StrAppend(&why, "\n  ", f.object(), ": ", f.message());
    }
    return absl::InvalidArgumentError(absl::StrCat(
        ref, ": --catalog needs exactly one Catalog document (apiVersion ",
        "nodeplan.dev/v1, kind Catalog), found ", set->catalogs_size(), why));
  }
  // An empty catalog means nothing can launch; a request without a catalog
  // would plan on the embedded one instead, which is not what was asked.
  if (set->catalogs(0).instance_types().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ref,
        ": instanceTypes: the catalog has no instance types, so nothing could "
        "launch; use --catalog aws for the embedded catalog"));
  }
  return set->catalogs(0);
}

std::string Cores(int64_t milli) {
  return absl::StrFormat("%.2f", static_cast<double>(milli) / 1000.0);
}

std::string Gibibytes(int64_t bytes) {
  return absl::StrFormat("%.1fGi", static_cast<double>(bytes) / (1 << 30));
}

// ---- validate ---------------------------------------------------------------

struct ValidateArgs {
  std::vector<std::string> files;
  std::string output = "text";
};

int RunValidate(const ValidateArgs& args, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<v1::ManifestSet> set = Load(args.files);
  if (!set.ok()) throw Failure{std::string(set.status().message())};
  PrintFindings(*set, err);
  const v1::ValidateResponse response = Validate(*set);
  if (args.output == "json" || args.output == "yaml") {
    absl::StatusOr<std::string> text =
        args.output == "json" ? RenderJson(response) : RenderYaml(response);
    if (!text.ok()) throw Failure{std::string(text.status().message())};
    out << *text;
  } else if (response.violations().empty()) {
    out << "No violations: " << set->node_pools_size() << " NodePools, "
        << set->node_claims_size() << " NodeClaims, "
        << set->node_overlays_size() << " NodeOverlays, " << set->pods_size()
        << " Pods, " << set->deployments_size() << " Deployments checked.\n";
  } else {
    const Locations locations(*set);
    for (const v1::FieldViolation& v : response.violations()) {
      out << locations.ViolationLine(v) << "\n";
    }
    out << response.violations_size() << " violation"
        << (response.violations_size() == 1 ? "" : "s") << "\n";
  }
  return response.violations().empty() ? 0 : kExitViolations;
}

// ---- hash -------------------------------------------------------------------

int RunHash(const std::vector<std::string>& files, std::ostream& out,
            std::ostream& err) {
  absl::StatusOr<v1::ManifestSet> set = Load(files);
  if (!set.ok()) throw Failure{std::string(set.status().message())};
  PrintFindings(*set, err);
  if (set->node_pools().empty()) throw Failure{"no NodePool in the input"};
  std::vector<std::vector<std::string>> rows = {{"NODEPOOL", "HASH", "STORED"}};
  for (const v1::NodePool& np : set->node_pools()) {
    absl::StatusOr<std::string> hash = NodePoolHash(np);
    if (!hash.ok()) throw Failure{std::string(hash.status().message())};
    auto stored =
        np.metadata().annotations().find(labels::kNodePoolHashAnnotation);
    std::string note = "-";
    if (stored != np.metadata().annotations().end()) {
      note = stored->second == *hash
                 ? "matches"
                 : absl::StrCat("differs (", stored->second, ")");
    }
    rows.push_back({np.metadata().name(), *hash, note});
  }
  out << FormatColumns(rows, {}, "");
  return 0;
}

// ---- catalog ----------------------------------------------------------------

struct CatalogArgs {
  std::vector<std::string> files;
  std::string catalog = "aws";
  bool rejected = false;
};

void PrintAdmitted(const CompiledCatalog& catalog,
                   const std::vector<AdmittedInstanceType>& admitted,
                   const Interner& names, std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {
      {"TYPE", "$/HOUR", "ZONE", "CAPACITY", "CPU", "MEMORY", "PODS"}};
  for (const AdmittedInstanceType& a : admitted) {
    const CompiledInstanceType& t = catalog.instance_type(a.type);
    const CompiledOffering& o = t.offerings[a.offering];
    rows.push_back({t.name, absl::StrFormat("%.4f", a.price),
                    std::string(names.ValueText(o.zone.id)),
                    std::string(names.ValueText(o.capacity_type.id)),
                    Cores(t.allocatable.cpu_milli()),
                    Gibibytes(t.allocatable.memory()),
                    absl::StrCat(t.allocatable.pods())});
  }
  out << FormatColumns(rows, {false, true, false, false, true, true, true},
                       "  ");
}

int RunCatalog(const CatalogArgs& args, std::ostream& out, std::ostream& err) {
  v1::ManifestSet set;
  if (!args.files.empty()) {
    absl::StatusOr<v1::ManifestSet> loaded = Load(args.files);
    if (!loaded.ok()) throw Failure{std::string(loaded.status().message())};
    set = *std::move(loaded);
    PrintFindings(set, err);
    if (std::vector<std::string> v = KarpenterObjectViolations(set);
        !v.empty()) {
      throw Failure{absl::StrJoin(v, "\n")};
    }
  }
  // Each NodePool is matched against the catalog its own NodeClass gives.
  struct Compiled {
    Interner interner;
    std::shared_ptr<const CompiledCatalog> catalog;
  };
  const std::vector<v1::NodeOverlay> overlays(set.node_overlays().begin(),
                                              set.node_overlays().end());
  auto compile = [&](const v1::NodePool* np) {
    auto result = std::make_unique<Compiled>();
    CatalogCompileOptions options;
    options.overlays = overlays;
    const v1::NodeClass* node_class = FindNodeClass(set, np);
    absl::StatusOr<std::shared_ptr<const CompiledCatalog>> compiled;
    if (args.catalog == "aws") {
      // The embedded catalog compiled straight from its rows.
      compiled = CompileAwsCatalog(node_class, options, result->interner);
    } else {
      absl::StatusOr<v1::Catalog> catalog = LoadCatalogFile(args.catalog);
      if (!catalog.ok()) {
        throw Failure{std::string(catalog.status().message())};
      }
      compiled = CompileCatalog(*catalog, options, result->interner);
    }
    if (!compiled.ok()) throw Failure{std::string(compiled.status().message())};
    result->catalog = *std::move(compiled);
    return result;
  };

  std::string rendered;
  if (set.node_pools().empty()) {
    std::unique_ptr<Compiled> c = compile(nullptr);
    const CompiledCatalog& cc = *c->catalog;
    // No NodePool: every type with an available offering, by price.
    std::vector<AdmittedInstanceType> all;
    for (int t = 0; t < cc.size(); ++t) {
      int best = -1;
      const auto& offerings = cc.instance_type(t).offerings;
      for (int o = 0; o < static_cast<int>(offerings.size()); ++o) {
        if (offerings[o].available &&
            (best < 0 || offerings[o].price < offerings[best].price)) {
          best = o;
        }
      }
      if (best >= 0) all.push_back({t, best, offerings[best].price});
    }
    std::stable_sort(
        all.begin(), all.end(),
        [](const AdmittedInstanceType& a, const AdmittedInstanceType& b) {
          return a.price < b.price;
        });
    std::ostringstream s;
    s << all.size() << " instance types with an available offering (of "
      << cc.size() << ")\nSource: " << cc.source() << "\n";
    PrintAdmitted(cc, all, c->interner, s);
    rendered = s.str();
  }
  for (const v1::NodePool& np : set.node_pools()) {
    std::unique_ptr<Compiled> c = compile(&np);
    const CompiledCatalog& cc = *c->catalog;
    Interner call(&c->interner);
    absl::StatusOr<NodePoolInstanceTypes> types =
        InstanceTypesForNodePool(cc, np, call);
    if (!types.ok()) throw Failure{std::string(types.status().message())};
    std::ostringstream s;
    s << "NodePool " << np.metadata().name() << ": " << types->admitted.size()
      << " of " << cc.size() << " instance types admitted\n";
    PrintAdmitted(cc, types->admitted, call, s);
    if (args.rejected) {
      s << "Rejected: " << types->rejected.size() << "\n";
      std::vector<std::vector<std::string>> rows = {{"TYPE", "REASON"}};
      for (const RejectedInstanceType& r : types->rejected) {
        rows.push_back({cc.instance_type(r.type).name,
                        RejectionText(cc, *types, r, call)});
      }
      s << FormatColumns(rows, {}, "  ");
    }
    rendered += s.str();
  }
  out << rendered;
  return 0;
}

// ---- schedule ---------------------------------------------------------------

struct ScheduleArgs {
  std::vector<std::string> files;
  std::string catalog = "aws";
  std::string output = "table";
  std::string preference_policy = "Respect";
  std::string min_values_policy = "Strict";
  int max_instance_types = 0;
  bool apply_ready = false;
  std::string packing = "Karpenter";
  bool compare_packing = false;
  bool cost_bound = true;
};

// "aws": the embedded catalog, built per NodeClass (each NodePool launches
// from its own NodeClass's catalog); a file is read here and serves every
// NodePool.
template <typename Request>
void SetCatalog(const std::string& ref, Request* request) {
  if (ref == "aws") {
    request->set_catalog_ref("aws");
    return;
  }
  absl::StatusOr<v1::Catalog> catalog = LoadCatalogFile(ref);
  if (!catalog.ok()) throw Failure{std::string(catalog.status().message())};
  *request->mutable_catalog() = *std::move(catalog);
}

// The objects a ScheduleRequest and a DisruptRequest share, field for field.
template <typename Request>
void CopyCluster(const v1::ManifestSet& set, Request* request) {
  *request->mutable_node_pools() = set.node_pools();
  *request->mutable_node_classes() = set.node_classes();
  *request->mutable_node_overlays() = set.node_overlays();
  *request->mutable_nodes() = set.nodes();
  *request->mutable_node_claims() = set.node_claims();
  *request->mutable_pods() = set.pods();
  *request->mutable_daemon_sets() = set.daemon_sets();
  *request->mutable_persistent_volume_claims() = set.persistent_volume_claims();
  *request->mutable_persistent_volumes() = set.persistent_volumes();
  *request->mutable_storage_classes() = set.storage_classes();
  *request->mutable_csi_nodes() = set.csi_nodes();
  *request->mutable_deployments() = set.deployments();
  *request->mutable_namespaces() = set.namespaces();
}

v1::ScheduleRequest BuildRequest(const v1::ManifestSet& set,
                                 const ScheduleArgs& args) {
  v1::ScheduleRequest request;
  CopyCluster(set, &request);
  v1::ScheduleOptions* options = request.mutable_options();
  options->set_preference_policy(args.preference_policy);
  options->set_min_values_policy(args.min_values_policy);
  options->set_max_instance_types(args.max_instance_types);
  if (args.packing != "Karpenter") options->set_packing(args.packing);
  // The library skips the bound unless asked (it can double a large
  // call's time); a person reading a plan wants it.
  options->set_cost_bound(args.cost_bound ? "Compute" : "Skip");
  return request;
}

int RunSchedule(const ScheduleArgs& args, std::ostream& out,
                std::ostream& err) {
  if (args.apply_ready && args.output != "yaml") {
    throw Failure{"--apply-ready needs -o yaml"};
  }
  const std::optional<v1::ManifestSet> set = LoadCluster(args.files, err);
  v1::ScheduleRequest request = BuildRequest(*set, args);
  SetCatalog(args.catalog, &request);
  absl::StatusOr<v1::ScheduleResponse> response = Schedule(request);
  if (!response.ok()) throw Failure{std::string(response.status().message())};
  absl::StatusOr<std::string> text;
  if (args.output == "json") {
    text = RenderJson(*response);
  } else if (args.output == "yaml") {
    text =
        args.apply_ready ? RenderApplyReady(*response) : RenderYaml(*response);
  } else if (args.output == "html") {
    text = RenderPicture(SchedulePicture(request, *response));
  } else {
    text = RenderScheduleTable(
        *response, {set->node_pools().begin(), set->node_pools().end()});
  }
  if (!text.ok()) throw Failure{std::string(text.status().message())};
  out << *text;
  if (args.compare_packing && args.output == "table") {
    // The other mode's plan of the same request, for its cost.
    v1::ScheduleRequest other = request;
    other.mutable_options()->set_packing(
        args.packing == "Optimized" ? "Karpenter" : "Optimized");
    other.mutable_options()->set_cost_bound("Skip");
    absl::StatusOr<v1::ScheduleResponse> o = Schedule(other);
    if (!o.ok()) throw Failure{std::string(o.status().message())};
    const v1::ScheduleResponse& opt =
        args.packing == "Optimized" ? *response : *o;
    const double k = opt.packing().karpenter_cost(), c = opt.cost();
    out << absl::StrFormat(
        "Packing: Karpenter $%.3f/hour, Optimized $%.3f/hour", k, c);
    if (c < k - 1e-9) {
      out << absl::StrFormat(" (%.1f%% less: %s)", (1 - c / k) * 100,
                             opt.packing().improvement());
    } else {
      out << " (no cheaper packing found)";
    }
    out << "\n";
  }
  return 0;
}

// ---- disrupt ----------------------------------------------------------------

struct DisruptArgs {
  std::vector<std::string> files;
  std::string catalog = "aws";
  std::string output = "table";
  std::string now;
  bool spot_to_spot = false;
  std::vector<std::string> marked_for_deletion;
  std::vector<std::string> provider_drifted;
  std::string validate;
  std::string packing = "Karpenter";
};

v1::DisruptRequest BuildDisruptRequest(const v1::ManifestSet& set,
                                       const DisruptArgs& args) {
  v1::DisruptRequest request;
  CopyCluster(set, &request);
  *request.mutable_pod_disruption_budgets() = set.pod_disruption_budgets();
  request.set_now(args.now);
  request.mutable_options()->set_spot_to_spot_consolidation(args.spot_to_spot);
  if (args.packing != "Karpenter") {
    request.mutable_options()->set_packing(args.packing);
  }
  for (const std::string& n : args.marked_for_deletion) {
    for (absl::string_view part : absl::StrSplit(n, ',', absl::SkipEmpty())) {
      request.add_marked_for_deletion(std::string(part));
    }
  }
  for (const std::string& d : args.provider_drifted) {
    for (absl::string_view part : absl::StrSplit(d, ',', absl::SkipEmpty())) {
      std::vector<std::string> kv =
          absl::StrSplit(part, absl::MaxSplits('=', 1));
      if (kv.size() != 2 || kv[0].empty()) {
        throw Failure{absl::StrCat("--provider-drifted: \"", part,
                                   "\" is not nodeclaim=reason")};
      }
      (*request.mutable_provider_drifted())[kv[0]] = kv[1];
    }
  }
  return request;
}

absl::StatusOr<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// A command from an earlier `disrupt -o json`: the whole response (its first
// command; without one, its optimized consolidation's) or the command alone.
v1::DisruptionCommand ReadCommand(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileText(path);
  if (!text.ok()) throw Failure{std::string(text.status().message())};
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  v1::DisruptResponse response;
  if (google::protobuf::util::JsonStringToMessage(*text, &response, options)
          .ok()) {
    if (response.commands_size() > 0) return response.commands(0);
    if (response.optimized().has_command()) {
      return response.optimized().command();
    }
  }
  v1::DisruptionCommand command;
  auto st =
      google::protobuf::util::JsonStringToMessage(*text, &command, options);
  if (!st.ok() || command.method().empty()) {
    throw Failure{absl::StrCat(
        path, ": not a DisruptionCommand or a DisruptResponse with a command",
        st.ok() ? "" : absl::StrCat(" (", std::string(st.message()), ")"))};
  }
  return command;
}

int RunDisrupt(const DisruptArgs& args, std::ostream& out, std::ostream& err) {
  if (args.now.empty()) {
    throw Failure{
        "--now is required (the decision time, RFC 3339, e.g. "
        "2026-12-02T10:00:00Z)"};
  }
  const std::optional<v1::ManifestSet> set = LoadCluster(args.files, err);
  v1::DisruptRequest request = BuildDisruptRequest(*set, args);
  SetCatalog(args.catalog, &request);
  absl::StatusOr<std::string> text;
  if (!args.validate.empty()) {
    v1::ValidateCommandRequest v;
    *v.mutable_request() = request;
    *v.mutable_command() = ReadCommand(args.validate);
    absl::StatusOr<v1::ValidateCommandResponse> r = ValidateCommand(v);
    if (!r.ok()) throw Failure{std::string(r.status().message())};
    if (args.output == "json") {
      text = RenderJson(*r);
    } else if (args.output == "yaml") {
      text = RenderYaml(*r);
    } else {
      text = r->valid() ? absl::StrCat("valid: ", r->command().method(), " ",
                                       r->command().decision(), " of ",
                                       r->command().candidates_size(),
                                       " node(s) may go ahead\n")
                        : absl::StrCat("invalid: ", r->reason(), "\n");
    }
  } else {
    absl::StatusOr<v1::DisruptResponse> r = Disrupt(request);
    if (!r.ok()) throw Failure{std::string(r.status().message())};
    if (args.output == "json") {
      text = RenderJson(*r);
    } else if (args.output == "yaml") {
      text = RenderYaml(*r);
    } else if (args.output == "html") {
      text = RenderPicture(DisruptPicture(request, *r));
    } else {
      text = RenderDisruptTable(*r);
    }
  }
  if (!text.ok()) throw Failure{std::string(text.status().message())};
  out << *text;
  return 0;
}

// -o json / yaml: the response's proto mapping; otherwise `text()`.
template <typename TextFn>
void Print(const google::protobuf::Message& response, const std::string& output,
           std::ostream& out, TextFn text) {
  absl::StatusOr<std::string> rendered;
  if (output == "json") {
    rendered = RenderJson(response);
  } else if (output == "yaml") {
    rendered = RenderYaml(response);
  } else {
    rendered = text();
  }
  if (!rendered.ok()) throw Failure{std::string(rendered.status().message())};
  out << *rendered;
}

// ---- explain ----------------------------------------------------------------

struct ExplainArgs {
  std::vector<std::string> files;
  std::string catalog = "aws";
  std::string output = "text";
  std::string name;
};

int RunExplain(const ExplainArgs& args, bool pod, std::ostream& out,
               std::ostream& err) {
  const std::optional<v1::ManifestSet> set = LoadCluster(args.files, err);
  v1::ExplainRequest request;
  *request.mutable_request() = BuildRequest(*set, ScheduleArgs{});
  SetCatalog(args.catalog, request.mutable_request());
  if (pod) {
    // "name" alone means the default namespace, as kubectl reads it.
    request.set_pod(args.name.find('/') == std::string::npos
                        ? "default/" + args.name
                        : args.name);
  } else {
    request.set_node_pool(args.name);
  }
  absl::StatusOr<v1::ExplainResponse> response = Explain(request);
  if (!response.ok()) throw Failure{std::string(response.status().message())};
  Print(*response, args.output, out, [&] {
    return pod ? RenderPodExplanation(response->pod())
               : RenderNodePoolExplanation(response->node_pool());
  });
  return 0;
}

// ---- diff -------------------------------------------------------------------

struct DiffArgs {
  std::vector<std::string> files;
  std::vector<std::string> with;
  std::string catalog = "aws";
  std::string output = "text";
  std::string now;
};

// Objects of `from` replace those of the same name in `into`, or join them.
template <typename T>
void ReplaceByName(const google::protobuf::RepeatedPtrField<T>& from,
                   google::protobuf::RepeatedPtrField<T>* into) {
  for (const T& obj : from) {
    bool replaced = false;
    for (T& old : *into) {
      if (old.metadata().name() == obj.metadata().name()) {
        old = obj;
        replaced = true;
      }
    }
    if (!replaced) *into->Add() = obj;
  }
}

int RunDiff(const DiffArgs& args, std::ostream& out, std::ostream& err) {
  const std::optional<v1::ManifestSet> base = LoadCluster(args.files, err);
  const std::optional<v1::ManifestSet> with = LoadCluster(args.with, err);
  // A whole cluster (it has workloads or capacity) stands alone; otherwise
  // --with edits the cluster of -f.
  v1::ManifestSet changed = *with;
  if (with->pods().empty() && with->deployments().empty() &&
      with->nodes().empty() && with->node_claims().empty()) {
    changed = *base;
    ReplaceByName(with->node_pools(), changed.mutable_node_pools());
    ReplaceByName(with->node_classes(), changed.mutable_node_classes());
    ReplaceByName(with->node_overlays(), changed.mutable_node_overlays());
    ReplaceByName(with->daemon_sets(), changed.mutable_daemon_sets());
  }
  DisruptArgs d;
  d.now = args.now.empty() ? absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                                              absl::UTCTimeZone())
                           : args.now;
  v1::DiffRequest request;
  *request.mutable_before() = BuildDisruptRequest(*base, d);
  *request.mutable_after() = BuildDisruptRequest(changed, d);
  SetCatalog(args.catalog, request.mutable_before());
  SetCatalog(args.catalog, request.mutable_after());
  absl::StatusOr<v1::DiffResponse> response = Diff(request);
  if (!response.ok()) throw Failure{std::string(response.status().message())};
  Print(*response, args.output, out, [&] {
    return absl::StrCat("At ", d.now, "\n", RenderDiff(*response));
  });
  return 0;
}

void AddFiles(CLI::App* sub, std::vector<std::string>* files, bool required) {
  CLI::Option* o = sub->add_option(
      "-f,--filename", *files,
      "Manifest files or directories (*.yaml, *.yml, *.json); - is stdin");
  if (required) o->required();
}

}  // namespace

int RunNodeplan(int argc, const char* const* argv, std::ostream& out,
                std::ostream& err) {
  CLI::App app{
      "nodeplan: Karpenter's provisioning and disruption decisions, validation "
      "and NodePool hash, offline.",
      "nodeplan"};
  app.require_subcommand(1);
  app.footer(
      "Examples, one per command:\n"
      "  nodeplan schedule -f examples/workshop/\n"
      "  nodeplan schedule -f examples/workshop/ -o html > plan.html\n"
      "  nodeplan disrupt -f cluster/ --now 2026-12-02T12:00:00Z\n"
      "  nodeplan explain pod default/inflate-0 -f examples/workshop/\n"
      "  nodeplan explain nodepool default -f examples/workshop/\n"
      "  nodeplan diff -f cluster.yaml --with changed-nodepools.yaml\n"
      "  nodeplan catalog -f examples/workshop/nodepool-default.yaml\n"
      "  nodeplan validate -f nodepool.yaml\n"
      "  nodeplan hash -f nodepool.yaml\n"
      "Run 'nodeplan SUBCOMMAND --help' for each subcommand's options.\n");

  ScheduleArgs schedule;
  CLI::App* schedule_cmd = app.add_subcommand(
      "schedule",
      "Plan pending pods: placements on existing nodes, new NodeClaims "
      "(type, zone, capacity type, price) and unschedulable pods with reasons");
  AddFiles(schedule_cmd, &schedule.files, true);
  schedule_cmd
      ->add_option("--catalog", schedule.catalog,
                   "Instance-type catalog: aws (embedded, us-east-1) or a "
                   "Catalog file")
      ->capture_default_str();
  schedule_cmd
      ->add_option("-o,--output", schedule.output,
                   "Output format (html: one self-contained page of bins)")
      ->check(CLI::IsMember({"table", "json", "yaml", "html"}))
      ->capture_default_str();
  schedule_cmd
      ->add_option("--preference-policy", schedule.preference_policy,
                   "Honour preferred affinities and ScheduleAnyway spreads "
                   "first (Respect) or not (Ignore)")
      ->check(CLI::IsMember({"Respect", "Ignore"}))
      ->capture_default_str();
  schedule_cmd
      ->add_option("--min-values-policy", schedule.min_values_policy,
                   "Whether minValues may be relaxed")
      ->check(CLI::IsMember({"Strict", "BestEffort"}))
      ->capture_default_str();
  schedule_cmd
      ->add_option("--max-instance-types", schedule.max_instance_types,
                   "Instance-type options kept per NodeClaim (0: 600)")
      ->check(CLI::NonNegativeNumber);
  schedule_cmd
      ->add_option("--packing", schedule.packing,
                   "Karpenter's first-fit decisions (Karpenter) or a cheaper "
                   "verified packing of the same pods (Optimized)")
      ->check(CLI::IsMember({"Karpenter", "Optimized"}))
      ->capture_default_str();
  schedule_cmd->add_flag("!--no-cost-bound", schedule.cost_bound,
                         "Skip the cost lower bound (a linear program: up to "
                         "tens of milliseconds on large plans)");
  schedule_cmd->add_flag("--compare-packing", schedule.compare_packing,
                         "With the table: also plan the other packing and "
                         "print both costs");
  schedule_cmd->add_flag("--apply-ready", schedule.apply_ready,
                         "With -o yaml: print only the NodeClaim manifests, "
                         "for kubectl apply -f -");
  schedule_cmd->footer(
      "Example:\n"
      "  nodeplan schedule -f examples/workshop/\n"
      "  kubectl get nodepools,nodeclasses,nodes,pods -A -o yaml | "
      "nodeplan schedule -f - -o json\n"
      "  nodeplan schedule -f examples/workshop/ -o html > plan.html\n");

  DisruptArgs disrupt;
  CLI::App* disrupt_cmd = app.add_subcommand(
      "disrupt",
      "What Karpenter's disruption would do now: the nodes it removes or "
      "replaces (emptiness, drift, consolidation), expirations, drains, and "
      "why every other node stays");
  AddFiles(disrupt_cmd, &disrupt.files, true);
  disrupt_cmd
      ->add_option("--now", disrupt.now,
                   "The decision time, RFC 3339 (e.g. 2026-12-02T10:00:00Z)")
      ->required();
  disrupt_cmd
      ->add_option("--catalog", disrupt.catalog,
                   "Instance-type catalog: aws (embedded, us-east-1) or a "
                   "Catalog file")
      ->capture_default_str();
  disrupt_cmd
      ->add_option("-o,--output", disrupt.output,
                   "Output format (html: the nodes as bins, with what "
                   "disruption does to each)")
      ->check(CLI::IsMember({"table", "json", "yaml", "html"}))
      ->capture_default_str();
  disrupt_cmd
      ->add_option("--packing", disrupt.packing,
                   "Karpenter's decisions only (Karpenter), or also nodeplan's "
                   "own verified cheaper consolidation, N nodes into M, "
                   "shown apart (Optimized)")
      ->check(CLI::IsMember({"Karpenter", "Optimized"}))
      ->capture_default_str();
  disrupt_cmd->add_flag("--spot-to-spot-consolidation", disrupt.spot_to_spot,
                        "Enable Karpenter's SpotToSpotConsolidation feature "
                        "gate (off by default)");
  disrupt_cmd->add_option(
      "--marked-for-deletion", disrupt.marked_for_deletion,
      "Nodes an in-flight command already took (comma-separated)");
  disrupt_cmd->add_option("--provider-drifted", disrupt.provider_drifted,
                          "The cloud provider's drift answer: "
                          "nodeclaim=reason,... (e.g. web-x7k2p=AMIDrifted)");
  disrupt_cmd->add_option("--validate", disrupt.validate,
                          "Re-validate a command (from an earlier -o json; "
                          "an optimized-consolidation one too) against these "
                          "files, as Karpenter does 15 s later");
  disrupt_cmd->footer(
      "Examples:\n"
      "  nodeplan disrupt -f examples/workshop/ -f examples/workshop/scale-in/ "
      "--now 2026-12-02T12:00:00Z\n"
      "  kubectl get nodepools,nodeclaims,nodes,pods,pdb -A -o yaml | "
      "nodeplan disrupt -f - --now $(date -u +%Y-%m-%dT%H:%M:%SZ) -o json\n"
      "  nodeplan disrupt -f examples/workshop/ -f examples/workshop/scale-in/ "
      "--now 2026-12-02T12:00:00Z -o html > disrupt.html\n");

  ExplainArgs explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain",
      "Why a pod goes where it goes or nowhere (each NodePool's first failing "
      "check, with numbers), or what a NodePool admits and allows");
  explain_cmd->require_subcommand(1);
  CLI::App* explain_pod = explain_cmd->add_subcommand(
      "pod",
      "Each NodePool in the scheduler's order: the first check that fails "
      "(taints, requirements, instance types, resources, limits, minValues, "
      "the scheduler's own reason) or why the pod fits");
  CLI::App* explain_pool = explain_cmd->add_subcommand(
      "nodepool",
      "Admitted instance types, limits used and left, disruption budgets, "
      "and the pods that can land on it");
  for (CLI::App* sub : {explain_pod, explain_pool}) {
    sub->add_option("name", explain.name,
                    sub == explain_pod
                        ? "NAMESPACE/NAME (a Deployment replica: "
                          "NAMESPACE/DEPLOYMENT-INDEX)"
                        : "NodePool name")
        ->required();
    AddFiles(sub, &explain.files, true);
    sub->add_option("--catalog", explain.catalog,
                    "Instance-type catalog: aws (embedded) or a Catalog file")
        ->capture_default_str();
    sub->add_option("-o,--output", explain.output, "Output format")
        ->check(CLI::IsMember({"text", "json", "yaml"}))
        ->capture_default_str();
  }
  explain_cmd->footer(
      "Examples:\n"
      "  nodeplan explain pod default/inflate-0 -f examples/workshop/\n"
      "  nodeplan explain nodepool default -f examples/workshop/\n");

  DiffArgs diff;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff",
      "What-if: plan the cluster with and without a change (e.g. edited "
      "NodePools): cost per hour, NodeClaims added and removed, pods that "
      "become (un)schedulable, running NodeClaims that would drift and the "
      "budgets pacing their replacement");
  AddFiles(diff_cmd, &diff.files, true);
  diff_cmd
      ->add_option("--with", diff.with,
                   "The change: NodePools, NodeClasses, NodeOverlays or "
                   "DaemonSets replacing those of the same name; or a whole "
                   "second cluster (with pods or nodes), compared as it is")
      ->required();
  diff_cmd->add_option("--now", diff.now,
                       "When drift and budgets are judged, RFC 3339 "
                       "(default: the current time)");
  diff_cmd
      ->add_option("--catalog", diff.catalog,
                   "Instance-type catalog: aws (embedded) or a Catalog file")
      ->capture_default_str();
  diff_cmd->add_option("-o,--output", diff.output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  diff_cmd->footer(
      "Examples:\n"
      "  nodeplan diff -f cluster.yaml --with changed-nodepools.yaml\n"
      "  nodeplan diff -f before/ --with after/ --now 2026-12-02T12:00:00Z "
      "-o json\n");

  CatalogArgs catalog;
  CLI::App* catalog_cmd = app.add_subcommand(
      "catalog",
      "Instance types a NodePool admits, cheapest first, with allocatable "
      "CPU, memory and pods");
  AddFiles(catalog_cmd, &catalog.files, false);
  catalog_cmd
      ->add_option("--catalog", catalog.catalog,
                   "aws (embedded) or a Catalog file")
      ->capture_default_str();
  catalog_cmd->add_flag("--rejected", catalog.rejected,
                        "Also list the excluded types and why");
  catalog_cmd->footer(
      "Example:\n"
      "  nodeplan catalog -f examples/workshop/nodepool-general-purpose.yaml "
      "--rejected\n");

  ValidateArgs validate;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "Check NodePools, NodeClaims and NodeOverlays as the API server checks "
      "Karpenter's CRDs, and pending pods as Karpenter does; exit 1 on any "
      "violation");
  AddFiles(validate_cmd, &validate.files, true);
  validate_cmd->add_option("-o,--output", validate.output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}))
      ->capture_default_str();
  validate_cmd->footer("Example:\n  nodeplan validate -f examples/workshop/\n");

  std::vector<std::string> hash_files;
  CLI::App* hash_cmd = app.add_subcommand(
      "hash",
      "Print each NodePool's karpenter.sh/nodepool-hash (v3) and whether the "
      "stored annotation matches");
  AddFiles(hash_cmd, &hash_files, true);
  hash_cmd->footer(
      "Example:\n"
      "  nodeplan hash -f examples/workshop/nodepool-general-purpose.yaml\n");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    // A subcommand's --help arrives here as CallForHelp from that subcommand.
    if (e.get_exit_code() == 0) {
      for (CLI::App* sub : app.get_subcommands()) out << sub->help();
      return 0;
    }
    err << "nodeplan: " << e.what() << "\nRun 'nodeplan --help' for usage.\n";
    return kExitBadInput;
  }

  try {
    if (schedule_cmd->parsed()) return RunSchedule(schedule, out, err);
    if (disrupt_cmd->parsed()) return RunDisrupt(disrupt, out, err);
    if (explain_pod->parsed()) return RunExplain(explain, true, out, err);
    if (explain_pool->parsed()) return RunExplain(explain, false, out, err);
    if (diff_cmd->parsed()) return RunDiff(diff, out, err);
    if (catalog_cmd->parsed()) return RunCatalog(catalog, out, err);
    if (validate_cmd->parsed()) return RunValidate(validate, out, err);
    if (hash_cmd->parsed()) return RunHash(hash_files, out, err);
  } catch (const Failure& f) {
    // One "nodeplan: " per line: several violations stay greppable.
    for (absl::string_view line : absl::StrSplit(f.message, '\n')) {
      err << "nodeplan: " << line << "\n";
    }
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "nodeplan: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace nodeplan::cli
