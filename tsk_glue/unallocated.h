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

struct ApfsVolumeKey;

// An unlocked encrypted APFS volume's key and its container's place: a CarveSource given it reads the container's
// blocks decrypted with the key (apfs_filevault.h apfs_decrypt_blocks), whichever volume or none they belong to.
struct ContainerDecryption {
  uint64_t offset = 0;      // the container's first image byte
  uint64_t blocks = 0;      // its block count
  uint32_t block_size = 0;
  std::shared_ptr<const ApfsVolumeKey> key;
};

// One image handle (and, for a file system, one file-system handle) of its own: libtsk handles are not shared
// between threads, so each carving worker opens one.
class CarveSource {
 public:
  // Opens the image; with fs_offset, also the file system there, or with pool_volume_block the volume of the APFS
  // container at fs_offset whose superblock is that block. With `decryption` (an encrypted volume's), that volume is
  // opened decrypted (apfs_filevault.h open_filevault_volume) and reads inside the container are decrypted.
  // nullptr and *why on failure.
  static std::unique_ptr<CarveSource> open(const std::vector<std::string>& image_paths,
                                           std::optional<uint64_t> fs_offset, std::string* why,
                                           std::optional<uint64_t> pool_volume_block = std::nullopt,
                                           std::shared_ptr<const ContainerDecryption> decryption = nullptr);
  // The decryption of the encrypted volume `volume_uuid`, superblock `volume_block`, of the container at `offset`:
  // with the key the first of `passwords` that unlocks it gives; nullptr (and *why) when none does.
  static std::shared_ptr<const ContainerDecryption> unlock(const std::vector<std::string>& image_paths,
                                                           uint64_t offset, const std::string& volume_uuid,
                                                           const std::vector<std::string>& passwords,
                                                           std::string* why);
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
  // Image bytes (tsk_img_read), decrypted inside the container when opened with a decryption; the count read
  // (which stops at the container's end when the read starts inside it), or -1.
  int64_t read(uint64_t offset, char* buf, size_t len);

 private:
  CarveSource() = default;
  TSK_IMG_INFO* img_ = nullptr;
  TSK_FS_INFO* fs_ = nullptr;
  std::shared_ptr<void> pool_;  // an APFS volume's pool and pool image (apfs_pool.h), closed after fs_
  const void* pool_info_ = nullptr;  // its TSK_POOL_INFO
  std::shared_ptr<const ContainerDecryption> decryption_;
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
