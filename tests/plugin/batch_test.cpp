// The parts of batch runs an engine builds on (plugin/batch/batch.h): sbatch's index list, the manifest's lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugin/batch/batch.h"

namespace roo::batch {
namespace {

TEST(BatchIndexList, RunsBecomeRanges) {
  EXPECT_EQ(format_index_list({}), "");
  EXPECT_EQ(format_index_list({4}), "4");
  EXPECT_EQ(format_index_list({3, 7, 8, 9}), "3,7-9");
  EXPECT_EQ(format_index_list({1, 2, 4, 5, 6, 10}), "1-2,4-6,10");
}

class ManifestFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/roo-manifest-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ / "a.E01") << "a";
    std::ofstream(dir_ / "b.001") << "b";
    std::ofstream(dir_ / "b.002") << "b";
    std::filesystem::create_directory(dir_ / "tree");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::optional<Manifest> load(const std::string& text, std::string* error) {
    std::ofstream(dir_ / "m.tsv") << text;
    return load_manifest((dir_ / "m.tsv").string(), error);
  }
  std::filesystem::path dir_;
};

TEST_F(ManifestFile, ItemsAreNumberedByDataLineAndPathsResolvedAgainstTheManifest) {
  std::string error;
  auto m = load("# lab 7, case 12\nevidence_id\tpath\tsegment\n\nA-1\ta.E01\n# later\nB.2\tb.001\tb.002\nT\ttree/\n",
                &error);
  ASSERT_TRUE(m) << error;
  ASSERT_EQ(m->items.size(), 3u);
  EXPECT_EQ(m->items[0].index, 1);
  EXPECT_EQ(m->items[0].file_line, 4);
  EXPECT_EQ(m->items[0].paths, std::vector<std::string>{(dir_ / "a.E01").string()});
  EXPECT_FALSE(m->items[0].folder);
  EXPECT_EQ(m->items[1].index, 2);
  EXPECT_EQ(m->items[1].paths.size(), 2u);
  EXPECT_EQ(m->items[2].id, "T");
  EXPECT_TRUE(m->items[2].folder);
  EXPECT_EQ(m->items[2].paths[0], (dir_ / "tree").string());
  EXPECT_EQ(m->item(3), &m->items[2]);
  EXPECT_EQ(m->item(4), nullptr);
  EXPECT_EQ(m->item(0), nullptr);
}

TEST_F(ManifestFile, RefusedWithTheLine) {
  std::string error;
  EXPECT_FALSE(load("", &error));
  EXPECT_NE(error.find("header"), std::string::npos) << error;
  EXPECT_FALSE(load("id\tpath\nA\ta.E01\n", &error));
  EXPECT_NE(error.find("line 1"), std::string::npos) << error;
  EXPECT_FALSE(load("evidence_id\tpath\nA\ta.E01\nA\tb.001\n", &error));
  EXPECT_NE(error.find("line 3: the evidence id A is on line 2 already"), std::string::npos) << error;
  EXPECT_FALSE(load("evidence_id\tpath\nA\ta.E01\nB\t./tree/../a.E01\n", &error));
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
  EXPECT_FALSE(load("evidence_id\tpath\nA\tb.001\tb.001\n", &error));  // a segment twice
  EXPECT_FALSE(load("evidence_id\tpath\nA b\ta.E01\n", &error));
  EXPECT_NE(error.find("character"), std::string::npos) << error;
  EXPECT_FALSE(load("evidence_id\tpath\nA\n", &error));
  EXPECT_NE(error.find("no path"), std::string::npos) << error;
  EXPECT_FALSE(load("evidence_id\tpath\nT\ttree/\ta.E01\n", &error));
  EXPECT_NE(error.find("folder"), std::string::npos) << error;
  // A missing path is not refused here: its item fails (exit 3) and --status says so.
  EXPECT_TRUE(load("evidence_id\tpath\nA\tnowhere.E01\n", &error)) << error;
}

}  // namespace
}  // namespace roo::batch
