#include "core/folder_evidence.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace roo {
namespace {

// A FIFO planted in evidence must not hang the run: it is not a regular file and is refused at once.
TEST(FolderEvidence, FifoIsRefusedWithoutBlocking) {
  char dir[] = "/tmp/roo-folder-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string fifo = std::string(dir) + "/ui_messages.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  FolderFileSystem fs(dir);
  std::vector<FileMeta> names = fs.list_dir(fs.root());
  ASSERT_EQ(names.size(), 1u);
  EXPECT_FALSE(names[0].is_dir);
  EXPECT_EQ(fs.open(names[0]), nullptr);
  EXPECT_EQ(fs.errors().size(), 1u);
  std::filesystem::remove_all(dir);
}

// Links are listed but never followed: nothing outside the folder is read.
TEST(FolderEvidence, SymlinkIsNotFollowed) {
  char dir[] = "/tmp/roo-folder-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  ASSERT_EQ(symlink("/etc/hostname", (std::string(dir) + "/history_item.json").c_str()), 0);
  FolderFileSystem fs(dir);
  std::vector<FileMeta> names = fs.list_dir(fs.root());
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(fs.open(names[0]), nullptr);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace roo
