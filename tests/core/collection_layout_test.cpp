#include "core/collection_layout.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/folder_evidence.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  std::string path;
  TempDir() {
    char dir[] = "/tmp/roo-collection-XXXXXX";
    path = mkdtemp(dir);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& rel, const std::string& bytes) const {
    fs::create_directories(fs::path(path + "/" + rel).parent_path());
    std::ofstream(path + "/" + rel, std::ios::binary) << bytes;
  }
};

TEST(CollectionLayout, NamesAreDecodedOnlyWhereAValidEscapeIs) {
  EXPECT_EQ(decode_collected_name("C%3A"), "C:");
  EXPECT_EQ(decode_collected_name("100%25 done"), "100% done");
  EXPECT_EQ(decode_collected_name("%5C%5C.%5CC%3A"), "\\\\.\\C:");
  EXPECT_EQ(decode_collected_name("50%"), "50%");
  EXPECT_EQ(decode_collected_name("%zz%4"), "%zz%4");
}

// A folder with a home at its top is a drive itself, not a collection of drives.
TEST(CollectionLayout, APlainFolderIsNoCollection) {
  TempDir t;
  t.write("Users/bob/x.txt", "x");
  t.write("C/readme.txt", "x");
  EXPECT_EQ(detect_collection_layout(t.path).collector, "");
}

// KAPE: one folder per drive letter; the copy logs' CreatedOnUtc, ModifiedOnUtc, LastAccessedOnUtc by SourceFile,
// to the 100 ns KAPE writes; a quoted SourceFile with a comma; a line that is no record is skipped and said.
TEST(CollectionLayout, KapeDrivesAndCopyLogTimes) {
  TempDir t;
  t.write("C/Users/bob/a.json", "{}");
  t.write("d/Data/b.json", "{}");
  t.write("2026-04-01T10_00_00_1234567_CopyLog.csv",
          "\xEF\xBB\xBF"
          "CopiedTimestamp,SourceFile,DestinationFile,FileSize,SourceFileSha1,DeferredCopy,CreatedOnUtc,"
          "ModifiedOnUtc,LastAccessedOnUtc,CopyDuration\r\n"
          "2026-04-01 10:00:01.0000000,C:\\Users\\Bob\\A.json,E:\\o\\C\\Users\\Bob\\A.json,2,AB,False,"
          "2026-03-01 08:00:00.0000000,2026-03-19 09:30:15.1234567,2026-03-20 07:00:00.5000000,00:00:00\r\n"
          "2026-04-01 10:00:01.0000000,\"D:\\Data\\x,y.json\",E:\\o\\D\\Data\\x,y.json,2,AB,False,"
          "2026-01-01 00:00:00,2026-01-02 00:00:00,2026-01-03 00:00:00,00:00:00\r\n"
          "garbage line\r\n");
  const CollectionLayout layout = detect_collection_layout(t.path);
  EXPECT_EQ(layout.collector, "kape");
  EXPECT_FALSE(layout.encoded_names);
  ASSERT_EQ(layout.drives.size(), 2u);
  EXPECT_EQ(layout.drives[0].drive, "C:");
  EXPECT_EQ(layout.drives[1].drive, "D:");
  EXPECT_EQ(layout.drives[1].host_dir, t.path + "/d");
  ASSERT_TRUE(layout.drives[0].times);
  const OriginalTimes& a = layout.drives[0].times->at("/users/bob/a.json");
  EXPECT_EQ(a.mtime, (FsTime{1773912615, 123456700}));  // 2026-03-19T09:30:15.1234567Z
  EXPECT_EQ(a.atime, (FsTime{1773990000, 500000000}));
  EXPECT_EQ(a.crtime, (FsTime{1772352000, 0}));
  EXPECT_FALSE(a.ctime);
  ASSERT_TRUE(layout.drives[1].times);
  EXPECT_EQ(layout.drives[1].times->count("/data/x,y.json"), 1u);
  ASSERT_EQ(layout.warnings.size(), 1u);
  EXPECT_NE(layout.warnings[0].find("line 4"), std::string::npos);
}

// Velociraptor: uploads/<accessor>/<drive>; a drive under "auto" and "ntfs" is read once, from "auto".
TEST(CollectionLayout, VelociraptorDrivesFromAutoFirst) {
  TempDir t;
  t.write("uploads/auto/C%3A/Users/bob/a.json", "{}");
  t.write("uploads/ntfs/%5C%5C.%5CC%3A/Users/bob/a.json", "{}");
  t.write("uploads/ntfs/%5C%5C.%5CD%3A/x.json", "{}");
  t.write("results/Generic.Forensic.RooCode.json",
          "{\"OSPath\":\"C:\\\\Users\\\\bob\\\\a.json\",\"Mtime\":\"2026-03-19T09:30:15.123456789Z\","
          "\"Btime\":\"2026-03-01T08:00:00+00:00\",\"Ctime\":\"2026-03-19T11:30:15+02:00\"}\n");
  const CollectionLayout layout = detect_collection_layout(t.path);
  EXPECT_EQ(layout.collector, "velociraptor");
  EXPECT_TRUE(layout.encoded_names);
  ASSERT_EQ(layout.drives.size(), 2u);
  EXPECT_EQ(layout.drives[0].host_dir, t.path + "/uploads/auto/C%3A");
  EXPECT_EQ(layout.drives[1].host_dir, t.path + "/uploads/ntfs/%5C%5C.%5CD%3A");
  const OriginalTimes& a = layout.drives[0].times->at("/users/bob/a.json");
  EXPECT_EQ(a.mtime, (FsTime{1773912615, 123456789}));
  EXPECT_EQ(a.crtime, (FsTime{1772352000, 0}));
  EXPECT_FALSE(a.ctime);  // another zone is never converted by guess
  EXPECT_FALSE(a.atime);
}

// A drive folder read through the view: decoded names, paths that open, the recorded times (all four replaced).
TEST(CollectionLayout, DriveViewDecodesNamesAndTakesRecordedTimes) {
  TempDir t;
  t.write("uploads/auto/C%3A/Users/b%25b/a.json", "{}");
  t.write("results/Generic.Forensic.RooCode.json",
          "{\"OSPath\":\"C:\\\\Users\\\\B%B\\\\A.JSON\",\"Mtime\":\"2026-03-19T09:30:15Z\"}\n");
  const CollectionLayout layout = detect_collection_layout(t.path);
  ASSERT_EQ(layout.drives.size(), 1u);
  FolderFileSystem view(CollectedDriveOptions{"velociraptor", "case", layout.drives[0], true, "velociraptor_results"});
  EXPECT_EQ(view.volume().evidence, "case");
  ASSERT_TRUE(view.volume().collection);
  EXPECT_EQ(view.volume().collection->drive, "C:");
  std::vector<FileMeta> users = view.list_dir(view.root());
  ASSERT_EQ(users.size(), 1u);
  std::vector<FileMeta> homes = view.list_dir(users[0]);
  ASSERT_EQ(homes.size(), 1u);
  EXPECT_EQ(homes[0].path, "/Users/b%b");
  EXPECT_EQ(homes[0].times_from, "copy");
  std::vector<FileMeta> files = view.list_dir(homes[0]);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].times_from, "velociraptor_results");
  EXPECT_EQ(files[0].mtime, (FsTime{1773912615, 0}));
  EXPECT_FALSE(files[0].ctime);
  // another view (another worker) opens what the first listed
  FolderFileSystem other(CollectedDriveOptions{"velociraptor", "case", layout.drives[0], true, "velociraptor_results"});
  std::unique_ptr<ByteSource> bytes = other.open(files[0]);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 2u);
}

}  // namespace
}  // namespace roo
