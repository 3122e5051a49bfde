// A DOS (MBR) or GPT partition table read from its own bytes, for the one case libtsk 4.11 refuses a table that is
// intact: the image ends before its first or second partition starts (dos.c and gpt.c stop with "Starting sector
// too large for image"), as in a truncated image. Image::partitions() uses it only then.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace roo::tsk {

// One entry as libtsk would list it (in the order libtsk adds them): a partition, or the table's own sectors.
struct TableEntry {
  uint64_t start_sector = 0;
  uint64_t sector_count = 0;
  std::string description;  // GPT partition name; "DOS type 0x83"; "GPT Header", "Primary Table (#0)", …
  bool meta = false;        // a table's sectors or a DOS extended partition (the container of the logical ones)
};

struct PartitionTable {
  std::string type;  // libtsk's names: "gpt" or "dos"
  uint32_t sector_size = 512;
  std::vector<TableEntry> entries;
};

// Reads up to len bytes at offset into buf; returns how many it read (fewer, or 0, past the end of the image).
using ReadAt = std::function<size_t(uint64_t offset, unsigned char* buf, size_t len)>;

// GPT (UEFI spec §5.3: protective MBR, header at LBA 1 with its CRC32, partition entry array with its CRC32) tried
// first with each sector size in `sector_sizes`, then a DOS MBR (UEFI spec §5.2.1 legacy MBR, with the extended
// partition's chain of EBRs). nullopt when neither is there, a CRC does not match, the entry array cannot be read
// whole, or an MBR entry is not well formed (a boot indicator other than 0x00/0x80: boot code, not a table).
// A protective MBR alone is no DOS table. Entries may lie past the end of the image: that is what it is for.
std::optional<PartitionTable> read_partition_table(const ReadAt& read, const std::vector<uint32_t>& sector_sizes);

// The CRC32 of the GPT header and entry array (UEFI spec §5.3.2): polynomial 0x04C11DB7 reflected, as zlib's crc32.
uint32_t gpt_crc32(const unsigned char* p, size_t n);

}  // namespace roo::tsk
