// Encrypted APFS volumes (FileVault) through tsk_glue/apfs_filevault.h and Image::open_fs, on
// fixtures/apfs/macos-apfs-filevault.E01 (fixtures/README.md "FileVault"): "Macintosh HD" encrypted with the password
// and hint fixtures/build-apfs.sh gives apfs_put.py, holding fixtures/trees/macos; "Spare" not encrypted. The bytes a
// file must read as are the tree's own.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/unallocated.h"

namespace roo::tsk {
namespace {

const std::string kPassword = "tr0ub4dor&3 roo fixture";
const std::string kHint = "the usual one with the ampersand";

std::string image_path() { return (test::fixtures() / "apfs" / "macos-apfs-filevault.E01").string(); }

Partition volume_named(const std::vector<Partition>& parts, const std::string& name) {
  for (const Partition& p : parts)
    if (p.container)
      for (const PoolVolume& v : p.container->volumes)
        if (v.name == name) {
          Partition copy = p;
          copy.pool_volume = v;
          return copy;
        }
  ADD_FAILURE() << "no volume " << name;
  return {};
}

FileMeta at_path(FileSystemView& view, const std::string& path) {
  FileMeta m = view.root();
  size_t from = 1;
  while (from < path.size()) {
    const size_t to = std::min(path.find('/', from), path.size());
    const std::string part = path.substr(from, to - from);
    bool found = false;
    for (const FileMeta& c : view.list_dir(m))
      if (c.name == part) {
        m = c;
        found = true;
        break;
      }
    if (!found) {
      ADD_FAILURE() << "no " << part << " in " << path;
      return {};
    }
    from = to + 1;
  }
  return m;
}

TEST(ApfsFileVault, EncryptedVolumeIsListedWithItsHint) {
  auto image = Image::open({image_path()});
  const Partition enc = volume_named(image->partitions(), "Macintosh HD");
  ASSERT_TRUE(enc.pool_volume);
  EXPECT_TRUE(enc.pool_volume->encrypted);
  // Read from the superblock and the keybags: libtsk 4.11.1 opens no encrypted volume and decrypts no keybag.
  EXPECT_EQ(enc.pool_volume->uuid, "a9f5c0de-0000-4a00-8000-00000000c011");
  EXPECT_EQ(enc.pool_volume->password_hint, kHint);
  const Partition plain = volume_named(image->partitions(), "Spare");
  ASSERT_TRUE(plain.pool_volume);
  EXPECT_FALSE(plain.pool_volume->encrypted);
  EXPECT_EQ(plain.pool_volume->password_hint, "");
}

TEST(ApfsFileVault, WithoutOrWithAWrongPasswordItIsNotOpened) {
  auto image = Image::open({image_path()});
  const Partition enc = volume_named(image->partitions(), "Macintosh HD");
  std::string why;
  bool locked = false;
  EXPECT_EQ(image->open_fs(enc, "e", &why, {}, &locked), nullptr);
  EXPECT_EQ(why, "encrypted APFS volume (FileVault): not read without its password; password hint: " + kHint);
  EXPECT_FALSE(locked);
  EXPECT_EQ(image->open_fs(enc, "e", &why, {kPassword + " "}, &locked), nullptr);
  EXPECT_EQ(why, "encrypted APFS volume (FileVault): the password given does not unlock it; password hint: " + kHint);
  EXPECT_TRUE(locked);
  locked = false;
  EXPECT_EQ(image->open_fs(enc, "e", &why, {"a", "b"}, &locked), nullptr);
  EXPECT_EQ(why, "encrypted APFS volume (FileVault): none of the 2 passwords given unlocks it; password hint: " + kHint);
  EXPECT_TRUE(locked);
}

TEST(ApfsFileVault, TheRightPasswordReadsTheTree) {
  auto image = Image::open({image_path()});
  const Partition enc = volume_named(image->partitions(), "Macintosh HD");
  std::string why;
  bool locked = false;
  auto view = image->open_fs(enc, "e", &why, {"wrong", kPassword}, &locked);
  ASSERT_TRUE(view) << why;
  EXPECT_FALSE(locked);
  EXPECT_EQ(view->volume().fs_type, "apfs");
  std::vector<std::string> names;
  for (const FileMeta& m : view->list_dir(view->root())) names.push_back(m.name);
  EXPECT_EQ(names, std::vector<std::string>{"Users"});
  const std::string rel = "/Users/frank/Documents/notes.txt";
  std::ifstream in(test::fixtures() / "trees" / "macos" / rel.substr(1), std::ios::binary);
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(want.empty());
  FileMeta file = at_path(*view, rel);
  auto bytes = view->open(file);
  ASSERT_TRUE(bytes);
  std::string got(bytes->size(), '\0');
  ASSERT_EQ(bytes->read_at(0, got.data(), got.size()), static_cast<int64_t>(want.size()));
  EXPECT_EQ(got, want);
}

// fixtures/apfs/macos-apfs-filevault-snap.E01 (fixtures/README.md "FileVault with a snapshot"): one encrypted volume
// with one snapshot (xid 1), and in container blocks 1123-1125 the deleted task's three files encrypted with its key.
const std::string kSnapPassword = "c0rrect h0rse; roo snapshot";
const std::string kSnapVolumeUuid = "a9f5c0de-0000-4a00-8000-00000000d011";
std::string snap_image_path() { return (test::fixtures() / "apfs" / "macos-apfs-filevault-snap.E01").string(); }

std::string tree_file(const std::string& rel) {
  std::ifstream in(test::fixtures() / "trees" / rel, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ApfsFileVault, AnEncryptedVolumesSnapshotsAreListedOnlyWithItsPassword) {
  const Partition locked = volume_named(Image::open({snap_image_path()})->partitions(), "Macintosh HD - Data");
  ASSERT_TRUE(locked.pool_volume);
  EXPECT_TRUE(locked.pool_volume->encrypted);
  EXPECT_TRUE(locked.pool_volume->snapshots.empty());
  const Partition wrong =
      volume_named(Image::open({snap_image_path()})->partitions({kSnapPassword + "x"}), "Macintosh HD - Data");
  EXPECT_TRUE(wrong.pool_volume->snapshots.empty());
  const Partition unlocked =
      volume_named(Image::open({snap_image_path()})->partitions({"no", kSnapPassword}), "Macintosh HD - Data");
  ASSERT_EQ(unlocked.pool_volume->snapshots.size(), 1u);
  const PoolVolume::Snapshot& s = unlocked.pool_volume->snapshots[0];
  EXPECT_EQ(s.name, "com.apple.TimeMachine.2026-04-23-080000.local");
  EXPECT_EQ(s.xid, 1u);
  EXPECT_EQ(s.created_ns, 1776931200ull * 1000000000ull);  // 2026-04-23T08:00:00Z, fixtures/build-apfs.sh
  EXPECT_FALSE(s.dataless);
}

TEST(ApfsFileVault, CarvingReadsTheContainerDecrypted) {
  const std::vector<std::string> paths{snap_image_path()};
  std::string why;
  EXPECT_EQ(CarveSource::unlock(paths, 0, kSnapVolumeUuid, {"wrong"}, &why), nullptr);
  EXPECT_EQ(why, "no password given unlocks the volume for carving");
  auto decryption = CarveSource::unlock(paths, 0, kSnapVolumeUuid, {"wrong", kSnapPassword}, &why);
  ASSERT_TRUE(decryption) << why;
  EXPECT_EQ(decryption->blocks, 4096u);
  EXPECT_EQ(decryption->block_size, 4096u);
  const std::string task = "macos-hfs-deleted/019dc4e1-a7c0-7b52-8e3d-6f1a2c9b0d47/";
  const std::string api = tree_file(task + "api_conversation_history.json");
  const std::string history = tree_file(task + "history_item.json");
  ASSERT_TRUE(!api.empty() && api.size() < 4096 && !history.empty());
  auto plain = CarveSource::open(paths, std::nullopt, &why);
  auto dec = CarveSource::open(paths, std::nullopt, &why, std::nullopt, decryption);
  ASSERT_TRUE(plain && dec) << why;
  // Inside a block, from its middle: the file's bytes; as stored: not.
  std::string got(100, '\0');
  ASSERT_EQ(dec->read(1124 * 4096 + 10, got.data(), got.size()), 100);
  EXPECT_EQ(got, history.substr(10, 100));
  ASSERT_EQ(plain->read(1124 * 4096 + 10, got.data(), got.size()), 100);
  EXPECT_NE(got, history.substr(10, 100));
  // Across two blocks: the end of one file (zeros after it, as written) and the start of the next.
  const uint64_t from = 1123 * 4096 + api.size() - 20;
  std::string across(20 + (4096 - api.size()) + 30, '\0');
  ASSERT_EQ(dec->read(from, across.data(), across.size()), static_cast<int64_t>(across.size()));
  EXPECT_EQ(across, api.substr(api.size() - 20) + std::string(4096 - api.size(), '\0') + history.substr(0, 30));
  // The container's last bytes, and a read past its end stops there.
  std::string tail(8192, '\0');
  EXPECT_EQ(dec->read(4095 * 4096 + 4000, tail.data(), tail.size()), 96);
}

}  // namespace
}  // namespace roo::tsk
