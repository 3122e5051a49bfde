#include "tsk_glue/exfat_times.h"

#include <tsk/libtsk.h>

#include <cstring>

#include "core/text_util.h"

namespace roo::tsk {

namespace {

constexpr unsigned char kFileEntry = 0x85;
constexpr unsigned char kDeletedFileEntry = 0x05;  // InUse bit (0x80) cleared
constexpr uint8_t kOffsetValid = 0x80;
constexpr uint64_t kFirstEntryInum = 3;  // libtsk's FATFS_FIRST_NORMINO: 2 is the root, which has no entry

uint32_t le32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

std::optional<FsTime> exfat_timestamp(uint32_t timestamp, uint8_t increment_10ms, uint8_t utc_offset) {
  const unsigned double_seconds = timestamp & 0x1f;
  const unsigned minute = (timestamp >> 5) & 0x3f;
  const unsigned hour = (timestamp >> 11) & 0x1f;
  const unsigned day = (timestamp >> 16) & 0x1f;
  const unsigned month = (timestamp >> 21) & 0x0f;
  const unsigned year = 1980 + (timestamp >> 25);
  // Date 0 is "not set" (libtsk gives no time); a field out of range is left to libtsk, which clamps it.
  if (day < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || double_seconds > 29) return std::nullopt;
  if (increment_10ms > 199) return std::nullopt;
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + double_seconds * 2 +
                    increment_10ms / 100;
  if (utc_offset & kOffsetValid) {
    // bits 0-6: a signed 7-bit count of 15 minutes; the stamp is that zone's wall time
    int offset_quarters = utc_offset & 0x7f;
    if (offset_quarters & 0x40) offset_quarters -= 0x80;
    seconds -= int64_t(offset_quarters) * 15 * 60;
  }
  // else the zone is unknown: the wall time is read as UTC, as libtsk reads it under roo-ingest's pinned TZ=UTC
  FsTime t;
  t.seconds = seconds;
  t.nanos = static_cast<uint32_t>(increment_10ms % 100) * 10000000u;
  return t;
}

std::optional<ExfatEntryTimes> exfat_entry_times(const unsigned char (&entry)[kExfatEntrySize]) {
  if (entry[0] != kFileEntry && entry[0] != kDeletedFileEntry) return std::nullopt;
  // File directory entry (spec §7.4): timestamps at 8/12/16, 10 ms increments at 20/21, UtcOffsets at 22/23/24
  ExfatEntryTimes t;
  t.crtime = exfat_timestamp(le32(entry + 8), entry[20], entry[22]);
  t.mtime = exfat_timestamp(le32(entry + 12), entry[21], entry[23]);
  t.atime = exfat_timestamp(le32(entry + 16), 0, entry[24]);  // the accessed time has no 10 ms increment
  return t;
}

std::optional<ExfatGeometry> read_exfat_geometry(TSK_FS_INFO* fs) {
  if (!fs || fs->ftype != TSK_FS_TYPE_EXFAT) return std::nullopt;
  // Main boot sector (spec §3.1): ClusterHeapOffset (sectors) at byte 88, BytesPerSectorShift at byte 108.
  unsigned char boot[512];
  if (tsk_fs_read(fs, 0, reinterpret_cast<char*>(boot), sizeof boot) != static_cast<ssize_t>(sizeof boot)) {
    tsk_error_reset();
    return std::nullopt;
  }
  if (std::memcmp(boot + 3, "EXFAT   ", 8) != 0 || boot[108] < 9 || boot[108] > 12) return std::nullopt;
  return ExfatGeometry{uint64_t(1) << boot[108], le32(boot + 88)};
}

std::optional<ExfatEntryTimes> read_exfat_entry_times(TSK_FS_INFO* fs, const ExfatGeometry& geometry, uint64_t inum) {
  if (inum < kFirstEntryInum) return std::nullopt;
  const uint64_t entries_per_sector = geometry.sector_size / kExfatEntrySize;
  // libtsk's FATFS_INODE_2_SECT / FATFS_INODE_2_OFF (tsk_fatfs.h, whose internal headers are not installed):
  // address 3 is the first entry slot of the first sector of the cluster heap, counting on through every sector.
  const uint64_t sector = (inum - kFirstEntryInum) / entries_per_sector + geometry.cluster_heap_sector;
  const uint64_t at = sector * geometry.sector_size + (inum - kFirstEntryInum) % entries_per_sector * kExfatEntrySize;
  // libtsk's virtual files ($MBR, $FATn, $OrphanFiles) are numbered after the last slot: past the volume's end
  if (at + kExfatEntrySize > uint64_t(fs->block_count) * fs->block_size) return std::nullopt;
  unsigned char entry[kExfatEntrySize];
  if (tsk_fs_read(fs, static_cast<TSK_OFF_T>(at), reinterpret_cast<char*>(entry), sizeof entry) !=
      static_cast<ssize_t>(sizeof entry)) {
    tsk_error_reset();
    return std::nullopt;
  }
  return exfat_entry_times(entry);
}

}  // namespace roo::tsk
