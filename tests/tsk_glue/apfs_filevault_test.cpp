// Encrypted APFS volumes (FileVault) through tsk_glue/apfs_filevault.h and Image::open_fs, on
// fixtures/apfs/macos-apfs-filevault.E01 (fixtures/README.md "FileVault"): "Macintosh HD" encrypted with the password
// and hint fixtures/build-apfs.sh gives apfs_put.py, holding fixtures/trees/macos; "Spare" not encrypted. The bytes a
// file must read as are the tree's own.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/tsk_evidence.h"

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

}  // namespace
}  // namespace roo::tsk
