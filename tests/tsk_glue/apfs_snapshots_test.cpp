// An APFS volume's local snapshot merged into its live view (tsk_glue/apfs_snapshots.h), on
// fixtures/apfs/macos-apfs-snap.E01 (fixtures/README.md "Snapshot"): the Data volume (block 1076) has snapshot
// com.apple.TimeMachine.2026-04-23-080000.local (xid 1), which holds frank's Cursor task 019db70c (deleted since: fls
// -S 1 lists its directory as 54, its files as 55 and 56) and an older ui_messages.json of his Code task 019dabc5
// (fixtures/trees/macos-apfs-snap-older/); every other file is the live one's, on the same extent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
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

// The pool volume at `block` (0: the first one) of the image, opened as evidence `evidence`.
std::unique_ptr<FileSystemView> pool_volume(Image& image, const std::string& evidence, uint64_t block) {
  for (const Partition& p : image.partitions())
    if (p.container)
      for (const PoolVolume& v : p.container->volumes)
        if (v.block == block || block == 0) {
          Partition volume = p;
          volume.pool_volume = v;
          std::string why;
          auto view = image.open_fs(volume, evidence, &why);
          EXPECT_TRUE(view) << why;
          return view;
        }
  ADD_FAILURE() << "no volume at block " << block;
  return nullptr;
}

std::unique_ptr<FileSystemView> data_volume(Image& image) { return pool_volume(image, "macos-apfs-snap.E01", 1076); }

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

// A Data volume written here by fixtures/tools/apfs_put.py with one snapshot (snap-1, xid 1) under frank's Code tasks
// dir: task-a renamed to task-b since the snapshot (so the tasks dir, holding one entry in both states, has a later
// modified time live, as a rename gives it), and task-c's ui_messages.json rewritten in place (its directory's
// metadata the same in both states). Every entry's times are given (TIMES.tsv), so nothing else differs.
class ApfsSnapshotsWrittenHere : public ::testing::Test {
 protected:
  static constexpr const char* kTasks =
      "/Users/frank/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
  static constexpr const char* kOld = R"([{"ts":1,"type":"say","say":"text","text":"old"}])";
  static constexpr const char* kNew = R"([{"ts":1,"type":"say","say":"text","text":"old"},{"ts":2,"type":"say"}])";

  // The state's tree under dir: the tasks named, each with its ui_messages.json; TIMES.tsv times every entry
  // 2023-11-14T22:13:20Z except the tasks dir, which has tasks_mtime.
  void write_state(const test::fs::path& dir, const std::vector<std::pair<std::string, std::string>>& tasks,
                   int64_t tasks_mtime) {
    std::ofstream times(dir.string() + ".times.tsv");
    std::string rel;
    times << "/\t1700000000\t1700000000\n";
    for (size_t start = 1; start < std::string(kTasks).size();) {
      const size_t end = std::min(std::string(kTasks).find('/', start), std::string(kTasks).size());
      rel = std::string(kTasks).substr(0, end);
      times << rel << "\t" << (end == std::string(kTasks).size() ? tasks_mtime : 1700000000) << "\t1700000000\n";
      start = end + 1;
    }
    for (const auto& [task, bytes] : tasks) {
      const test::fs::path task_dir = dir / (std::string(kTasks).substr(1) + "/" + task);
      test::fs::create_directories(task_dir);
      std::ofstream(task_dir / "ui_messages.json") << bytes;
      times << kTasks << "/" << task << "\t1700000000\t1700000000\n";
      times << kTasks << "/" << task << "/ui_messages.json\t1700000000\t1700000000\n";
    }
  }

  void SetUp() override {
    const test::fs::path live = tmp_.path() / "live", snap = tmp_.path() / "snap";
    write_state(snap, {{"task-a", kOld}, {"task-c", kOld}}, 1700000000);
    write_state(live, {{"task-b", kOld}, {"task-c", kNew}}, 1700003600);
    std::ofstream(tmp_.path() / "snaps.tsv") << "snap-1\t1700001000\t" << snap.string() << "\t" << snap.string()
                                             << ".times.tsv\n";
    image_ = (tmp_.path() / "volume.apfs").string();
    const std::string command =
        "python3 '" + (test::fixtures() / "tools" / "apfs_put.py").string() + "' -o '" + image_ +
        "' --blocks 2048 --uuid a9f5c0de-0000-4a00-8000-00000000d001 -b 1711929600 --volume "
        "'name=Data,role=data,uuid=a9f5c0de-0000-4a00-8000-00000000d012,case=insensitive,src=" + live.string() +
        ",times=" + live.string() + ".times.tsv,snaps=" + (tmp_.path() / "snaps.tsv").string() + "' >/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  std::unique_ptr<FileSystemView> open_data_volume(Image& image) { return pool_volume(image, "volume.apfs", 0); }

  test::TempDir tmp_;
  std::string image_;
};

TEST_F(ApfsSnapshotsWrittenHere, TheOldNameIsListedFromTheSnapshot) {
  auto image = Image::open({image_});
  auto view = open_data_volume(*image);
  ASSERT_TRUE(view);
  const std::vector<FileMeta> tasks = view->list_dir(walk(*view, kTasks));
  std::vector<std::string> listed;
  for (const FileMeta& f : tasks) listed.push_back(f.name + (f.snapshot ? " (snap-1)" : ""));
  EXPECT_EQ(listed, (std::vector<std::string>{"task-a (snap-1)", "task-b", "task-c"}));
  ASSERT_EQ(tasks.size(), 3u);
  const std::vector<FileMeta> old_files = view->list_dir(tasks[0]);
  ASSERT_EQ(old_files.size(), 1u);
  EXPECT_EQ(old_files[0].name, "ui_messages.json");
  EXPECT_EQ(old_files[0].recovery, Recovery::snapshot);
  auto bytes = view->open(old_files[0]);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(test::read_all(*bytes), kOld);
  const std::vector<FileMeta> renamed = view->list_dir(tasks[1]);  // not in the snapshot under this name
  ASSERT_EQ(renamed.size(), 1u);
  EXPECT_TRUE(renamed[0].same_in_snapshots.empty());
}

TEST_F(ApfsSnapshotsWrittenHere, AFileRewrittenInAnUnchangedDirectoryIsListedTwice) {
  auto image = Image::open({image_});
  auto view = open_data_volume(*image);
  ASSERT_TRUE(view);
  auto* merged = dynamic_cast<SnapshotMergingView*>(view.get());
  ASSERT_TRUE(merged);
  const std::vector<FileMeta> tasks = view->list_dir(walk(*view, kTasks));
  ASSERT_EQ(tasks.size(), 3u);
  ASSERT_EQ(tasks[2].name, "task-c");
  const SnapshotMergingView::Counts before = merged->counts();
  const std::vector<FileMeta> files = view->list_dir(tasks[2]);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_TRUE(files[0].name_allocated);
  EXPECT_EQ(files[0].size, std::string(kNew).size());
  EXPECT_TRUE(files[0].same_in_snapshots.empty());
  EXPECT_EQ(files[1].name, "ui_messages.json");
  ASSERT_TRUE(files[1].snapshot);
  EXPECT_EQ(files[1].snapshot->name, "snap-1");
  EXPECT_EQ(files[1].size, std::string(kOld).size());
  EXPECT_EQ(files[1].inode, files[0].inode);  // one inode, rewritten
  auto bytes = view->open(files[1]);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(test::read_all(*bytes), kOld);
  // task-c's directory was not listed in the snapshot: its metadata is the live one's.
  const SnapshotMergingView::Counts after = merged->counts();
  EXPECT_EQ(after.dirs_unchanged - before.dirs_unchanged, 1);
  EXPECT_EQ(after.dirs_listed - before.dirs_listed, 0);
  EXPECT_EQ(after.listed - before.listed, 1);
}

}  // namespace
}  // namespace roo::tsk
