// read_partition_table on hand-made bytes: GPT (UEFI spec §5.3) and DOS MBR (UEFI spec §5.2.1) tables laid out
// byte by byte here, then damaged. The image is a byte vector; reads past its end return fewer bytes, as a
// truncated image does.
#include "tsk_glue/partition_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace roo::tsk {
namespace {

using Bytes = std::vector<unsigned char>;

ReadAt reader(const Bytes& disk) {
  return [&disk](uint64_t off, unsigned char* buf, size_t len) -> size_t {
    if (off >= disk.size()) return 0;
    size_t n = std::min<uint64_t>(len, disk.size() - off);
    if (n) std::memcpy(buf, disk.data() + off, n);
    return n;
  };
}

void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<unsigned char>(v >> (8 * i));
}
void put64(Bytes& b, size_t at, uint64_t v) {
  put32(b, at, static_cast<uint32_t>(v));
  put32(b, at + 4, static_cast<uint32_t>(v >> 32));
}

// One 16-byte MBR record in the sector at `sector_at` (UEFI spec §5.2.1, Table 5-2).
void mbr_record(Bytes& b, size_t sector_at, int slot, uint8_t boot, uint8_t type, uint32_t start, uint32_t size) {
  size_t r = sector_at + 446 + 16 * slot;
  b[r] = boot;
  b[r + 4] = type;
  put32(b, r + 8, start);
  put32(b, r + 12, size);
  b[sector_at + 510] = 0x55;
  b[sector_at + 511] = 0xaa;
}

struct GptPart {
  uint64_t first, last;
  std::string name;  // ASCII, written as UTF-16LE
};

// A 512-byte-sector GPT disk of `sectors` sectors: protective MBR, header at LBA 1, `count` entries of 128 bytes
// from LBA 2, the given partitions in the first entries. CRCs as the spec computes them (gpt_crc32 is checked
// against the standard check value below).
Bytes gpt_disk(uint64_t sectors, const std::vector<GptPart>& parts, uint32_t count = 128) {
  Bytes d(sectors * 512);
  mbr_record(d, 0, 0, 0x00, 0xee, 1, static_cast<uint32_t>(sectors - 1));
  const size_t array = 2 * 512;
  for (size_t i = 0; i < parts.size(); ++i) {
    size_t e = array + 128 * i;
    d[e] = 0xaf;  // a non-zero PartitionTypeGUID
    d[e + 16] = static_cast<unsigned char>(i + 1);
    put64(d, e + 32, parts[i].first);
    put64(d, e + 40, parts[i].last);
    for (size_t k = 0; k < parts[i].name.size(); ++k) d[e + 56 + 2 * k] = parts[i].name[k];
  }
  size_t h = 512;
  std::memcpy(&d[h], "EFI PART", 8);
  put32(d, h + 8, 0x00010000);
  put32(d, h + 12, 92);
  put64(d, h + 24, 1);
  put64(d, h + 32, sectors - 1);
  put64(d, h + 40, 34);
  put64(d, h + 48, sectors - 34);
  put64(d, h + 72, 2);
  put32(d, h + 80, count);
  put32(d, h + 84, 128);
  put32(d, h + 88, gpt_crc32(&d[array], size_t{count} * 128));
  put32(d, h + 16, gpt_crc32(&d[h], 92));
  return d;
}

Bytes cut(Bytes d, size_t bytes) {
  d.resize(bytes);
  return d;
}

TEST(PartitionTable, Crc32IsTheStandardOne) {
  const char* check = "123456789";  // the CRC-32 (ISO 3309) check value is CBF43926
  EXPECT_EQ(gpt_crc32(reinterpret_cast<const unsigned char*>(check), 9), 0xcbf43926u);
}

TEST(PartitionTable, GptWithAPartitionPastTheEndOfATruncatedImage) {
  Bytes whole = gpt_disk(20480, {{2048, 10239, "linux"}, {10240, 18431, "windows"}});
  Bytes d = cut(whole, 4120576);
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->type, "gpt");
  EXPECT_EQ(t->sector_size, 512u);
  ASSERT_EQ(t->entries.size(), 5u);
  auto expect = [&](size_t i, uint64_t start, uint64_t count, const char* desc, bool meta) {
    EXPECT_EQ(t->entries[i].start_sector, start) << i;
    EXPECT_EQ(t->entries[i].sector_count, count) << i;
    EXPECT_EQ(t->entries[i].description, desc) << i;
    EXPECT_EQ(t->entries[i].meta, meta) << i;
  };
  expect(0, 0, 1, "Safety Table", true);
  expect(1, 1, 1, "GPT Header", true);
  expect(2, 2, 32, "Partition Table", true);  // 128 entries × 128 bytes
  expect(3, 2048, 8192, "linux", false);
  expect(4, 10240, 8192, "windows", false);  // starts 2192 sectors past the end of the image
}

TEST(PartitionTable, GptWithABadHeaderCrcIsRefused) {
  Bytes d = gpt_disk(64, {{34, 63, "p"}});
  d[512 + 16] ^= 1;  // HeaderCRC32
  EXPECT_FALSE(read_partition_table(reader(d), {512}));
  Bytes e = gpt_disk(64, {{34, 63, "p"}});
  e[512 + 40] ^= 1;  // FirstUsableLBA, covered by the header CRC
  EXPECT_FALSE(read_partition_table(reader(e), {512}));
}

TEST(PartitionTable, GptWithABadEntryArrayCrcIsRefused) {
  Bytes d = gpt_disk(64, {{34, 63, "p"}});
  d[2 * 512 + 32] ^= 1;  // StartingLBA of entry 0
  EXPECT_FALSE(read_partition_table(reader(d), {512}));
}

TEST(PartitionTable, GptWhoseEntryArrayIsCutOffIsRefused) {
  // The image ends inside the entry array: its CRC cannot be checked.
  EXPECT_FALSE(read_partition_table(reader(cut(gpt_disk(64, {{34, 63, "p"}}), 3 * 512)), {512}));
}

TEST(PartitionTable, GptWithZeroEntries) {
  Bytes d = gpt_disk(64, {}, 0);
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  ASSERT_EQ(t->entries.size(), 3u);  // only the table's own sectors
  EXPECT_EQ(t->entries[2].sector_count, 0u);
  for (const auto& e : t->entries) EXPECT_TRUE(e.meta);
}

TEST(PartitionTable, GptEntryArrayTooLargeIsRefused) {
  Bytes d = gpt_disk(64, {{34, 63, "p"}});
  put32(d, 512 + 80, 0xffffffffu);  // NumberOfPartitionEntries
  put32(d, 512 + 16, 0);
  put32(d, 512 + 16, gpt_crc32(&d[512], 92));
  EXPECT_FALSE(read_partition_table(reader(d), {512}));
}

TEST(PartitionTable, GptEntriesThatAreUnusedOrInvalidAreSkipped) {
  Bytes d = gpt_disk(64, {{34, 40, "ok"}, {50, 45, "ends before it starts"}, {0, 10, "starts at 0"}});
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  ASSERT_EQ(t->entries.size(), 4u);
  EXPECT_EQ(t->entries[3].description, "ok");
}

TEST(PartitionTable, GptNameIsUtf16) {
  Bytes d = gpt_disk(64, {{34, 63, ""}});
  const unsigned char name[] = {0xe9, 0x00, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0xd8};  // é, U+1F600, a lone surrogate
  std::memcpy(&d[2 * 512 + 56], name, sizeof name);
  put32(d, 512 + 88, gpt_crc32(&d[2 * 512], 128 * 128));
  put32(d, 512 + 16, 0);
  put32(d, 512 + 16, gpt_crc32(&d[512], 92));
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->entries[3].description, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd");
}

TEST(PartitionTable, GptWith4096ByteSectors) {
  // The same layout with 4 KiB sectors: the header is at byte 4096, not 512.
  Bytes d(64 * 4096);
  mbr_record(d, 0, 0, 0x00, 0xee, 1, 63);
  size_t h = 4096, array = 2 * 4096;
  d[array] = 1;
  put64(d, array + 32, 6);
  put64(d, array + 40, 60);
  std::memcpy(&d[h], "EFI PART", 8);
  put32(d, h + 12, 92);
  put64(d, h + 24, 1);
  put64(d, h + 72, 2);
  put32(d, h + 80, 4);
  put32(d, h + 84, 128);
  put32(d, h + 88, gpt_crc32(&d[array], 4 * 128));
  put32(d, h + 16, gpt_crc32(&d[h], 92));
  auto t = read_partition_table(reader(d), {512, 4096});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->sector_size, 4096u);
  EXPECT_EQ(t->entries.back().start_sector, 6u);
  EXPECT_EQ(t->entries.back().sector_count, 55u);
}

TEST(PartitionTable, ProtectiveMbrAloneIsNoTable) {
  Bytes d = gpt_disk(64, {{34, 63, "p"}});
  std::memset(&d[512], 0, 512);  // the GPT header wiped
  EXPECT_FALSE(read_partition_table(reader(d), {512}));
}

TEST(PartitionTable, DosPrimariesAndTheExtendedChain) {
  // Two primaries, then an extended partition at 300 holding two logical ones: EBR 1 at 300 (logical at +2, next EBR
  // at extended+100), EBR 2 at 400 (logical at +10, no next).
  Bytes d(1000 * 512);
  mbr_record(d, 0, 0, 0x80, 0x83, 2048, 8192);
  mbr_record(d, 0, 1, 0x00, 0x07, 10240, 8192);
  mbr_record(d, 0, 2, 0x00, 0x05, 300, 200);
  mbr_record(d, 300 * 512, 0, 0x00, 0x83, 2, 50);
  mbr_record(d, 300 * 512, 1, 0x00, 0x05, 100, 100);
  mbr_record(d, 400 * 512, 0, 0x00, 0x0c, 10, 80);
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->type, "dos");
  std::vector<std::tuple<uint64_t, uint64_t, std::string, bool>> got;
  for (const auto& e : t->entries) got.emplace_back(e.start_sector, e.sector_count, e.description, e.meta);
  std::vector<std::tuple<uint64_t, uint64_t, std::string, bool>> want = {
      {0, 1, "Primary Table (#0)", true},   {2048, 8192, "DOS type 0x83", false},
      {10240, 8192, "DOS type 0x07", false}, {300, 200, "DOS type 0x05", true},
      {300, 1, "Extended Table (#1)", true}, {302, 50, "DOS type 0x83", false},
      {400, 1, "Extended Table (#2)", true}, {410, 80, "DOS type 0x0c", false},
  };
  EXPECT_EQ(got, want);
}

TEST(PartitionTable, DosExtendedChainThatLoopsOrLeavesTheImageEnds) {
  Bytes d(1000 * 512);
  mbr_record(d, 0, 0, 0x00, 0x05, 300, 200);
  mbr_record(d, 300 * 512, 0, 0x00, 0x83, 2, 50);
  mbr_record(d, 300 * 512, 1, 0x00, 0x05, 100, 100);
  mbr_record(d, 400 * 512, 1, 0x00, 0x05, 100, 100);  // links to itself (extended + 100)
  auto t = read_partition_table(reader(d), {512});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->entries.size(), 5u);  // primary table, extended, EBR 1, its logical, EBR 2

  Bytes e(400 * 512);  // the next EBR would be at 400: past the end
  mbr_record(e, 0, 0, 0x00, 0x05, 300, 200);
  mbr_record(e, 300 * 512, 0, 0x00, 0x83, 2, 50);
  mbr_record(e, 300 * 512, 1, 0x00, 0x05, 100, 100);
  t = read_partition_table(reader(e), {512});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->entries.size(), 4u);
}

TEST(PartitionTable, DosRecordsThatAreBootCodeAreRefused) {
  Bytes d(64 * 512);
  mbr_record(d, 0, 0, 0x00, 0x83, 2, 50);
  mbr_record(d, 0, 1, 0x4c, 0x07, 60, 4);  // boot indicator neither 0x00 nor 0x80
  EXPECT_FALSE(read_partition_table(reader(d), {512}));
}

TEST(PartitionTable, NothingToReadIsNoTable) {
  Bytes none;
  EXPECT_FALSE(read_partition_table(reader(none), {512, 4096}));
  Bytes zeros(4096);
  EXPECT_FALSE(read_partition_table(reader(zeros), {512}));
  Bytes only_signature(512);
  only_signature[510] = 0x55;
  only_signature[511] = 0xaa;
  EXPECT_FALSE(read_partition_table(reader(only_signature), {512}));
}

}  // namespace
}  // namespace roo::tsk
