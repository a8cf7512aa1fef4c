#ifndef NODEPLAN_BENCHMARKS_MANIFEST_WORKLOAD_H_
#define NODEPLAN_BENCHMARKS_MANIFEST_WORKLOAD_H_

// A seeded generator of cluster dumps as `kubectl get pods -A -o yaml|json`
// prints them (kind: List, keys in kubectl's order, managedFields, status),
// for the manifest benchmark and the loader's robustness tests.
//
// Profiles: kCompact gives every pod what scheduling reads (metadata with
// labels and ownerReferences, one or two containers with resources,
// tolerations, nodeName, status conditions) and one pod in ten the bulky
// rest (managedFields, env, projected volumes, affinity, container
// statuses): about 2 MB of YAML for 5,000 pods. kFull gives every pod
// everything, as a real dump does (about 4 KB per pod).

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nodeplan::bench {

// A JSON-like tree that prints as kubectl's YAML or JSON.
struct Value {
  enum Kind { kMap, kList, kString, kNumber, kBool, kNull } kind = kNull;
  std::string text;  // string / number / bool text
  std::vector<std::pair<std::string, Value>> map;
  std::vector<Value> list;

  static Value Str(std::string s) {
    Value v;
    v.kind = kString;
    v.text = std::move(s);
    return v;
  }
  static Value Num(int64_t n) {
    Value v;
    v.kind = kNumber;
    v.text = absl::StrCat(n);
    return v;
  }
  static Value Bool(bool b) {
    Value v;
    v.kind = kBool;
    v.text = b ? "true" : "false";
    return v;
  }
  static Value Null() { return Value(); }
  static Value Map() {
    Value v;
    v.kind = kMap;
    return v;
  }
  static Value List() {
    Value v;
    v.kind = kList;
    return v;
  }
  Value& Set(std::string key, Value v) {
    map.emplace_back(std::move(key), std::move(v));
    return map.back().second;
  }
  Value& Add(Value v) {
    list.push_back(std::move(v));
    return list.back();
  }
};

inline std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  out += '"';
  return out;
}

// go-yaml quotes strings that would read back as something else.
inline bool NeedsYamlQuotes(const std::string& s) {
  if (s.empty()) return true;
  static const char* const kWords[] = {"true", "false", "null", "yes", "no",
                                       "on",   "off",   "~",    "y",   "n"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  const char first = s[0];
  if ((first >= '0' && first <= '9') || first == '-' || first == '.' ||
      first == '+') {
    return true;  // may read as a number
  }
  for (char c : s) {
    if (c == ':' || c == '#' || c == '{' || c == '}' || c == '[' || c == ']' ||
        c == ',' || c == '&' || c == '*' || c == '!' || c == '|' || c == '>' ||
        c == '\'' || c == '"' || c == '%' || c == '@' || c == '`' ||
        c == '\n') {
      return true;
    }
  }
  return false;
}

inline std::string YamlScalar(const Value& v) {
  switch (v.kind) {
    case Value::kString:
      return NeedsYamlQuotes(v.text) ? JsonQuote(v.text) : v.text;
    case Value::kNull:
      return "null";
    case Value::kMap:
      return "{}";
    case Value::kList:
      return "[]";
    default:
      return v.text;
  }
}

inline bool IsEmptyCollection(const Value& v) {
  return (v.kind == Value::kMap && v.map.empty()) ||
         (v.kind == Value::kList && v.list.empty());
}

// kubectl's block style: sequences under a key are not indented.
inline void WriteYaml(const Value& v, int indent, std::string& out);

inline void WriteYamlEntry(const std::string& key, const Value& v, int indent,
                           std::string& out) {
  out.append(indent, ' ');
  out += NeedsYamlQuotes(key) ? JsonQuote(key) : key;
  out += ':';
  if ((v.kind == Value::kMap || v.kind == Value::kList) &&
      !IsEmptyCollection(v)) {
    out += '\n';
    WriteYaml(v, v.kind == Value::kMap ? indent + 2 : indent, out);
  } else {
    out += ' ';
    out += YamlScalar(v);
    out += '\n';
  }
}

inline void WriteYaml(const Value& v, int indent, std::string& out) {
  if (v.kind == Value::kMap) {
    for (const auto& [k, child] : v.map) WriteYamlEntry(k, child, indent, out);
  } else if (v.kind == Value::kList) {
    for (const Value& item : v.list) {
      out.append(indent, ' ');
      out += "- ";
      if (item.kind == Value::kMap && !item.map.empty()) {
        // The first entry shares the dash's line.
        std::string nested;
        WriteYaml(item, indent + 2, nested);
        out.append(nested, static_cast<size_t>(indent + 2), std::string::npos);
      } else if (item.kind == Value::kList && !item.list.empty()) {
        out += '\n';
        WriteYaml(item, indent + 2, out);
      } else {
        out += YamlScalar(item);
        out += '\n';
      }
    }
  }
}

// kubectl's JSON: four-space indentation.
inline void WriteJson(const Value& v, int indent, std::string& out) {
  switch (v.kind) {
    case Value::kMap: {
      if (v.map.empty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      for (size_t i = 0; i < v.map.size(); ++i) {
        out.append(indent + 4, ' ');
        out += JsonQuote(v.map[i].first);
        out += ": ";
        WriteJson(v.map[i].second, indent + 4, out);
        out += i + 1 < v.map.size() ? ",\n" : "\n";
      }
      out.append(indent, ' ');
      out += '}';
      return;
    }
    case Value::kList: {
      if (v.list.empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      for (size_t i = 0; i < v.list.size(); ++i) {
        out.append(indent + 4, ' ');
        WriteJson(v.list[i], indent + 4, out);
        out += i + 1 < v.list.size() ? ",\n" : "\n";
      }
      out.append(indent, ' ');
      out += ']';
      return;
    }
    case Value::kString:
      out += JsonQuote(v.text);
      return;
    case Value::kNull:
      out += "null";
      return;
    default:
      out += v.text;
  }
}

enum class Profile { kCompact, kFull };

class PodGenerator {
 public:
  explicit PodGenerator(uint64_t seed) : rng_(seed) {}

  Value Pod(int index, bool bulky) {
    const int app = Pick(60);
    const std::string app_name = absl::StrCat("app-", app);
    const std::string hash = Hex(10);
    const std::string ns = absl::StrCat("team-", app % 12);
    const std::string name = absl::StrCat(app_name, "-", hash, "-", Hex(5));
    const std::string stamp =
        absl::StrFormat("2024-05-%02dT%02d:%02d:%02dZ", 1 + Pick(28), Pick(24),
                        Pick(60), Pick(60));
    const std::string node =
        absl::StrFormat("ip-10-0-%d-%d.ec2.internal", Pick(4), Pick(250));
    const std::string token_volume = absl::StrCat("kube-api-access-", Hex(5));

    Value pod = Value::Map();
    pod.Set("apiVersion", Value::Str("v1"));
    pod.Set("kind", Value::Str("Pod"));
    Value& md = pod.Set("metadata", Value::Map());
    md.Set("creationTimestamp", Value::Str(stamp));
    md.Set("generateName", Value::Str(absl::StrCat(app_name, "-", hash, "-")));
    Value& labels = md.Set("labels", Value::Map());
    labels.Set("app", Value::Str(app_name));
    labels.Set("pod-template-hash", Value::Str(hash));
    if (app % 3 == 0) labels.Set("tier", Value::Str("backend"));
    if (bulky) md.Set("managedFields", ManagedFields(stamp));
    md.Set("name", Value::Str(name));
    md.Set("namespace", Value::Str(ns));
    Value& owners = md.Set("ownerReferences", Value::List());
    Value& owner = owners.Add(Value::Map());
    owner.Set("apiVersion", Value::Str("apps/v1"));
    owner.Set("blockOwnerDeletion", Value::Bool(true));
    owner.Set("controller", Value::Bool(true));
    owner.Set("kind", Value::Str("ReplicaSet"));
    owner.Set("name", Value::Str(absl::StrCat(app_name, "-", hash)));
    owner.Set("uid", Value::Str(Uid()));
    md.Set("resourceVersion", Value::Str(absl::StrCat(100000 + index)));
    md.Set("uid", Value::Str(Uid()));

    Value& spec = pod.Set("spec", Value::Map());
    if (bulky || app % 5 == 0) spec.Set("affinity", Affinity(app_name));
    Value& containers = spec.Set("containers", Value::List());
    const int n_containers = app % 4 == 0 ? 2 : 1;
    for (int c = 0; c < n_containers; ++c) {
      containers.Add(Container(c == 0 ? app_name : "sidecar", bulky,
                               token_volume, c == 0 ? app : app + 7));
    }
    spec.Set("dnsPolicy", Value::Str("ClusterFirst"));
    spec.Set("enableServiceLinks", Value::Bool(true));
    spec.Set("nodeName", Value::Str(node));
    if (app % 7 == 0) {
      spec.Set("nodeSelector", Value::Map())
          .Set("karpenter.sh/capacity-type", Value::Str("on-demand"));
    }
    spec.Set("preemptionPolicy", Value::Str("PreemptLowerPriority"));
    spec.Set("priority", Value::Num(0));
    spec.Set("restartPolicy", Value::Str("Always"));
    spec.Set("schedulerName", Value::Str("default-scheduler"));
    spec.Set("securityContext", Value::Map());
    spec.Set("serviceAccountName", Value::Str("default"));
    spec.Set("terminationGracePeriodSeconds", Value::Num(30));
    Value& tolerations = spec.Set("tolerations", Value::List());
    for (const char* key :
         {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
      Value& t = tolerations.Add(Value::Map());
      t.Set("effect", Value::Str("NoExecute"));
      t.Set("key", Value::Str(key));
      t.Set("operator", Value::Str("Exists"));
      t.Set("tolerationSeconds", Value::Num(300));
    }
    if (bulky) spec.Set("volumes", Volumes(token_volume));

    Value& status = pod.Set("status", Value::Map());
    Value& conditions = status.Set("conditions", Value::List());
    for (const char* type :
         bulky ? std::vector<const char*>{"Initialized", "Ready",
                                          "ContainersReady", "PodScheduled"}
               : std::vector<const char*>{"Ready"}) {
      Value& c = conditions.Add(Value::Map());
      c.Set("lastProbeTime", Value::Null());
      c.Set("lastTransitionTime", Value::Str(stamp));
      c.Set("status", Value::Str("True"));
      c.Set("type", Value::Str(type));
    }
    if (bulky)
      status.Set("containerStatuses", ContainerStatuses(app_name, stamp));
    status.Set("hostIP",
               Value::Str(absl::StrFormat("10.0.%d.%d", Pick(4), Pick(250))));
    status.Set("phase", Value::Str("Running"));
    status.Set("podIP", Value::Str(absl::StrFormat("10.0.%d.%d", 4 + Pick(8),
                                                   Pick(250))));
    status.Set("qosClass", Value::Str("Burstable"));
    status.Set("startTime", Value::Str(stamp));
    return pod;
  }

 private:
  int Pick(int n) {
    return static_cast<int>(rng_() % static_cast<uint64_t>(n));
  }
  std::string Hex(int n) {
    static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string s;
    for (int i = 0; i < n; ++i) s += kAlphabet[Pick(27)];
    return s;
  }
  std::string Uid() {
    return absl::StrFormat(
        "%08x-%04x-%04x-%04x-%012x", static_cast<uint32_t>(rng_()), Pick(65536),
        Pick(65536), Pick(65536), rng_() & 0xFFFFFFFFFFFFull);
  }

  Value Container(const std::string& name, bool bulky,
                  const std::string& token_volume, int size) {
    static const char* const kCpu[] = {"100m", "250m", "500m", "1", "2"};
    static const char* const kMemory[] = {"128Mi", "256Mi", "512Mi", "1Gi",
                                          "2Gi"};
    Value c = Value::Map();
    if (bulky) {
      Value& env = c.Set("env", Value::List());
      for (int i = 0; i < 4; ++i) {
        Value& e = env.Add(Value::Map());
        e.Set("name", Value::Str(absl::StrCat("SETTING_", i)));
        e.Set("value", Value::Str(absl::StrCat("value-", Hex(8))));
      }
    }
    c.Set("image", Value::Str(absl::StrCat(
                       "123456789012.dkr.ecr.us-east-1.amazonaws.com/", name,
                       ":v1.", size % 10, ".", Pick(20))));
    c.Set("imagePullPolicy", Value::Str("IfNotPresent"));
    c.Set("name", Value::Str(name));
    Value& ports = c.Set("ports", Value::List());
    Value& port = ports.Add(Value::Map());
    port.Set("containerPort", Value::Num(8080));
    port.Set("protocol", Value::Str("TCP"));
    Value& res = c.Set("resources", Value::Map());
    Value& limits = res.Set("limits", Value::Map());
    limits.Set("memory", Value::Str(kMemory[(size + 1) % 5]));
    Value& requests = res.Set("requests", Value::Map());
    requests.Set("cpu", Value::Str(kCpu[size % 5]));
    requests.Set("memory", Value::Str(kMemory[size % 5]));
    c.Set("terminationMessagePath", Value::Str("/dev/termination-log"));
    c.Set("terminationMessagePolicy", Value::Str("File"));
    if (bulky) {
      Value& mounts = c.Set("volumeMounts", Value::List());
      Value& m = mounts.Add(Value::Map());
      m.Set("mountPath",
            Value::Str("/var/run/secrets/kubernetes.io/serviceaccount"));
      m.Set("name", Value::Str(token_volume));
      m.Set("readOnly", Value::Bool(true));
    }
    return c;
  }

  Value Affinity(const std::string& app) {
    Value a = Value::Map();
    Value& na = a.Set("nodeAffinity", Value::Map());
    Value& req =
        na.Set("requiredDuringSchedulingIgnoredDuringExecution", Value::Map());
    Value& terms = req.Set("nodeSelectorTerms", Value::List());
    Value& term = terms.Add(Value::Map());
    Value& exprs = term.Set("matchExpressions", Value::List());
    Value& e = exprs.Add(Value::Map());
    e.Set("key", Value::Str("topology.kubernetes.io/zone"));
    e.Set("operator", Value::Str("In"));
    Value& values = e.Set("values", Value::List());
    values.Add(Value::Str("us-east-1a"));
    values.Add(Value::Str("us-east-1b"));
    Value& paa = a.Set("podAntiAffinity", Value::Map());
    Value& pref = paa.Set("preferredDuringSchedulingIgnoredDuringExecution",
                          Value::List());
    Value& w = pref.Add(Value::Map());
    Value& term2 = w.Set("podAffinityTerm", Value::Map());
    term2.Set("labelSelector", Value::Map())
        .Set("matchLabels", Value::Map())
        .Set("app", Value::Str(app));
    term2.Set("topologyKey", Value::Str("kubernetes.io/hostname"));
    w.Set("weight", Value::Num(100));
    return a;
  }

  Value ManagedFields(const std::string& stamp) {
    Value list = Value::List();
    Value& m = list.Add(Value::Map());
    m.Set("apiVersion", Value::Str("v1"));
    m.Set("fieldsType", Value::Str("FieldsV1"));
    Value& f = m.Set("fieldsV1", Value::Map());
    Value& fm = f.Set("f:metadata", Value::Map());
    fm.Set("f:generateName", Value::Map());
    Value& fl = fm.Set("f:labels", Value::Map());
    fl.Set(".", Value::Map());
    fl.Set("f:app", Value::Map());
    fl.Set("f:pod-template-hash", Value::Map());
    Value& fs = f.Set("f:spec", Value::Map());
    Value& fc = fs.Set("f:containers", Value::Map());
    Value& k = fc.Set("k:{\"name\":\"app\"}", Value::Map());
    for (const char* field : {".", "f:env", "f:image", "f:imagePullPolicy",
                              "f:name", "f:resources"}) {
      k.Set(field, Value::Map());
    }
    fs.Set("f:dnsPolicy", Value::Map());
    fs.Set("f:restartPolicy", Value::Map());
    m.Set("manager", Value::Str("kube-controller-manager"));
    m.Set("operation", Value::Str("Update"));
    m.Set("time", Value::Str(stamp));
    Value& s = list.Add(Value::Map());
    s.Set("apiVersion", Value::Str("v1"));
    s.Set("fieldsType", Value::Str("FieldsV1"));
    Value& sf = s.Set("fieldsV1", Value::Map());
    Value& st = sf.Set("f:status", Value::Map());
    st.Set("f:conditions", Value::Map());
    st.Set("f:containerStatuses", Value::Map());
    st.Set("f:hostIP", Value::Map());
    st.Set("f:phase", Value::Map());
    st.Set("f:podIP", Value::Map());
    s.Set("manager", Value::Str("kubelet"));
    s.Set("operation", Value::Str("Update"));
    s.Set("subresource", Value::Str("status"));
    s.Set("time", Value::Str(stamp));
    return list;
  }

  Value Volumes(const std::string& token_volume) {
    Value vols = Value::List();
    Value& v = vols.Add(Value::Map());
    v.Set("name", Value::Str(token_volume));
    Value& projected = v.Set("projected", Value::Map());
    projected.Set("defaultMode", Value::Num(420));
    Value& sources = projected.Set("sources", Value::List());
    Value& sat =
        sources.Add(Value::Map()).Set("serviceAccountToken", Value::Map());
    sat.Set("expirationSeconds", Value::Num(3607));
    sat.Set("path", Value::Str("token"));
    Value& cm = sources.Add(Value::Map()).Set("configMap", Value::Map());
    Value& items = cm.Set("items", Value::List());
    Value& item = items.Add(Value::Map());
    item.Set("key", Value::Str("ca.crt"));
    item.Set("path", Value::Str("ca.crt"));
    cm.Set("name", Value::Str("kube-root-ca.crt"));
    return vols;
  }

  Value ContainerStatuses(const std::string& name, const std::string& stamp) {
    Value list = Value::List();
    Value& s = list.Add(Value::Map());
    s.Set("containerID",
          Value::Str(absl::StrCat("containerd://", Hex(16), Hex(16))));
    s.Set("image", Value::Str(absl::StrCat("docker.io/library/", name)));
    s.Set("imageID", Value::Str(absl::StrCat("sha256:", Hex(32))));
    s.Set("lastState", Value::Map());
    s.Set("name", Value::Str(name));
    s.Set("ready", Value::Bool(true));
    s.Set("restartCount", Value::Num(0));
    s.Set("started", Value::Bool(true));
    s.Set("state", Value::Map())
        .Set("running", Value::Map())
        .Set("startedAt", Value::Str(stamp));
    return list;
  }

  std::mt19937_64 rng_;
};

// `kubectl get pods -A -o yaml` (or json) for `pods` pods.
inline Value ClusterDump(int pods, Profile profile, uint64_t seed) {
  PodGenerator gen(seed);
  Value list = Value::Map();
  list.Set("apiVersion", Value::Str("v1"));
  Value& items = list.Set("items", Value::List());
  for (int i = 0; i < pods; ++i) {
    items.Add(gen.Pod(i, profile == Profile::kFull || i % 10 == 0));
  }
  list.Set("kind", Value::Str("List"));
  Value& meta = list.Set("metadata", Value::Map());
  meta.Set("resourceVersion", Value::Str(""));
  return list;
}

inline std::string ToYaml(const Value& v) {
  std::string out;
  WriteYaml(v, 0, out);
  return out;
}

inline std::string ToJson(const Value& v) {
  std::string out;
  WriteJson(v, 0, out);
  out += '\n';
  return out;
}

}  // namespace nodeplan::bench

#endif  // NODEPLAN_BENCHMARKS_MANIFEST_WORKLOAD_H_
