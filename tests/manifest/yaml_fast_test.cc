// Differential tests of the block-YAML fast reader against libyaml: for every
// input the fast reader either falls back or produces node for node the same
// tapes (text, plain flag, line:column, collection ends) and the same status.
// Inputs: the seed manifests, every good and bad input of loader_test.cc
// (included below for its tables), generated kubectl dumps, hand-written edge
// cases, and random mutations (which must also never crash under asan).

// The good/bad input tables live in loader_test.cc; including it here reuses
// them without duplicating (its tests then run in this binary too).
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "loader_test.cc"  // NOLINT(build/include)
#include "manifest/readers.h"
#include "manifest/tape.h"
#include "manifest_workload.h"

namespace nodeplan {
namespace {

using manifest::NodeType;
using manifest::Tape;

struct NodeRecord {
  NodeType type;
  std::string text;
  uint32_t line;
  uint32_t column;
  uint32_t end;
  bool plain;

  bool operator==(const NodeRecord& o) const {
    return type == o.type && text == o.text && line == o.line &&
           column == o.column && end == o.end && plain == o.plain;
  }
};

std::string Describe(const NodeRecord& n) {
  static const char* const kTypes[] = {"scalar", "map", "/map", "seq", "/seq"};
  return absl::StrCat(kTypes[static_cast<int>(n.type)], " \"",
                      absl::CEscape(n.text), "\" plain=", n.plain, " at ",
                      n.line, ":", n.column, " end=", n.end);
}

struct ReadResult {
  std::string status;
  std::vector<std::vector<NodeRecord>> documents;
};

// Records every document; the sink fails at document `fail_at` (0: never).
struct Recorder {
  int fail_at = 0;
  ReadResult result;

  absl::Status operator()(const Tape& tape, int document) {
    std::vector<NodeRecord> nodes;
    for (const manifest::Node& n : tape.nodes) {
      nodes.push_back(
          {n.type, std::string(n.text()), n.line, n.column, n.end, n.plain});
    }
    result.documents.push_back(std::move(nodes));
    if (document == fail_at) {
      return absl::InvalidArgumentError(
          absl::StrCat("the sink refuses document ", document));
    }
    return absl::OkStatus();
  }
};

ReadResult ViaLibyaml(absl::string_view text, int fail_at) {
  Recorder rec;
  rec.fail_at = fail_at;
  absl::Status st =
      manifest::ReadYaml(text, [&](const Tape& t, int d) { return rec(t, d); });
  rec.result.status = st.ToString();
  return rec.result;
}

ReadResult ViaFast(absl::string_view text, int fail_at, bool* fallback) {
  Recorder rec;
  rec.fail_at = fail_at;
  absl::Status st = manifest::ReadYamlFast(
      text, [&](const Tape& t, int d) { return rec(t, d); }, fallback);
  rec.result.status = st.ToString();
  return rec.result;
}

// True when the fast reader handled `text` itself (and then matched libyaml
// exactly); false when it fell back.
bool ExpectSame(const std::string& text, int fail_at = 0) {
  bool fallback = true;
  const ReadResult got = ViaFast(text, fail_at, &fallback);
  if (fallback) return false;
  const ReadResult want = ViaLibyaml(text, fail_at);
  const std::string input =
      absl::StrCat("input: \"", absl::CEscape(text), "\"");
  EXPECT_EQ(got.status, want.status) << input;
  EXPECT_EQ(got.documents.size(), want.documents.size()) << input;
  for (size_t d = 0; d < std::min(got.documents.size(), want.documents.size());
       ++d) {
    const auto& g = got.documents[d];
    const auto& w = want.documents[d];
    EXPECT_EQ(g.size(), w.size()) << "document " << d + 1 << "; " << input;
    for (size_t i = 0; i < std::min(g.size(), w.size()); ++i) {
      if (!(g[i] == w[i])) {
        ADD_FAILURE() << "document " << d + 1 << " node " << i << ": fast "
                      << Describe(g[i]) << ", libyaml " << Describe(w[i])
                      << "; " << input;
        break;
      }
    }
  }
  return true;
}

std::string ReadSeed(const std::string& name) {
  std::ifstream in(std::string(NODEPLAN_SOURCE_DIR) + "/examples/workshop/" +
                   name);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

TEST(YamlFastReaderTest, SeedManifestsTakeTheFastPath) {
  for (const char* name :
       {"nodepool-general-purpose.yaml", "nodeclass-default.yaml"}) {
    const std::string text = ReadSeed(name);
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_TRUE(ExpectSame(text)) << name << " fell back";
  }
}

TEST(YamlFastReaderTest, GeneratedKubectlDumpsTakeTheFastPath) {
  EXPECT_TRUE(ExpectSame(
      bench::ToYaml(bench::ClusterDump(200, bench::Profile::kCompact, 7))));
  EXPECT_TRUE(ExpectSame(
      bench::ToYaml(bench::ClusterDump(900, bench::Profile::kCompact, 1))));
  EXPECT_TRUE(ExpectSame(
      bench::ToYaml(bench::ClusterDump(40, bench::Profile::kFull, 3))));
}

TEST(YamlFastReaderTest, LoaderTestInputsMatchLibyaml) {
  int handled = 0;
  int total = 0;
  for (const GoodCase& c : kGoodCases) {
    SCOPED_TRACE(c.name);
    handled += ExpectSame(c.input);
    ++total;
  }
  for (const BadCase& c : kBadCases) {
    SCOPED_TRACE(c.name);
    handled += ExpectSame(c.input);
    ++total;
  }
  // Most of them are block YAML the fast path reads itself.
  EXPECT_GT(handled, total / 2) << handled << " of " << total;
}

// Inputs inside the subset: the fast reader must read them itself. A root
// sequence is refused before any tape is built (a document must be a
// mapping), so the sequence cases sit under a key.
const char* const kHandled[] = {
    "a: 1\nb: two\n",
    "a: 1\nb: two",
    "a:\n  b:\n    c: 1\nd: 2\n",
    "a:\n  b:\n    c: 1",
    "a:\n  b: 1\n   ",
    "a:\n    b: 1\n  ",
    "a:\n  b: 1\n# end",
    "a:\n  b:\n    c: 1\n  # end",
    "items:\n- a: 1\n  b: 2\n- c\nkind: List\n",
    "k:\n- a\n- b",
    "k:\n- a\n-",
    "k:\n"
    "- - a\n  - b\n- - c\n",
    "k:\n"
    "-\n- \n-   # c\n- x\n-\n  y\n",
    "a:\nb: \nc: # comment\nd:\n  e:\n",
    "a:\n  - 1\n  - 2\nb: x\n",
    "a:\n- 1\n- 2\nb:\n- c: 1\n  d:\n  - e\n  f: g\n",
    "a: 'it''s'\nb: \"q \\\" \\\\ \\/ \\t \\n \\x41 \\u00e9 \\U0001F600 \\0 "
    "\\e "
    "\\N \\_ \\L \\P \\a \\b \\v \\f \\r \\ \"\nc: ''\nd: \"\"\n'k e y': v\n"
    "\"k\\ty\": v\n",
    "a: \"4\"\nb: 4\nc: '4'\nd: null\ne: ~\nf: 'null'\ng: true\nh: \"true\"\n",
    "a: |\n  line1\n  line2\n\n  line4\nb: |-\n  x\n\n\nc: |+\n  y\n\n\n"
    "d: >\n  folded\n  text\n\n  para\n    indented\n  back\ne: >-\n  z\n"
    "f: |\n\n  after blank\ng: |\nh: >+\n  k\n",
    "a: |\n  x",
    "a: |+\n  x\n\n",
    "a: >\n  x\n\n\n",
    "a: |-\n  x\n  \n",
    "k:\n"
    "- |\n  text\n- >-\n  more\n  text\n- b\n",
    "a: |  # note\n  text\n",
    "a: |\n  # not a comment\n    deeper\n  back\nb: 1\n",
    "a: >\n  one\n   two\n  three\n\n\n  four\n",
    "a:\n  b: |\n    x\n  c: >\n    y\n    z\nd: 1\n",
    "k:\n"
    "- a: |\n    x\n  b: 1\n",
    "# top\n\n  # indented\na: 1 # trailing\n# between\nb:\n  # inside\n"
    "  c: 2\n    # deeper comment\n  d: 3\n# end\n",
    "a: {}\nb: []\nc: [x, y, 'z', \"w\"]\nd: {k: v, n: 1}\n"
    "e: {a: [1, 2], b: {c: d}}\nf: [ a , b ]\ng: {\"x\":1, 'y' : 2}\n"
    "h: [a b, c d]\n",
    "k:\n"
    "- {}\n- []\n- [1, [2, [3]]]\n",
    "---\na: 1\n---\nb: 2\n...\n---\nc: 3\n...\n",
    "---\n---\n",
    "---",
    "--- # c\n",
    "",
    "# only\n",
    "\n\n",
    "a: 1\n---\n",
    "a: 1\n---",
    "a: 1\n...\n",
    "a: 1\n...\n...\n---\nb: 2\n",
    "a: 1   \nb:   x y  \nc: 'q'   \n",
    "a: 1\r\nb:\r\n  c: |\r\n    x\r\n    y\r\n  d: 'q'\r\ne:\r\n- 1\r\n",
    "a: >\r\n  x\r\n  y\r\n\r\n  z\r\n",
    "\xE5\x90\x8D\xE5\x89\x8D: \xE5\x80\xA4\nb: \"\xC3\xA9\"\n"
    "c: [\xC3\xA4, \xC3\xB6]\nd: '\xC3\xBC' \ne: x\xF0\x9F\x98\x80y\n",
    "k: [\xC3\xA9, \xC3\xA9, \"\xC3\xA9\", {\xC3\xA9: \xC3\xA9}]\n",
    "\xC3\xA9:\n  x: \xC3\xA9 # \xC3\xA9\n",
    "a: b:c\nb: -1\nc: :x\nd: ?y\ne: x#y\nf: http://x.y/z?q=1#frag\n"
    "g: a - b\nh: x [y] {z}, w\ni: -\"x\"\nj: a'b\"c\n",
    "a  : 1\n'b' : 2\n\"c\": 3\n",
    "k:\n"
    "- a\n- b\n",
    "just text\n",
    "'quoted root'\n",
    "42",
    "  a: 1\n  b: 2\n",
    "k:\n"
    "- name: x\n  ports:\n  - containerPort: 80\n    protocol: TCP\n  - 81\n"
    "- name: y\n",
    "k:\n"
    "-   a: 1\n    b: 2\n-   c\n",
    "metadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-"
    "configuration: '{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}'\n"
    "  labels: {app: web}\n",
    "---\nk: v\n---\nk:\n- 1\n---\nscalar\n---\n",
    "a:\n  b:\n  - x\n  c: y\n",
    "a: x # c\n  # c2\nb: y\n",
    "a: 'x' # c\n",
    "---: x\n...x: y\n",
    "---\n...\n",
    "a: |\n",
    "a: |",
    "a: >-",
    "k:\n"
    "- |\n",
    "a:\n  b: |\n\n\n",
    "a: >\n\n  x\n\n   y\n  z\n",
    "a: |-\n  x\n\n# c\nb: 1\n",
    "\"a\\\"b\": 1\n'c''d': 2\n",
    "a: 'a # b'\nb: \"c # d\"\n",
    "a: [\"]\", '}', \"{\", '[']\n",
    "k:\n"
    "- a:\n  - x\n  b: 1\n",
    "a:\n  -\n  - b\n",
    "a: 1 #c\n#d\n  #e\nb: 2\n",
    "\xC3\xA9:\n\xC3\xA9\xC3\xA9:\n",
    "a: \xC3\xA9 # c\nb:\n  - \xC3\xA9: \"\xC3\xA9\"\n",
    "k: v\n---\n",
    "# c\r\na: 1 # x\r\n\r\nb: 'y'\r\n",
    "a: 1\r\nb: 2",
    "a:\r\n- x\r\n-\r\n  y: |+\r\n    z\r\n\r\n",
    // Multi-line scalars, as kubectl folds long strings at 80 columns.
    "status:\n  conditions:\n  - message: '0/5 nodes are available: 5 "
    "Insufficient cpu.\n      preemption: 0/5 nodes are available: 5 No "
    "preemption victims\n      found for incoming pod.'\n    reason: "
    "Unschedulable\n",
    "a: b\n  c\n",
    "a:\n  b\n  c\nd: e\n",
    "k:\n"
    "- a\n  b\n- c\n",
    "k:\n- a\n  b\n- c\n",
    "a: plain text  \n  continued here\n\n  after blank\n\n\nb: 1\n",
    "root\nscalar\n---\nnext\n  one\n",
    "a: 'b\n  c'\n",
    "k: 'x  \n\n\n   y '\n",
    "a: \"x  \\t\n  y\\ \n  z  \n  \\\" w\"\n",
    "a: \"\n  x\n  \"\n",
};

TEST(YamlFastReaderTest, HandWrittenCasesTakeTheFastPathAndMatch) {
  for (const char* text : kHandled) {
    if (ExpectSame(text)) continue;
    // A root sequence cannot be an object: the fast reader leaves it to
    // ReadYaml, which refuses it before building its tape.
    EXPECT_NE(ViaLibyaml(text, 0).status.find("a document must be a mapping"),
              std::string::npos)
        << "fell back: \"" << absl::CEscape(text) << "\"";
  }
}

// Inputs outside the subset (or libyaml errors): falling back is expected,
// but if the fast reader does read one, it must match.
const char* const kOutside[] = {
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "%YAML 1.1\n---\na: 1\n",
    "? a\n: b\n",
    "a: b\n  c\n",
    "a:\n  b\n  c\n",
    "- a\n  b\n",
    "a: 'b\n  c'\n",
    "a: \"b\\\n  c\"\n",
    "a:\t1\n",
    "a:\n\tb: 1\n",
    "a:\n    b: 1\n  c: 2\n",
    "a: b: c\n",
    "key: - x\n",
    "\xEF\xBB\xBF"
    "a: 1\n",
    "a: 1\rb: 2\n",
    "a: [1,\n  2]\n",
    "a: \x01\n",
    "a: \xFF\n",
    "a: |2\n   x\n",
    "a: |\n    \n  x\n",
    "a: \"\\'\"\n",
    "a: \"\\ud800\"\n",
    "- a\nb: 1\n",
    "a: 1\n- b\n",
    "a: 1\n  b: 2\n",
    "a: 1\n...\nb: 2\n",
    "...\n",
    "a: [a,]\n",
    "a: {b}\n",
    "a: [b: c]\n",
    "a: {b: }\n",
    "g: {\\\"x\"   :1, 'y' : 2}\n",
    "g: [a :b]\n",
    "a: \"x\n",
    "a: 'x",
    "--- a: 1\n",
    "a: \"x\"y\n",
    "a: \"x\"#c\n",
    "a: |#c\n  x\n",
    "a:\n  - b\n c: 1\n",
    "{a: 1}: b\n",
    "[a]\n",
    "a: x\n\xC2\x85"
    "b: y\n",
    "a: |\n  x\n b: 1\n",
    "a: 1\n\t\n",
    "a: >\n  x\n\ty\n",
    "- a\n -b\n",
    "a: x\n  # c\n  y\n",
    "- 'a\n  b': 1\n",
    "a: x # c\n  b: 1\n",
    "a: x\n  y: z\n",
    "a:\n  b: 'x\ny'\n",
    "a: 'x\n---\n  y'\n",
    "a: \"x\n\ty\"\n",
    "a: x\n\n",
};

TEST(YamlFastReaderTest, OutsideTheSubsetFallsBackOrMatches) {
  for (const char* text : kOutside) ExpectSame(text);
}

TEST(YamlFastReaderTest, BadCharactersAnywhereFallBack) {
  // libyaml rejects these wherever they are (and reads ahead), so the whole
  // input goes to libyaml; every offset exercises the word-at-a-time check.
  const std::string good = "key: abcdefghijklmnopqrstuvwxyz0123456789\n";
  for (const char* bad :
       {"\x01", "\x7F", "\x80", "\xC2\x85", "\r", "\xEF\xBB\xBF", "\xFF"}) {
    for (size_t at = 5; at < good.size() - 1; ++at) {
      std::string text = good;
      text.insert(at, bad);
      bool fallback = false;
      ViaFast(text + good, 0, &fallback);
      EXPECT_TRUE(fallback) << absl::CEscape(text);
    }
  }
  EXPECT_TRUE(ExpectSame(good + "k2: \xC3\xA9 \xC3\xA9 # \t\n" + good));
}

TEST(YamlFastReaderTest, AliasesAndTagsStillGetLibyamlsVerdict) {
  bool fallback = false;
  ViaFast("a: &x 1\nb: *x\n", 0, &fallback);
  EXPECT_TRUE(fallback);
  v1::LoadOptions options;
  absl::StatusOr<v1::ManifestSet> got = LoadManifests(
      "apiVersion: v1\nkind: Pod\nmetadata: &m {name: a}\n"
      "spec: *m\n",
      options);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("YAML aliases are not supported"),
            std::string::npos)
      << got.status();
}

TEST(YamlFastReaderTest, DeepNestingFallsBackToTheSameError) {
  std::string deep;
  for (int i = 0; i < 250; ++i) deep += std::string(2 * i, ' ') + "a:\n";
  deep += std::string(500, ' ') + "b: 1\n";
  bool fallback = false;
  ViaFast(deep, 0, &fallback);
  EXPECT_TRUE(fallback);
  std::string ok;
  for (int i = 0; i < 60; ++i) ok += std::string(2 * i, ' ') + "a:\n";
  ok += std::string(120, ' ') + "b: [1, {c: [2]}]\n";
  EXPECT_TRUE(ExpectSame(ok));
}

TEST(YamlFastReaderTest, SinkErrorsPassThroughAtTheSameDocument) {
  const std::string text = "a: 1\n---\nb: 2\n---\nc: 3\n---\n- &x bad\n";
  // Documents before the one the fast reader cannot read: the sink's error
  // comes back exactly as through libyaml.
  for (int fail_at = 1; fail_at <= 2; ++fail_at) {
    EXPECT_TRUE(ExpectSame(text, fail_at)) << fail_at;
  }
  bool fallback = false;
  ViaFast(text, 0, &fallback);
  EXPECT_TRUE(fallback);
}

TEST(YamlFastReaderTest, LoadManifestsAgreesWithTheJsonPath) {
  const bench::Value dump = bench::ClusterDump(50, bench::Profile::kFull, 5);
  v1::LoadOptions options;
  absl::StatusOr<v1::ManifestSet> yaml =
      LoadManifests(bench::ToYaml(dump), options);
  absl::StatusOr<v1::ManifestSet> json =
      LoadManifests(bench::ToJson(dump), options);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*yaml, *json));
}

std::string Mutate(std::string text, std::mt19937_64& rng) {
  static const char kBytes[] = "{}[]:,-\"'#&*!|>+\n \t\r0aZ\\.?%~\xC3\xA9\x80";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const size_t at = rng() % text.size();
    switch (rng() % 5) {
      case 0:
        text.resize(at);
        break;
      case 1:
        text[at] = kBytes[rng() % (sizeof(kBytes) - 1)];
        break;
      case 2:
        text.insert(at, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
        break;
      case 3:  // shift a line's indentation
        text.insert(at, std::string(1 + rng() % 3, ' '));
        break;
      default:
        text.erase(at, rng() % 16);
        break;
    }
  }
  return text;
}

TEST(YamlFastReaderTest, MutationsNeverCrashAndMatchLibyaml) {
  std::vector<std::string> seeds = {
      bench::ToYaml(bench::ClusterDump(2, bench::Profile::kFull, 11)),
      ReadSeed("nodepool-general-purpose.yaml"),
  };
  for (const char* text : kHandled) seeds.emplace_back(text);
  std::mt19937_64 rng(20261129);
  int handled = 0;
  int total = 0;
  for (const std::string& seed : seeds) {
    const int rounds = seed.size() > 2000 ? 1500 : 150;
    for (int i = 0; i < rounds; ++i) {
      handled += ExpectSame(Mutate(seed, rng), static_cast<int>(rng() % 3));
      ++total;
      if (HasFailure()) return;
    }
  }
  // Many mutants stay inside the subset, so the comparison has teeth.
  EXPECT_GT(handled, total / 5) << handled << " of " << total;
}

}  // namespace
}  // namespace nodeplan
