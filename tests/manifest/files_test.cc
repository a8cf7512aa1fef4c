// LoadManifestFiles: files, directories (sorted, filtered by extension),
// merging, and errors that name the file.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

namespace fs = std::filesystem;

class FilesTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nodeplan_files_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "sub.yaml");  // a directory, not read
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string Node(const std::string& name) {
    return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\n";
  }
  fs::path dir_;
};

TEST_F(FilesTest, DirectoryReadsManifestFilesInNameOrder) {
  Write("b.yml", Node("b"));
  Write("a.yaml", Node("a"));
  Write("c.json",
        R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"c"}})");
  Write("notes.txt", "not a manifest");
  Write("d.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n");
  v1::LoadOptions options;
  options.set_skip_unknown_kinds(true);
  absl::StatusOr<v1::ManifestSet> got =
      LoadManifestFiles({dir_.string()}, options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->nodes_size(), 3);
  EXPECT_EQ(got->nodes(0).metadata().name(), "a");
  EXPECT_EQ(got->nodes(1).metadata().name(), "b");
  EXPECT_EQ(got->nodes(2).metadata().name(), "c");
  ASSERT_EQ(got->findings_size(), 1);
  EXPECT_EQ(got->findings(0).object(),
            (dir_ / "d.yaml").string() + ": document 1: Service s");
}

TEST_F(FilesTest, MergesFilesInArgumentOrder) {
  Write("x.yaml", Node("x"));
  Write("y.yaml", Node("y"));
  absl::StatusOr<v1::ManifestSet> got = LoadManifestFiles(
      {(dir_ / "y.yaml").string(), (dir_ / "x.yaml").string()}, {});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->nodes_size(), 2);
  EXPECT_EQ(got->nodes(0).metadata().name(), "y");
  EXPECT_EQ(got->nodes(1).metadata().name(), "x");
}

TEST_F(FilesTest, RecordsWhereEachObjectCameFromWhenAsked) {
  Write("x.yaml", Node("x") + "---\n" + Node("y"));
  Write("list.json", R"({"apiVersion":"v1","kind":"PodList","items":[)"
                     R"({"metadata":{"name":"p","namespace":"web"}}]})");
  const std::vector<std::string> files = {(dir_ / "x.yaml").string(),
                                          (dir_ / "list.json").string()};
  absl::StatusOr<v1::ManifestSet> lean = LoadManifestFiles(files, {});
  ASSERT_TRUE(lean.ok()) << lean.status();
  EXPECT_EQ(lean->origins_size(), 0);  // off by default

  v1::LoadOptions options;
  options.set_record_origins(true);
  absl::StatusOr<v1::ManifestSet> got = LoadManifestFiles(files, options);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->origins_size(), 3);
  EXPECT_EQ(got->origins(0).object(), "Node x");
  EXPECT_EQ(got->origins(0).location(),
            (dir_ / "x.yaml").string() + ": document 1 (line 1)");
  EXPECT_EQ(got->origins(1).object(), "Node y");
  EXPECT_EQ(got->origins(1).location(),
            (dir_ / "x.yaml").string() + ": document 2 (line 5)");
  EXPECT_EQ(got->origins(2).object(), "Pod web/p");
  EXPECT_EQ(got->origins(2).location(),
            (dir_ / "list.json").string() + ": document 1, items[0] (line 1)");
}

TEST_F(FilesTest, ErrorsNameTheFile) {
  Write("good.yaml", Node("g"));
  Write("bad.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: [}\n");
  absl::StatusOr<v1::ManifestSet> got = LoadManifestFiles({dir_.string()}, {});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(std::string(got.status().message())
                .rfind((dir_ / "bad.yaml").string() +
                           ": document 1: YAML syntax error",
                       0),
            0u)
      << got.status();
  const std::string missing = (dir_ / "missing.yaml").string();
  got = LoadManifestFiles({missing}, {});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(got.status().message()),
            missing + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace nodeplan
