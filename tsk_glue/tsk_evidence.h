// Disk images through libtsk: open an image (raw, split raw, E01, split E01, whatever libtsk 4.11 reads),
// list its volume system, and open each file system as a roo::FileSystemView (tsk_fs_view.h).
// This header does not include libtsk, so callers need not see its headers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/exit_codes.h"
#include "tsk_glue/ewf_image.h"

struct TSK_IMG_INFO;  // libtsk's image handle (tsk/img/tsk_img.h)

namespace roo::tsk {

// Why an image cannot be opened. what() is one line naming the path and the reason.
struct EvidenceError : std::runtime_error {
  EvidenceError(std::string path, int exit_code, const std::string& reason);
  std::string path;  // the file the problem is about (a missing segment's expected name, for instance)
  int exit_code;  // kExitEvidence or kExitSegment (core/exit_codes.h)
};

struct ImageInfo {
  std::string type;                   // libtsk's image type name: "raw", "ewf", "vmdk", "vhd", …
  uint64_t size = 0;                  // media size in bytes
  std::vector<std::string> segments;  // every file libtsk opened, in order
  std::string stored_md5, stored_sha1;  // hashes stored in the container (EWF), lower-case hex; else empty
  uint32_t sector_size = 512;
  std::vector<std::string> warnings;  // problems that do not stop the run (e.g. a truncated single raw)
};

// One volume of an APFS container, as libtsk's pool API lists it and its volume superblock says (apfs_pool.h).
struct PoolVolume {
  int index = 0;        // its place in the container's list of volumes (pstat's order)
  uint64_t block = 0;   // the container block of its superblock: libtsk's pool volume block (`fls -B`)
  uint64_t blocks = 0;  // the blocks libtsk says it holds
  std::string name, uuid;
  std::string role;     // docs/row-contract.md "APFS volumes": "system", "data", "preboot", …, or "none"
  uint16_t role_value = 0;  // apfs_role as stored
  bool case_sensitive = false;
  bool encrypted = false;
  std::string password_hint;  // an encrypted volume's, when it keeps one
  // Its local snapshots, as tsk_apfs_list_snapshots lists them (older states of the volume; not read yet).
  struct Snapshot {
    uint64_t xid = 0;             // the transaction the snapshot keeps
    uint64_t created_ns = 0;      // its creation time, nanoseconds since 1970 (UTC)
    std::string name;
    bool dataless = false;
  };
  std::vector<Snapshot> snapshots;
};

// An APFS container (a pool, in libtsk's words) found in a partition, or at offset 0 of an image without a volume
// system.
struct PoolContainer {
  std::string type = "apfs";
  std::string uuid;  // nx_uuid
  uint32_t block_size = 0;
  uint64_t blocks = 0;
  std::vector<PoolVolume> volumes;
};

struct Partition {
  int index = 0;  // the slot in the volume system walk (mmls's first column); 0 for the pseudo partition
  uint64_t offset_bytes = 0;
  uint64_t length_bytes = 0;
  std::string description;  // libtsk's description: GPT name, DOS type, "Unallocated", "GPT Header", …
  std::string vs_type;      // "dos", "gpt", "mac", "bsd", "sun", or "none" when there is no volume system
  enum Kind { allocated, unallocated, meta } kind = allocated;
  // libtsk refused the table (the image ends before its first or second partition starts), so roo-ingest read it
  // from its own bytes (partition_table.h); descriptions then follow partition_table.h, not libtsk.
  bool table_read_by_roo_ingest = false;
  // The APFS container the partition holds (found by Image::partitions()), and, on the copy of the partition made for
  // one of its volumes, that volume: open_fs() then opens the volume.
  std::shared_ptr<const PoolContainer> container;
  std::optional<PoolVolume> pool_volume;
  std::string container_error;  // the partition starts like an APFS container, but libtsk cannot open it: why
  // The partition reaches past the end of the image (a truncated image): its end as the table declares it.
  bool cut(uint64_t image_size) const { return kind != unallocated && offset_bytes + length_bytes > image_size; }
};

class Image {
 public:
  // Opens the image read-only with libtsk's type detection. Several paths are used as given (segments in
  // order); one path of a split set (.E01, .001, …) finds the other segments by name.
  // Throws EvidenceError: kExitEvidence for a missing/unreadable/empty path or a directory,
  // kExitSegment when a segment of a split set is missing (checked by name, by the EWF segment
  // chain, and for split raw by whether the volume system / file system reaches past the end).
  // A readable file that holds no known image format opens as raw: that is not an error here;
  // open_fs() then reports that no file system was found.
  static std::unique_ptr<Image> open(const std::vector<std::string>& paths);
  // The same evidence opened again by a worker, after open() has checked it and found its type (info().type):
  // libtsk opens it as that type instead of trying every format (each try zeroes a 2 MiB image cache, about 10 ms
  // of page faults in a VM), and the EWF segment-table read through libewf and the split-raw extent probe (a volume
  // system and every file system type libtsk knows) are not repeated: same answer every time, more cost on a large
  // E01. Its info() has no warnings or stored hashes. Throws EvidenceError as open() does.
  static std::unique_ptr<Image> reopen(const std::vector<std::string>& paths, const std::string& type);
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  const ImageInfo& info() const { return info_; }
  // The chunk checksum errors libewf has met so far in reads through this image (an EWF image that reopen() opened),
  // on this handle and every file system view sharing it; empty for any other image.
  std::vector<EwfChecksumError> checksum_errors() const;

  // The volume system walk (DOS, GPT, …) including unallocated gaps and meta entries (table sectors), in
  // slot order. With no volume system: one pseudo partition covering the image at offset 0, vs_type "none".
  // Partitions that reach past the end of the image are listed as the table declares them (Partition::cut).
  // An encrypted APFS volume's snapshots are listed when one of `passwords` unlocks it (the first call's).
  std::vector<Partition> partitions(const std::vector<std::string>& passwords = {});

  // Opens the file system in a partition, or the APFS volume p.pool_volume names. Returns nullptr and sets *why (if why is given) when there is none
  // to open: not an allocated partition, encrypted, no/unknown file system, or damaged (libtsk's message).
  // Each view owns its TSK_FS_INFO and shares this image's TSK_IMG_INFO (kept alive by the view).
  // An encrypted APFS volume (FileVault) is opened with the first of `passwords` that unlocks it; with none given it
  // is not opened (*why names it encrypted, with its password hint). When passwords were given and it still is not
  // opened (none unlocks it, or it is damaged), *locked is set too: the run counts it failed, not skipped.
  std::unique_ptr<roo::FileSystemView> open_fs(const Partition& p, const std::string& evidence_id,
                                               std::string* why, const std::vector<std::string>& passwords = {},
                                               bool* locked = nullptr);

 private:
  Image() = default;
  static std::unique_ptr<Image> wrap(TSK_IMG_INFO* img, const std::vector<std::string>& paths);  // owns img
  void list_partitions();  // the volume system walk into partitions_
  std::unique_ptr<roo::FileSystemView> open_pool_volume_fs(const Partition& p, const std::string& evidence_id,
                                                           std::string* why,
                                                           const std::vector<std::string>& passwords, bool* locked);
  std::shared_ptr<TSK_IMG_INFO> img_;
  ImageInfo info_;
  std::vector<std::string> paths_;
  std::vector<Partition> partitions_;
  bool partitions_done_ = false;
};

}  // namespace roo::tsk
