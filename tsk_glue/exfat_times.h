// exFAT times as the File directory entry stores them. libtsk 4.11 gets two things wrong on exFAT: it ignores the
// entry's UtcOffset fields (it reads the DOS date/time as local time of the process's TZ, which roo-ingest pins to
// UTC, so an entry written at UTC+02:00 reads 2 hours late), and it reads a 10 ms increment of exactly 100 one second
// early (fatfs_utils.c tests `timetens > 100`, not `>= 100`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/evidence.h"

struct TSK_FS_INFO;

namespace roo::tsk {

inline constexpr size_t kExfatEntrySize = 32;

// The times of one File directory entry; a field is nullopt when the entry does not give it (date 0, a field out of
// range): then libtsk's value is kept.
struct ExfatEntryTimes {
  std::optional<FsTime> crtime;
  std::optional<FsTime> mtime;
  std::optional<FsTime> atime;
};

// One exFAT timestamp (exFAT specification §7.4.8-7.4.10): the 32-bit DOS date/time (2 s), plus the 10 ms increment
// (0..199; 0 for the accessed time, which has none), minus the UtcOffset when its OffsetValid bit (7) is set.
std::optional<FsTime> exfat_timestamp(uint32_t timestamp, uint8_t increment_10ms, uint8_t utc_offset);

// Decodes a File directory entry (type 0x85, or 0x05 once deleted); nullopt for any other entry type.
std::optional<ExfatEntryTimes> exfat_entry_times(const unsigned char (&entry)[kExfatEntrySize]);

// Where a volume's directory entries lie, from its main boot sector (spec §3.1); nullopt when fs is not exFAT or its
// boot sector is unreadable. Read once per opened file system.
struct ExfatGeometry {
  uint64_t sector_size = 512;
  uint64_t cluster_heap_sector = 0;  // ClusterHeapOffset
};
std::optional<ExfatGeometry> read_exfat_geometry(TSK_FS_INFO* fs);

// Reads the File directory entry behind libtsk's exFAT metadata address `inum` (libtsk numbers every 32-byte entry
// slot of the cluster heap) and decodes it. nullopt when the address is the root or a virtual file, or its slot
// cannot be read or holds no File entry (the allocation bitmap, up-case table and volume label entries).
std::optional<ExfatEntryTimes> read_exfat_entry_times(TSK_FS_INFO* fs, const ExfatGeometry& geometry, uint64_t inum);

}  // namespace roo::tsk
