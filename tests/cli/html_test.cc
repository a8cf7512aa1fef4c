// `-o html`: the page's DOM as a browser builds it, a screenshot of it, and
// its shape at 5,000 pods.
//
// The workshop's page is rendered by Debian's chromium, headless
// (scripts/setup.sh installs it): --dump-dom gives the DOM after parsing, so
// a malformed page shows up as missing or misplaced elements; --screenshot
// gives the picture, compared against a blank page of the same size.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nodeplan/disrupt.h"
#include "nodeplan/manifest.h"
#include "nodeplan/schedule.h"
#include "nodeplan/workload.h"
#include "render_html.h"
#include "test_files.h"

namespace nodeplan::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing_files::ReadFile;

std::string TempPath(const std::string& name) {
  return testing_files::TempPath("html", name);
}

// Runs a shell command; stdout as the result, the exit status in `status`.
std::string Run(const std::string& cmd, int* status) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

std::string Nodeplan(const std::string& args) {
  int status = -1;
  std::string out =
      Run(absl::StrCat("cd '", NODEPLAN_SOURCE_DIR, "' && '", NODEPLAN_BINARY,
                       "' ", args, " 2>/dev/null"),
          &status);
  EXPECT_EQ(status, 0) << args;
  return out;
}

// Headless chromium on a local file, with a profile of its own (tests run in
// parallel) and no sandbox (CI runs as root in a container).
std::string Chromium(const std::string& flags, const std::string& html_path,
                     int* status) {
  const std::string profile = TempPath("profile");
  return Run(absl::StrCat("timeout 120 '", NODEPLAN_CHROMIUM,
                          "' --headless --no-sandbox --disable-gpu "
                          "--hide-scrollbars --no-first-run "
                          "--user-data-dir='",
                          profile, "' ", flags, " 'file://", html_path,
                          "' 2>/dev/null; rm -rf '", profile, "'"),
             status);
}

std::vector<std::string> All(const std::string& text, const std::string& re) {
  std::vector<std::string> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

int Sum(const std::vector<std::string>& numbers) {
  int s = 0;
  for (const std::string& n : numbers) {
    int v = 0;
    EXPECT_TRUE(absl::SimpleAtoi(n, &v)) << n;
    s += v;
  }
  return s;
}

// PNG width and height from the IHDR chunk; {0, 0} if not a PNG.
std::pair<int, int> PngSize(const std::string& png) {
  if (png.size() < 24 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    return {0, 0};
  }
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) |
           (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) |
           static_cast<unsigned char>(png[at + 3]);
  };
  return {static_cast<int>(be32(16)), static_cast<int>(be32(20))};
}

TEST(HtmlTest, WorkshopPageInHeadlessChromium) {
  ASSERT_STRNE(NODEPLAN_CHROMIUM, "")
      << "chromium was not found at configure time; scripts/setup.sh "
         "installs Debian's chromium package";
  const std::string html = Nodeplan("schedule -f examples/workshop/ -o html");
  ASSERT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  // Self-contained: nothing to fetch.
  EXPECT_THAT(
      std::regex_replace(html, std::regex("xmlns=\"http://[^\"]*\""), ""),
      Not(HasSubstr("://")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));

  v1::ScheduleResponse response;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  Nodeplan("schedule -f examples/workshop/ -o json"), &response)
                  .ok());
  ASSERT_GT(response.new_node_claims_size(), 0);

  const std::string page = TempPath("plan.html");
  std::ofstream(page) << html;
  int status = -1;
  const std::string dom = Chromium("--dump-dom", page, &status);
  ASSERT_EQ(status, 0) << "chromium --dump-dom failed";

  // The bins: one per new NodeClaim (the workshop has no nodes), named so.
  const std::vector<std::string> names =
      All(dom, R"re(<svg class="bin"[^>]*data-name="([^"]*)")re");
  ASSERT_EQ(static_cast<int>(names.size()), response.new_node_claims_size());
  for (int i = 0; i < response.new_node_claims_size(); ++i) {
    EXPECT_EQ(names[i], response.new_node_claims(i).name());
  }
  // The pod counts: per bin as the response has them, 20 in all.
  const std::vector<std::string> pods =
      All(dom, R"re(<svg class="bin"[^>]*data-pods="(\d+)")re");
  ASSERT_EQ(pods.size(), names.size());
  int placed = 0;
  for (int i = 0; i < response.new_node_claims_size(); ++i) {
    EXPECT_EQ(pods[i], absl::StrCat(response.new_node_claims(i).pods_size()));
    placed += response.new_node_claims(i).pods_size();
  }
  EXPECT_EQ(placed, 20);
  EXPECT_EQ(Sum(pods), 20);
  // Inside the bins, every pod block is an SVG rect the browser kept, and the
  // inflate Deployment's blocks account for its 20 pods.
  EXPECT_THAT(
      dom,
      HasSubstr(R"re(<rect class="pod" data-owner="Deployment/inflate")re"));
  EXPECT_EQ(
      Sum(All(
          dom,
          R"re(<span class="owner" data-owner="Deployment/inflate" data-pods="(\d+)")re")),
      20);
  // The totals.
  EXPECT_THAT(
      dom, HasSubstr(absl::StrCat("<td id=\"total-nodeclaims\">",
                                  response.new_node_claims_size(), "</td>")));
  EXPECT_THAT(dom, HasSubstr("<td id=\"total-pods\">20</td>"));
  char cost[64];
  std::snprintf(cost, sizeof cost, "$%.3f/hour", response.cost());
  EXPECT_THAT(dom, HasSubstr(absl::StrCat("<td id=\"total-cost\">", cost)));

  // The screenshot: a PNG of the window's size with far more in it than a
  // blank page of the same size.
  const std::string shot = TempPath("plan.png");
  Chromium(absl::StrCat("--window-size=1200,900 --screenshot='", shot, "'"),
           page, &status);
  ASSERT_EQ(status, 0) << "chromium --screenshot failed";
  const std::string png = ReadFile(shot);
  EXPECT_EQ(PngSize(png), std::make_pair(1200, 900));
  const std::string blank_page = TempPath("blank.html");
  std::ofstream(blank_page) << "<!DOCTYPE html><html><body></body></html>";
  const std::string blank_shot = TempPath("blank.png");
  Chromium(
      absl::StrCat("--window-size=1200,900 --screenshot='", blank_shot, "'"),
      blank_page, &status);
  const std::string blank = ReadFile(blank_shot);
  ASSERT_EQ(PngSize(blank), std::make_pair(1200, 900));
  EXPECT_GT(png.size(), 4 * blank.size())
      << "the screenshot looks empty: " << png.size() << " bytes against "
      << blank.size() << " for a blank page";
  for (const std::string& p : {page, shot, blank_page, blank_shot}) {
    std::remove(p.c_str());
  }
}

// The disrupt page: the scale-in cluster's two nodes as bins with their bound
// pods and what disruption does with each, as chromium parses it.
TEST(HtmlTest, DisruptPageInHeadlessChromium) {
  ASSERT_STRNE(NODEPLAN_CHROMIUM, "")
      << "chromium was not found at configure time; scripts/setup.sh "
         "installs Debian's chromium package";
  const std::string html = Nodeplan(
      "disrupt -f examples/workshop/ -f examples/workshop/scale-in/ --now "
      "2026-12-02T12:00:00Z -o html");
  const std::string page = TempPath("disrupt.html");
  std::ofstream(page) << html;
  int status = -1;
  const std::string dom = Chromium("--dump-dom", page, &status);
  ASSERT_EQ(status, 0) << "chromium --dump-dom failed";
  EXPECT_EQ(All(dom, R"re(<svg class="bin"[^>]*data-name="([^"]*)")re"),
            (std::vector<std::string>{"ip-10-0-1-23.ec2.internal",
                                      "ip-10-0-1-57.ec2.internal"}));
  EXPECT_EQ(All(dom, R"re(<svg class="bin"[^>]*data-pods="(\d+)")re"),
            (std::vector<std::string>{"3", "2"}));
  EXPECT_EQ(All(dom, R"re(<svg class="bin"[^>]*data-note="([^"]*)")re"),
            (std::vector<std::string>{"candidate, kept for now",
                                      "candidate, kept for now"}));
  EXPECT_THAT(dom, HasSubstr("<td id=\"total-commands\">0</td>"));
  EXPECT_THAT(dom, HasSubstr("<td id=\"total-cost\">$0.277/hour</td>"));
  EXPECT_THAT(dom, HasSubstr("No disruption now."));
  std::remove(page.c_str());
}

// --packing Optimized on the workshop's consolidation: Karpenter's decision
// stays the bins' notes and the totals; nodeplan's proposal is a section of
// its own, labelled as not Karpenter's, with its replacements drawn and its
// savings, and the nodes it removes marked apart from Karpenter's notes.
TEST(HtmlTest, DisruptPageShowsTheOptimizedProposalApart) {
  ASSERT_STRNE(NODEPLAN_CHROMIUM, "")
      << "chromium was not found at configure time; scripts/setup.sh "
         "installs Debian's chromium package";
  const std::string base =
      "disrupt -f examples/workshop/nodeclass-default.yaml -f "
      "examples/workshop/consolidate/ --now 2026-12-02T12:00:00Z -o html";
  const std::string karpenter = Nodeplan(base);
  EXPECT_THAT(karpenter, Not(HasSubstr("optimized")));
  EXPECT_THAT(karpenter, Not(HasSubstr("data-proposal")));
  const std::string html = Nodeplan(base + " --packing Optimized");
  // Same input, same page.
  EXPECT_EQ(html, Nodeplan(base + " --packing Optimized"));
  const std::string page = TempPath("optimized.html");
  std::ofstream(page) << html;
  int status = -1;
  const std::string dom = Chromium("--dump-dom", page, &status);
  ASSERT_EQ(status, 0) << "chromium --dump-dom failed";
  const std::vector<std::string> nodes = {"ip-10-0-1-23.ec2.internal",
                                          "ip-10-0-1-41.ec2.internal",
                                          "ip-10-0-1-88.ec2.internal"};
  // Karpenter's decision, as without the option.
  EXPECT_EQ(
      All(dom,
          R"re(<svg class="bin"[^>]*data-kind="Node"[^>]*data-note="([^"]*)")re"),
      (std::vector<std::string>{"replace (Underutilized)",
                                "replace (Underutilized)",
                                "candidate, kept for now"}));
  EXPECT_THAT(dom, HasSubstr("<td id=\"total-savings\">$0.299/hour</td>"));
  // nodeplan's proposal: every node goes, three c5.large with 7 pods each.
  EXPECT_EQ(
      All(dom,
          R"re(<svg class="bin"[^>]*data-name="([^"]*)"[^>]*data-proposal="nodeplan: replace")re"),
      nodes);
  EXPECT_THAT(dom, HasSubstr("<section class=\"proposal\" id=\"optimized\">"
                             "<h2>nodeplan's optimized consolidation (not "
                             "Karpenter's decision)</h2>"));
  const std::string section = dom.substr(dom.find("id=\"optimized\""));
  EXPECT_EQ(
      All(section,
          R"re(<svg class="bin"[^>]*data-kind="proposed NodeClaim"[^>]*data-pods="(\d+)")re"),
      (std::vector<std::string>{"7", "7", "7"}));
  EXPECT_EQ(
      All(section,
          R"re(<svg class="bin"[^>]*data-kind="proposed NodeClaim"[^>]*data-instance-type="([^"]*)")re"),
      (std::vector<std::string>{"c5.large", "c5.large", "c5.large"}));
  EXPECT_THAT(dom, HasSubstr("<td id=\"optimized-removes\">"
                             "ip-10-0-1-23.ec2.internal, "
                             "ip-10-0-1-41.ec2.internal, "
                             "ip-10-0-1-88.ec2.internal</td>"));
  EXPECT_THAT(dom, HasSubstr("<td id=\"optimized-savings\">$0.321/hour "
                             "($234/month)</td>"));
  EXPECT_THAT(dom, HasSubstr("<td id=\"optimized-over-karpenter\">$0.022/hour "
                             "(Karpenter's: $0.299/hour)</td>"));
  EXPECT_THAT(dom,
              HasSubstr("<td id=\"total-optimized-savings\">$0.321/hour</td>"));
  // The page's pods are the cluster's: the proposal's are not counted again.
  EXPECT_THAT(dom, HasSubstr("<td id=\"total-pods\">21</td>"));
  std::remove(page.c_str());
}

// Without a proposal the section says why, and no bin is marked.
TEST(HtmlTest, DisruptPageSaysWhyThereIsNoProposal) {
  const std::string dir =
      absl::StrCat(NODEPLAN_SOURCE_DIR, "/examples/workshop/");
  absl::StatusOr<v1::ManifestSet> m = LoadManifestFiles(
      {dir + "nodepool-default.yaml", dir + "nodepool-general-purpose.yaml",
       dir + "nodeclass-default.yaml", dir + "scale-in/"},
      {});
  ASSERT_TRUE(m.ok()) << m.status();
  v1::DisruptRequest request;
  *request.mutable_node_pools() = m->node_pools();
  *request.mutable_node_classes() = m->node_classes();
  *request.mutable_node_claims() = m->node_claims();
  *request.mutable_nodes() = m->nodes();
  *request.mutable_pods() = m->pods();
  request.set_catalog_ref("aws");
  request.set_now("2026-12-02T12:00:00Z");
  absl::StatusOr<v1::DisruptResponse> karpenter = Disrupt(request);
  ASSERT_TRUE(karpenter.ok()) << karpenter.status();
  request.mutable_options()->set_packing("Optimized");
  absl::StatusOr<v1::DisruptResponse> response = Disrupt(request);
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_FALSE(response->optimized().has_command());
  const std::string html = RenderPicture(DisruptPicture(request, *response));
  EXPECT_THAT(html, HasSubstr("<section class=\"proposal\" id=\"optimized\">"));
  EXPECT_THAT(html, HasSubstr("proposes nothing: this pass&#39;s commands save "
                              "as much ($0.192/hour)."));
  EXPECT_THAT(html, HasSubstr("<td id=\"total-optimized-savings\">none</td>"));
  EXPECT_THAT(html, Not(HasSubstr("data-proposal")));
  EXPECT_THAT(html, Not(HasSubstr("proposed NodeClaim")));
  // Karpenter's page is the same page without the section and its row.
  const std::string plain = RenderPicture(DisruptPicture(request, *karpenter));
  EXPECT_THAT(plain, Not(HasSubstr("id=\"optimized\"")));
  EXPECT_THAT(plain, Not(HasSubstr("total-optimized-savings")));
}

// 5,000 pods: bins of one shape are drawn once with their count, so the page
// stays small, and the counts still add up to every pod placed.
TEST(HtmlTest, FiveThousandPodsAggregate) {
  const v1::ScheduleRequest request = workload::KarpenterBenchmark(5000);
  absl::StatusOr<v1::ScheduleResponse> response = Schedule(request);
  ASSERT_TRUE(response.ok()) << response.status();
  const std::string html = RenderPicture(SchedulePicture(request, *response));
  const std::regex bin(
      R"re(<svg class="bin"[^>]*data-count="(\d+)" data-pods-total="(\d+)")re");
  int placed = 0;
  int bins = 0;
  int machines = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), bin);
       it != std::sregex_iterator(); ++it) {
    ++bins;
    machines += std::stoi((*it)[1].str());
    placed += std::stoi((*it)[2].str());
  }
  EXPECT_EQ(machines, response->new_node_claims_size());
  EXPECT_EQ(placed + response->unschedulable_size(), 5000);
  EXPECT_LE(bins, response->new_node_claims_size());
  // 1,000 NodeClaims drawn as far fewer bins.
  EXPECT_LE(bins, 2 * kMaxBinsPerGroup);
  EXPECT_LT(html.size(), 4u << 20) << "the page should stay a few MB";
  // The same input gives the same page.
  EXPECT_EQ(html, RenderPicture(SchedulePicture(request, *response)));
}

}  // namespace
}  // namespace nodeplan::cli
