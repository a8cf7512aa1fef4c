#include "nodeplan/label_selector.h"

#include "gtest/gtest.h"

namespace nodeplan {
namespace {

v1::LabelSelectorRequirement Expr(const std::string& key, const std::string& op,
                                  std::vector<std::string> values = {}) {
  v1::LabelSelectorRequirement e;
  e.set_key(key);
  e.set_operator_(op);
  for (auto& v : values) e.add_values(v);
  return e;
}

class LabelSelectorTest : public ::testing::Test {
 protected:
  LabelSet Labels(std::vector<std::pair<std::string, std::string>> kv) {
    return LabelSet::FromPairs(kv, names_);
  }
  CompiledLabelSelector Compile(const v1::LabelSelector* s) {
    absl::StatusOr<CompiledLabelSelector> c =
        CompiledLabelSelector::Compile(s, names_);
    EXPECT_TRUE(c.ok()) << c.status();
    return *c;
  }
  Interner names_;
};

TEST_F(LabelSelectorTest, NilMatchesNothingEmptyMatchesEverything) {
  CompiledLabelSelector nil = Compile(nullptr);
  EXPECT_TRUE(nil.matches_nothing());
  EXPECT_FALSE(nil.Matches(Labels({})));
  EXPECT_FALSE(nil.Matches(Labels({{"app", "web"}})));
  v1::LabelSelector empty;
  CompiledLabelSelector all = Compile(&empty);
  EXPECT_TRUE(all.matches_everything());
  EXPECT_TRUE(all.Matches(Labels({})));
  EXPECT_TRUE(all.Matches(Labels({{"app", "web"}})));
  EXPECT_TRUE(CompiledLabelSelector::Everything().Matches(Labels({})));
  EXPECT_FALSE(CompiledLabelSelector().Matches(Labels({})));
}

TEST_F(LabelSelectorTest, OperatorTable) {
  struct Case {
    v1::LabelSelectorRequirement expr;
    std::vector<std::pair<std::string, std::string>> labels;
    bool matches;
  };
  const Case cases[] = {
      {Expr("app", "In", {"web", "api"}), {{"app", "web"}}, true},
      {Expr("app", "In", {"web"}), {{"app", "db"}}, false},
      {Expr("app", "In", {"web"}), {}, false},
      {Expr("app", "NotIn", {"web"}), {{"app", "db"}}, true},
      {Expr("app", "NotIn", {"web"}), {}, true},
      {Expr("app", "NotIn", {"web"}), {{"app", "web"}}, false},
      {Expr("app", "Exists"), {{"app", ""}}, true},
      {Expr("app", "Exists"), {{"other", "x"}}, false},
      {Expr("app", "DoesNotExist"), {{"other", "x"}}, true},
      {Expr("app", "DoesNotExist"), {{"app", "x"}}, false},
  };
  for (const Case& c : cases) {
    v1::LabelSelector s;
    *s.add_match_expressions() = c.expr;
    EXPECT_EQ(Compile(&s).Matches(Labels(c.labels)), c.matches)
        << c.expr.key() << " " << c.expr.operator_();
  }
}

TEST_F(LabelSelectorTest, MatchLabelsAndExpressionsAreAnded) {
  v1::LabelSelector s;
  (*s.mutable_match_labels())["app"] = "web";
  (*s.mutable_match_labels())["tier"] = "front";
  *s.add_match_expressions() = Expr("env", "NotIn", {"dev"});
  CompiledLabelSelector c = Compile(&s);
  EXPECT_TRUE(
      c.Matches(Labels({{"app", "web"}, {"tier", "front"}, {"x", "y"}})));
  EXPECT_FALSE(
      c.Matches(Labels({{"app", "web"}, {"tier", "front"}, {"env", "dev"}})));
  EXPECT_FALSE(c.Matches(Labels({{"app", "web"}})));
  c.AddIn(names_.InternKey("zone"), names_.InternValue("a").id);
  EXPECT_FALSE(c.Matches(Labels({{"app", "web"}, {"tier", "front"}})));
  EXPECT_TRUE(
      c.Matches(Labels({{"app", "web"}, {"tier", "front"}, {"zone", "a"}})));
}

TEST_F(LabelSelectorTest, Errors) {
  v1::LabelSelector s;
  *s.add_match_expressions() = Expr("app", "Equals", {"x"});
  EXPECT_EQ(CompiledLabelSelector::Compile(&s, names_, "spec.selector")
                .status()
                .message(),
            "spec.selector.matchExpressions[0].operator: \"Equals\" is not a "
            "valid label selector operator");
  s.mutable_match_expressions(0)->set_operator_("In");
  s.mutable_match_expressions(0)->clear_values();
  EXPECT_FALSE(CompiledLabelSelector::Compile(&s, names_).ok());
  s.mutable_match_expressions(0)->set_operator_("Exists");
  s.mutable_match_expressions(0)->add_values("x");
  EXPECT_FALSE(CompiledLabelSelector::Compile(&s, names_).ok());
}

}  // namespace
}  // namespace nodeplan
