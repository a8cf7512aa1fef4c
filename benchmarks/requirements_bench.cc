// Requirements algebra, compatibility, the bitset index, selectors and Fits.

#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "nodeplan/label_selector.h"
#include "nodeplan/requirements.h"
#include "nodeplan/requirements_index.h"
#include "nodeplan/resources.h"

namespace nodeplan {
namespace {

using Op = SelectorOperator;

struct Fixture {
  Interner names;
  std::unique_ptr<WellKnownLabels> wk;
  Requirements nodepool;
  Requirements pod;
  std::vector<Requirements> types;

  LabelKeyId K(absl::string_view k) { return names.InternKey(k); }
  LabelValue V(absl::string_view v) { return names.InternValue(v); }
  Requirement R(absl::string_view key, Op op, std::vector<std::string> values) {
    std::vector<LabelValue> vs;
    for (auto& v : values) vs.push_back(V(v));
    return Requirement::Make(K(key), op, vs);
  }

  Fixture() {
    wk = std::make_unique<WellKnownLabels>(
        names, std::vector<std::string>{"karpenter.k8s.aws/instance-category",
                                        "karpenter.k8s.aws/instance-family",
                                        "karpenter.k8s.aws/instance-generation",
                                        "karpenter.k8s.aws/instance-cpu"});
    // The workshop NodePool: on-demand c/m/r, generation > 4, amd64, linux.
    nodepool.Add(R("karpenter.sh/capacity-type", Op::kIn, {"on-demand"}));
    nodepool.Add(
        R("karpenter.k8s.aws/instance-category", Op::kIn, {"c", "m", "r"}));
    nodepool.Add(R("karpenter.k8s.aws/instance-generation", Op::kGt, {"4"}));
    nodepool.Add(R("kubernetes.io/arch", Op::kIn, {"amd64"}));
    nodepool.Add(R("kubernetes.io/os", Op::kIn, {"linux"}));
    nodepool.Add(R("karpenter.sh/nodepool", Op::kIn, {"general-purpose"}));
    nodepool.Add(R("team", Op::kIn, {"payments"}));
    // A typical pod: nodeSelector + a zone affinity.
    pod.Add(R("kubernetes.io/os", Op::kIn, {"linux"}));
    pod.Add(R("team", Op::kIn, {"payments"}));
    pod.Add(R("topology.kubernetes.io/zone", Op::kIn,
              {"us-east-1a", "us-east-1b"}));
    pod.Add(R("karpenter.k8s.aws/instance-family", Op::kNotIn, {"t3"}));
    // 800 instance types with AWS-like labels.
    std::mt19937 rng(1);
    const char* cats[] = {"c", "m", "r", "t", "g", "p", "i", "x"};
    const char* archs[] = {"amd64", "arm64"};
    for (int i = 0; i < 800; ++i) {
      Requirements t;
      std::string cat = cats[rng() % 8];
      std::string gen = std::to_string(3 + rng() % 5);
      t.Add(R("node.kubernetes.io/instance-type", Op::kIn,
              {cat + gen + "." + std::to_string(i)}));
      t.Add(R("karpenter.k8s.aws/instance-category", Op::kIn, {cat}));
      t.Add(R("karpenter.k8s.aws/instance-family", Op::kIn, {cat + gen}));
      t.Add(R("karpenter.k8s.aws/instance-generation", Op::kIn, {gen}));
      t.Add(R("karpenter.k8s.aws/instance-cpu", Op::kIn,
              {std::to_string(2 << (rng() % 6))}));
      t.Add(R("kubernetes.io/arch", Op::kIn, {archs[rng() % 2]}));
      t.Add(R("kubernetes.io/os", Op::kIn, {"linux"}));
      t.Add(R("topology.kubernetes.io/zone", Op::kIn,
              {"us-east-1a", "us-east-1b", "us-east-1c"}));
      t.Add(R("karpenter.sh/capacity-type", Op::kIn, {"on-demand", "spot"}));
      t.Add(Requirement::DoesNotExist(K("node.kubernetes.io/windows-build")));
      types.push_back(std::move(t));
    }
  }
};

Fixture& F() {
  static Fixture* f = new Fixture();
  return *f;
}

void BM_RequirementIntersection(benchmark::State& state) {
  Fixture& f = F();
  Requirement a = f.R("zone", Op::kIn, {"a", "b", "c", "d"});
  Requirement b = f.R("zone", Op::kNotIn, {"b"});
  for (auto _ : state) benchmark::DoNotOptimize(a.Intersection(b));
}
BENCHMARK(BM_RequirementIntersection);

void BM_RequirementsAdd(benchmark::State& state) {
  Fixture& f = F();
  for (auto _ : state) {
    Requirements r = f.nodepool;
    r.Add(f.pod);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RequirementsAdd);

void BM_CompatiblePodVsNodePool(benchmark::State& state) {
  Fixture& f = F();
  CompatibilityOptions allow{f.wk.get()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.nodepool.IsCompatible(f.pod, allow));
  }
}
BENCHMARK(BM_CompatiblePodVsNodePool);

void BM_IndexIntersecting800(benchmark::State& state) {
  Fixture& f = F();
  RequirementsIndex index(f.types);
  Requirements q = f.nodepool;
  q.Add(f.pod);
  TypeSet out;
  for (auto _ : state) {
    index.Intersecting(q, &out);
    benchmark::DoNotOptimize(out.words().data());
  }
  state.counters["matches"] = out.Count();
}
BENCHMARK(BM_IndexIntersecting800);

void BM_PerTypeIntersecting800(benchmark::State& state) {
  Fixture& f = F();
  Requirements q = f.nodepool;
  q.Add(f.pod);
  for (auto _ : state) {
    int n = 0;
    for (const Requirements& t : f.types) n += t.Intersects(q);
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_PerTypeIntersecting800);

void BM_IndexBuild800(benchmark::State& state) {
  Fixture& f = F();
  for (auto _ : state) {
    RequirementsIndex index(f.types);
    benchmark::DoNotOptimize(index.size());
  }
}
BENCHMARK(BM_IndexBuild800);

void BM_SelectorMatch20Labels(benchmark::State& state) {
  Fixture& f = F();
  std::vector<std::pair<std::string, std::string>> kv;
  for (int i = 0; i < 20; ++i) {
    kv.emplace_back("label-" + std::to_string(i), "value-" + std::to_string(i));
  }
  LabelSet labels = LabelSet::FromPairs(kv, f.names);
  v1::LabelSelector s;
  (*s.mutable_match_labels())["label-3"] = "value-3";
  auto* e = s.add_match_expressions();
  e->set_key("label-17");
  e->set_operator_("In");
  e->add_values("value-17");
  e->add_values("other");
  auto* n = s.add_match_expressions();
  n->set_key("absent");
  n->set_operator_("DoesNotExist");
  CompiledLabelSelector sel = *CompiledLabelSelector::Compile(&s, f.names);
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(labels));
}
BENCHMARK(BM_SelectorMatch20Labels);

void BM_Fits(benchmark::State& state) {
  Fixture& f = F();
  google::protobuf::Map<std::string, std::string> a, b;
  a["cpu"] = "1500m";
  a["memory"] = "3Gi";
  a["pods"] = "1";
  b["cpu"] = "3920m";
  b["memory"] = "14Gi";
  b["pods"] = "58";
  b["ephemeral-storage"] = "20Gi";
  b["nvidia.com/gpu"] = "1";
  ResourceVector candidate = *ParseResourceList(a, f.names);
  ResourceVector total = *ParseResourceList(b, f.names);
  for (auto _ : state) benchmark::DoNotOptimize(Fits(candidate, total));
}
BENCHMARK(BM_Fits);

}  // namespace
}  // namespace nodeplan
