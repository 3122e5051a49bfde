// tsk::verify_image (--verify: image hashes verified when the container stores them) on the committed
// fixture images and on copies of demo.E01 altered in a temp dir.
//
// The expected hashes were written down by hand from the real tools, not from the code under test:
//   ewfinfo fixtures/images/demo.E01          ("Digest hash information"; demo-split.E0? holds the same media)
//   cat fixtures/images/linux-ext4.raw.00* | md5sum   (and sha1sum)
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/verify.h"

namespace roo::tsk {
namespace {

using test::image;
using test::TempDir;
namespace fs = std::filesystem;

constexpr const char* kDemoMd5 = "38fa0b13f9c5c455866c4efaf8f2c5d7";
constexpr const char* kDemoSha1 = "9a702ad30ae1465367927e80294d94c48f99f83f";
constexpr uint64_t kDemoMediaBytes = 10485760;  // ewfinfo: Media size 10 MiB (10485760 bytes)
constexpr const char* kLinuxRawMd5 = "2b8e5e89877c56f167411aaf6a92c061";
constexpr const char* kLinuxRawSha1 = "82c24ba2cf5c48ea3a6c112d325cc119bf2456af";

Verification verify(const std::vector<std::string>& paths) {
  auto img = Image::open(paths);
  return verify_image(paths, img->info());
}

TEST(Verify, E01WithStoredHashesVerifies) {
  uint64_t last_done = 0, last_total = 0;
  int calls = 0, last_calls = 0;
  const std::vector<std::string> paths = {image("demo.E01")};
  auto img = Image::open(paths);
  Verification v = verify_image(paths, img->info(), [&](uint64_t done, uint64_t total, bool last) {
    EXPECT_GE(done, last_done);  // progress only grows
    last_done = done;
    last_total = total;
    ++calls;
    if (last) ++last_calls;
  });
  EXPECT_EQ(v.result, "verified");
  EXPECT_EQ(v.read_with, "libewf");
  EXPECT_EQ(v.md5, kDemoMd5);
  EXPECT_EQ(v.sha1, kDemoSha1);
  EXPECT_EQ(v.md5_stored, kDemoMd5);
  EXPECT_EQ(v.sha1_stored, kDemoSha1);
  EXPECT_TRUE(v.md5_match());
  EXPECT_TRUE(v.sha1_match());
  EXPECT_EQ(v.media_size, kDemoMediaBytes);
  EXPECT_EQ(v.bytes_hashed, kDemoMediaBytes);
  EXPECT_EQ(v.checksum_errors, 0u);
  // 10 MiB in 4 MiB blocks: three reads, then the final call.
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(last_calls, 1);
  EXPECT_EQ(last_done, kDemoMediaBytes);
  EXPECT_EQ(last_total, kDemoMediaBytes);
}

TEST(Verify, SplitE01ReadsEverySegment) {
  Verification v = verify({image("demo-split.E01")});
  EXPECT_EQ(v.result, "verified");
  EXPECT_EQ(v.md5, kDemoMd5);
  EXPECT_EQ(v.sha1, kDemoSha1);
  EXPECT_EQ(v.bytes_hashed, kDemoMediaBytes);
}

TEST(Verify, SplitRawHasNoStoredHashButIsHashed) {
  Verification v = verify({image("linux-ext4.raw.001")});
  EXPECT_EQ(v.result, "no stored hash");
  EXPECT_EQ(v.read_with, "libtsk");
  EXPECT_EQ(v.md5, kLinuxRawMd5);
  EXPECT_EQ(v.sha1, kLinuxRawSha1);
  EXPECT_EQ(v.bytes_hashed, 4u * 1048576);
  EXPECT_FALSE(v.md5_match());  // nothing stored: no match claimed
}

// EWF1 layout (libewf's documentation of the format, as fixtures/build-images.sh's ewfacquire writes it): a 13-byte
// file header, then sections, each a 76-byte descriptor (type[16], next offset u64, size u64, padding[40], Adler-32
// of the first 72 bytes) followed by its data. "digest" data = MD5[16] SHA-1[20] padding[40] Adler-32; "hash" data =
// MD5[16] unknown[16] Adler-32. All little-endian.
uint32_t adler32(const unsigned char* p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; ++i) {
    a = (a + p[i]) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}
uint64_t le64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}
void put_le32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Changes the first byte of the MD5 the digest and hash sections store, with their checksums made right again,
// so libewf reads the altered hash as the container's own. Returns how many sections were changed.
int alter_stored_md5(std::string& e01) {
  int changed = 0;
  for (uint64_t off = 13; off + 76 <= e01.size();) {
    const std::string type = e01.substr(off, 16).c_str();
    const uint64_t next = le64(e01, off + 16);
    const size_t data = off + 76;
    size_t checked = 0;  // bytes of data the section's checksum covers
    if (type == "digest") checked = 16 + 20 + 40;
    if (type == "hash") checked = 16 + 16;
    if (checked && data + checked + 4 <= e01.size()) {
      e01[data] = static_cast<char>(e01[data] ^ 0xff);
      put_le32(e01, data + checked, adler32(reinterpret_cast<const unsigned char*>(e01.data() + data), checked));
      ++changed;
    }
    if (type == "done" || next <= off) break;
    off = next;
  }
  return changed;
}

TEST(Verify, AlteredStoredHashIsAMismatch) {
  TempDir tmp;
  std::string e01 = test::read_host_file(image("demo.E01"));
  ASSERT_EQ(alter_stored_md5(e01), 2);
  const fs::path copy = tmp.path() / "altered.E01";
  std::ofstream(copy, std::ios::binary) << e01;

  Verification v = verify({copy.string()});
  EXPECT_EQ(v.result, "mismatch");
  EXPECT_EQ(v.md5, kDemoMd5);  // the media is unchanged …
  EXPECT_EQ(v.md5_stored, "c7fa0b13f9c5c455866c4efaf8f2c5d7");  // … its stored MD5 is not (0x38 ^ 0xff = 0xc7)
  EXPECT_FALSE(v.md5_match());
  EXPECT_EQ(v.sha1, kDemoSha1);
  EXPECT_TRUE(v.sha1_match());
}

// A byte of the compressed media changed (inside the sectors section, at file offset 100000): libewf finds the chunk's
// checksum wrong. `ewfverify -q` on such a copy reports 1 sector validation error (sectors 11904 - 11967) and
// calculates MD5 3785187087d5453c8889140bfd02c31e; the stored MD5 is unchanged, so the result is a mismatch.
TEST(Verify, DamagedChunkIsAMismatchWithAChecksumError) {
  TempDir tmp;
  std::string e01 = test::read_host_file(image("demo.E01"));
  e01[100000] = static_cast<char>(e01[100000] ^ 0xff);
  const fs::path copy = tmp.path() / "damaged.E01";
  std::ofstream(copy, std::ios::binary) << e01;

  Verification v = verify({copy.string()});
  EXPECT_EQ(v.result, "mismatch");
  EXPECT_EQ(v.checksum_errors, 1u);
  EXPECT_EQ(v.md5, "3785187087d5453c8889140bfd02c31e");
  EXPECT_EQ(v.md5_stored, kDemoMd5);
  EXPECT_EQ(v.bytes_hashed, kDemoMediaBytes);
}

TEST(Verify, NoHashWhenTheMediaCannotBeReadToItsEnd) {
  // A split raw whose last segment is cut after Image::open: the media is no longer the one the scan reads, so no
  // hash is given (a hash of 3 MiB would look like the image's).
  TempDir tmp;
  std::vector<std::string> paths;
  for (int i = 1; i <= 4; ++i) {
    const std::string name = "linux-ext4.raw.00" + std::to_string(i);
    fs::copy_file(image(name), tmp.path() / name);
    paths.push_back((tmp.path() / name).string());
  }
  auto img = Image::open({paths.front()});
  fs::resize_file(paths.back(), 1000);
  Verification v = verify_image({paths.front()}, img->info());
  EXPECT_EQ(v.result.rfind("read error: ", 0), 0u) << v.result;
  EXPECT_TRUE(v.md5.empty());
  EXPECT_TRUE(v.sha1.empty());
  EXPECT_LT(v.bytes_hashed, 4u * 1048576);
}

}  // namespace
}  // namespace roo::tsk
