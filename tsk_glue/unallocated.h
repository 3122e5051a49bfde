// The bytes --deep carves (docs/row-contract.md "Carved records") via libtsk: a file system's unallocated blocks,
// the slack of its Roo files, and the image's unpartitioned space. Byte runs only; what is in them is
// core/record_carver's.
// This header does not include libtsk.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct TSK_IMG_INFO;
struct TSK_FS_INFO;

namespace roo::tsk {

// One contiguous range of image bytes to carve, and which CarveRegion (core/record_carver.h) its records name.
struct CarveRun {
  uint64_t offset = 0;  // image byte offset
  uint64_t length = 0;
  int region = 0;
};

// One image handle (and, for a file system, one file-system handle) of its own: libtsk handles are not shared
// between threads, so each carving worker opens one.
class CarveSource {
 public:
  // Opens the image; with fs_offset, also the file system there, or with pool_volume_block the volume of the APFS
  // container at fs_offset whose superblock is that block. nullptr and *why on failure.
  static std::unique_ptr<CarveSource> open(const std::vector<std::string>& image_paths,
                                           std::optional<uint64_t> fs_offset, std::string* why,
                                           std::optional<uint64_t> pool_volume_block = std::nullopt);
  ~CarveSource();
  CarveSource(const CarveSource&) = delete;
  CarveSource& operator=(const CarveSource&) = delete;

  uint64_t image_size() const;
  uint32_t block_size() const;  // 0 without a file system
  // The file system's unallocated blocks (an address-only block walk), coalesced into runs of consecutive blocks.
  // For an APFS volume: its container's free blocks (tsk_pool_unallocated_runs), which every volume of the
  // container shares.
  std::vector<CarveRun> unallocated_runs(int region, std::string* why);
  // A file's slack: the bytes of its last block past its size (none when the size fills the block, the content is
  // resident, or the block is unknown).
  std::optional<CarveRun> slack_run(uint64_t inode, int region);
  // The image bytes a file's content lies in (its non-resident runs, up to its size): a deleted file's blocks are
  // unallocated, so carving meets its records again there.
  std::vector<CarveRun> content_runs(uint64_t inode);
  // Image bytes (tsk_img_read); the count read, or -1.
  int64_t read(uint64_t offset, char* buf, size_t len);

 private:
  CarveSource() = default;
  TSK_IMG_INFO* img_ = nullptr;
  TSK_FS_INFO* fs_ = nullptr;
  std::shared_ptr<void> pool_;  // an APFS volume's pool and pool image (apfs_pool.h), closed after fs_
  const void* pool_info_ = nullptr;  // its TSK_POOL_INFO
};

// Cuts runs into work units of at most unit_bytes each (a unit never spans two runs), in image order: the work the
// carving threads share. Each unit keeps its run's index so a worker can read past the unit's end to finish a
// record that straddles it.
struct CarveUnit {
  size_t run = 0;
  uint64_t from = 0, to = 0;  // image offsets, inside runs[run]
};
std::vector<CarveUnit> carve_units(const std::vector<CarveRun>& runs, uint64_t unit_bytes);

}  // namespace roo::tsk
