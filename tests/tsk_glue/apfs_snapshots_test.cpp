// An APFS volume's local snapshot merged into its live view (tsk_glue/apfs_snapshots.h), on
// fixtures/apfs/macos-apfs-snap.E01 (fixtures/README.md "Snapshot"): the Data volume (block 1076) has snapshot
// com.apple.TimeMachine.2026-04-23-080000.local (xid 1), which holds frank's Cursor task 019db70c (deleted since: fls
// -S 1 lists its directory as 54, its files as 55 and 56) and an older ui_messages.json of his Code task 019dabc5
// (fixtures/trees/macos-apfs-snap-older/); every other file is the live one's, on the same extent.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/apfs_snapshots.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo::tsk {
namespace {

const std::string kSnapshot = "com.apple.TimeMachine.2026-04-23-080000.local";
const std::string kFrank = "/Users/frank/Library/Application Support";
const std::string kRoot = "/User/globalStorage/rooveterinaryinc.roo-cline/tasks";

std::unique_ptr<FileSystemView> data_volume(Image& image) {
  for (const Partition& p : image.partitions())
    if (p.container)
      for (const PoolVolume& v : p.container->volumes)
        if (v.block == 1076) {
          Partition volume = p;
          volume.pool_volume = v;
          std::string why;
          auto view = image.open_fs(volume, "macos-apfs-snap.E01", &why);
          EXPECT_TRUE(view) << why;
          return view;
        }
  ADD_FAILURE() << "no volume at block 1076";
  return nullptr;
}

// The directory at path, reached name by name from the root through the view's listings.
FileMeta walk(FileSystemView& view, const std::string& path) {
  FileMeta at = view.root();
  size_t start = 1;
  while (start < path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string name = path.substr(start, end - start);
    bool found = false;
    for (const FileMeta& m : view.list_dir(at))
      if (m.name == name && m.is_dir) {
        at = m;
        found = true;
        break;
      }
    if (!found) {
      ADD_FAILURE() << "no directory " << name << " on the way to " << path;
      return at;
    }
    start = end + 1;
  }
  return at;
}

TEST(ApfsSnapshots, SnapshotOnlyTaskIsListedFromTheSnapshot) {
  auto image = Image::open({(test::fixtures() / "apfs" / "macos-apfs-snap.E01").string()});
  auto view = data_volume(*image);
  ASSERT_TRUE(view);
  const std::vector<FileMeta> tasks = view->list_dir(walk(*view, kFrank + "/Cursor" + kRoot));
  ASSERT_EQ(tasks.size(), 1u);
  const FileMeta& dir = tasks[0];
  EXPECT_EQ(dir.name, "019db70c-52f8-7a16-b3e9-5c07d41f8a2b");
  EXPECT_TRUE(dir.is_dir);
  EXPECT_EQ(dir.inode, 54u);
  EXPECT_FALSE(dir.name_allocated);
  EXPECT_EQ(dir.recovery, Recovery::snapshot);
  ASSERT_TRUE(dir.snapshot);
  EXPECT_EQ(dir.snapshot->name, kSnapshot);
  EXPECT_EQ(dir.snapshot->xid, 1u);
  ASSERT_TRUE(dir.snapshot->created);
  EXPECT_EQ(dir.snapshot->created->seconds, 1776931200);  // 2026-04-23T08:00:00Z
  const std::vector<FileMeta> files = view->list_dir(dir);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "history_item.json");
  EXPECT_EQ(files[0].inode, 55u);
  EXPECT_EQ(files[1].name, "ui_messages.json");
  EXPECT_EQ(files[1].inode, 56u);
  for (const FileMeta& f : files) {
    EXPECT_EQ(f.recovery, Recovery::snapshot);
    EXPECT_EQ(f.snapshot, dir.snapshot);
  }
  // Read from the snapshot: the tree's history_item.json, 295 bytes, starting as a HistoryItem does.
  auto bytes = view->open(files[0]);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 295u);
  char head[7] = {};
  EXPECT_EQ(bytes->read_at(0, head, 6), 6);
  EXPECT_STREQ(head, "{\"id\":");
}

TEST(ApfsSnapshots, UnchangedFilesAreFoldedAndChangedOnesListedTwice) {
  auto image = Image::open({(test::fixtures() / "apfs" / "macos-apfs-snap.E01").string()});
  auto view = data_volume(*image);
  ASSERT_TRUE(view);
  const std::vector<FileMeta> files =
      view->list_dir(walk(*view, kFrank + "/Code" + kRoot + "/019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4"));
  std::vector<std::string> listed;
  for (const FileMeta& f : files) listed.push_back(f.name + (f.snapshot ? " (snapshot)" : ""));
  EXPECT_EQ(listed, (std::vector<std::string>{"api_conversation_history.json", "history_item.json",
                                              "task_metadata.json", "ui_messages.json",
                                              "ui_messages.json (snapshot)"}));
  ASSERT_EQ(files.size(), 5u);
  for (size_t i = 0; i < 3; ++i) {  // the same extents in the snapshot: not listed again, named on the live file
    EXPECT_TRUE(files[i].name_allocated);
    ASSERT_EQ(files[i].same_in_snapshots.size(), 1u) << files[i].name;
    EXPECT_EQ(files[i].same_in_snapshots[0].name, kSnapshot);
  }
  EXPECT_TRUE(files[3].same_in_snapshots.empty());  // the live ui_messages.json: 1834 bytes
  EXPECT_EQ(files[3].size, 1834u);
  EXPECT_EQ(files[4].size, 1428u);  // fixtures/trees/macos-apfs-snap-older/…/ui_messages.json
  EXPECT_EQ(files[4].recovery, Recovery::snapshot);
  EXPECT_FALSE(files[4].name_allocated);
}

// What the view counts of its snapshot: each of its files met in the directories listed, either listed as a copy of
// its own or not (the same extents as the live file's), and the copies opened, each once however often. Walking to
// frank's Code task lists, of the tree's files, User/settings.json, tasks/_index.json and the task's four: all but
// ui_messages.json on the live file's extents.
TEST(ApfsSnapshots, CountsSayWhatTheSnapshotListedFoldedAndOpened) {
  auto image = Image::open({(test::fixtures() / "apfs" / "macos-apfs-snap.E01").string()});
  auto view = data_volume(*image);
  ASSERT_TRUE(view);
  auto* merged = dynamic_cast<SnapshotMergingView*>(view.get());
  ASSERT_TRUE(merged);
  const std::vector<FileMeta> files =
      view->list_dir(walk(*view, kFrank + "/Code" + kRoot + "/019dabc5-57a7-7e4b-9c1d-3f5a8b20e6d4"));
  ASSERT_EQ(files.size(), 5u);
  ASSERT_TRUE(files[4].snapshot);
  EXPECT_TRUE(view->open(files[3]));  // the live ui_messages.json: no snapshot's
  EXPECT_TRUE(view->open(files[4]));
  EXPECT_TRUE(view->open(files[4]));
  const auto by_snapshot = merged->counts_by_snapshot();
  ASSERT_EQ(by_snapshot.size(), 1u);
  EXPECT_EQ(by_snapshot[0].first.name, kSnapshot);
  const SnapshotMergingView::Counts& c = by_snapshot[0].second;
  EXPECT_EQ(c.listed, 1);
  EXPECT_EQ(c.same_extents, 5);
  EXPECT_EQ(c.opened, 1);
  EXPECT_EQ(merged->counts().opened, 1);
}

}  // namespace
}  // namespace roo::tsk
