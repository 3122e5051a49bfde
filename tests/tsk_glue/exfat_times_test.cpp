// exFAT times read from the File directory entry itself (tsk_glue/exfat_times.h), against recovery-exfat.E01.
// fixtures/build-images.sh writes F1's history_item.json (entry 3079) as Windows does at UTC+02:00: saved at
// 2026-05-14T20:41:37.000Z, its LastModified field holds the wall time 22:41:36 with a 10 ms increment of 100, its
// LastAccessed 22:41:36 (2 s, no increment), its Create 2024-04-01 02:00:00 (FS_EPOCH), each UtcOffset 0x88
// (valid, +8 x 15 min). Every other entry of the image is UTC (offset 0x80) with no increment of exactly 100.
#include <gtest/gtest.h>
#include <tsk/libtsk.h>

#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo::tsk {
namespace {

using namespace test;

constexpr uint64_t kZonedInode = 3079;  // F1 history_item.json (fixtures/README.md, "The same tree on exFAT")
constexpr int64_t kSavedUtc = 1778791297;      // 2026-05-14T20:41:37Z: wall 22:41:36 + 100 x 10 ms, minus 2 h
constexpr int64_t kAccessedUtc = 1778791296;   // 2026-05-14T20:41:36Z: wall 22:41:36, minus 2 h
constexpr int64_t kLibtskReads = 1778798496;   // 2026-05-14T22:41:36Z: the wall time as UTC, the increment lost
constexpr int64_t kLibtskCreated = kFsEpoch + 2 * 3600;  // 2024-04-01T02:00:00Z
constexpr int kFileEntries = 26;  // File entries (0x85 and 0x05) in the image's directories, counted in its bytes
// and the names libtsk adds at the root (`fls`): the volume label, allocation bitmap and up-case table entries (no
// File entry: they keep libtsk's times) and its virtual $MBR and $FAT1
constexpr int kSpecialNames = 5;

// libtsk reads DOS times as the process's local time; roo-ingest pins TZ=UTC, and so does this test.
void pin_utc() {
  setenv("TZ", "UTC", 1);
  tzset();
}

struct LibtskOnly {  // the image opened by libtsk alone, as istat sees it
  TSK_IMG_INFO* img = nullptr;
  TSK_FS_INFO* fs = nullptr;
  LibtskOnly() {
    img = tsk_img_open_utf8_sing(image("recovery-exfat.E01").c_str(), TSK_IMG_TYPE_DETECT, 0);
    if (img) fs = tsk_fs_open_img(img, 0, TSK_FS_TYPE_DETECT);
  }
  ~LibtskOnly() {
    if (fs) tsk_fs_close(fs);
    if (img) tsk_img_close(img);
  }
};

std::optional<FsTime> at(int64_t seconds) { return FsTime{seconds, 0}; }

// Every name below the root of the view, deleted ones included, by inode.
std::map<uint64_t, FileMeta> all_entries(FileSystemView& view) {
  std::map<uint64_t, FileMeta> out;
  std::function<void(const FileMeta&)> walk = [&](const FileMeta& dir) {
    for (const FileMeta& m : view.list_dir(dir)) {
      if (!m.inode) continue;
      out.emplace(*m.inode, m);
      if (m.is_dir) walk(m);
    }
  };
  walk(view.root());
  return out;
}

std::unique_ptr<FileSystemView> open_view(std::unique_ptr<Image>& img) {
  img = Image::open({image("recovery-exfat.E01")});
  for (const auto& p : img->partitions()) {
    if (p.kind != Partition::allocated) continue;
    std::string why;
    auto view = img->open_fs(p, "recovery-exfat.E01", &why);
    EXPECT_TRUE(view) << why;
    return view;
  }
  ADD_FAILURE() << "no file system";
  return nullptr;
}

TEST(ExfatTimes, ZonedEntryReadsAsTheMomentItWasWritten) {
  pin_utc();
  std::unique_ptr<Image> img;
  auto view = open_view(img);
  ASSERT_TRUE(view);
  auto entries = all_entries(*view);
  ASSERT_TRUE(entries.count(kZonedInode));
  const FileMeta& f = entries.at(kZonedInode);
  EXPECT_EQ(f.name, "history_item.json");
  EXPECT_TRUE(f.name_allocated);
  EXPECT_EQ(f.mtime, at(kSavedUtc));
  EXPECT_EQ(f.atime, at(kAccessedUtc));
  EXPECT_EQ(f.crtime, at(kFsEpoch));

  // libtsk alone reads the wall time as UTC and drops the increment of 100 (istat: Written 22:41:36).
  LibtskOnly tsk;
  ASSERT_TRUE(tsk.fs) << tsk_error_get();
  EXPECT_EQ(tsk.fs->ftype, TSK_FS_TYPE_EXFAT);
  TSK_FS_FILE* file = tsk_fs_file_open_meta(tsk.fs, nullptr, kZonedInode);
  ASSERT_TRUE(file && file->meta);
  EXPECT_EQ(file->meta->mtime, kLibtskReads);
  EXPECT_EQ(file->meta->mtime_nano, 0u);
  EXPECT_EQ(file->meta->atime, kLibtskReads);
  EXPECT_EQ(file->meta->crtime, kLibtskCreated);
  tsk_fs_file_close(file);
}

// Where libtsk reads an entry right (UTC, no increment of exactly 100: all the others), the entry's own fields give
// the same times: the inode-to-slot mapping is libtsk's. The root has no entry and keeps libtsk's times.
TEST(ExfatTimes, OtherEntriesAgreeWithLibtsk) {
  pin_utc();
  std::unique_ptr<Image> img;
  auto view = open_view(img);
  ASSERT_TRUE(view);
  LibtskOnly tsk;
  ASSERT_TRUE(tsk.fs) << tsk_error_get();
  auto libtsk_time = [](time_t s, uint32_t ns) { return s ? std::optional<FsTime>(FsTime{s, ns}) : std::nullopt; };
  auto entries = all_entries(*view);
  EXPECT_EQ(entries.size(), static_cast<size_t>(kFileEntries + kSpecialNames));
  entries.emplace(static_cast<uint64_t>(tsk.fs->root_inum), view->root());
  int compared = 0;
  for (const auto& [inode, m] : entries) {
    if (inode == kZonedInode) continue;
    SCOPED_TRACE(m.path);
    TSK_FS_FILE* file = tsk_fs_file_open_meta(tsk.fs, nullptr, inode);
    ASSERT_TRUE(file && file->meta);
    EXPECT_EQ(m.mtime, libtsk_time(file->meta->mtime, file->meta->mtime_nano));
    EXPECT_EQ(m.atime, libtsk_time(file->meta->atime, file->meta->atime_nano));
    EXPECT_EQ(m.crtime, libtsk_time(file->meta->crtime, file->meta->crtime_nano));
    tsk_fs_file_close(file);
    ++compared;
  }
  EXPECT_EQ(compared, kFileEntries + kSpecialNames);  // all but the zoned entry, and the root
}

}  // namespace
}  // namespace roo::tsk
