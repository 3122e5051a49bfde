// An APFS volume with local snapshots seen as one file system: the live volume's names, and, merged into each
// directory, the names its snapshots hold that the live volume does not hold with the same bytes
// (docs/row-contract.md "APFS snapshots"). libtsk 4.11 reads a volume as of a snapshot once tsk_apfs_set_snapshot is
// called on its TSK_FS_INFO, so each snapshot is a volume opened again and set to it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "tsk_glue/apfs_filevault.h"
#include "tsk_glue/tsk_evidence.h"
#include "tsk_glue/tsk_fs_view.h"

namespace roo::tsk {

// One snapshot of a volume, opened: what the rows name it by, and the volume as of it.
struct OpenedSnapshot {
  roo::SnapshotRef ref;
  std::unique_ptr<TskFileSystemView> view;
};

// Opens volume `block` of the container at `offset` as of snapshot `xid`; null and *why when libtsk cannot. An
// encrypted volume's `key` (given) opens it decrypted, as its live state (apfs_filevault.h open_filevault_volume).
std::unique_ptr<TskFileSystemView> open_pool_volume_snapshot(std::shared_ptr<TSK_IMG_INFO> img, uint64_t offset,
                                                             uint64_t block, uint64_t xid,
                                                             const roo::VolumeInfo& volume, std::string* why,
                                                             const ApfsVolumeKey* key = nullptr);

// The snapshot as the rows name it: its creation time from nanoseconds since 1970.
roo::SnapshotRef snapshot_ref(const PoolVolume::Snapshot& s);

class SnapshotMergingView : public roo::FileSystemView {
 public:
  // `snapshots`: newest first (the order their copies are compared and listed in).
  SnapshotMergingView(std::unique_ptr<TskFileSystemView> live, std::vector<OpenedSnapshot> snapshots,
                      std::vector<std::string> errors = {});

  const roo::VolumeInfo& volume() const override { return live_->volume(); }
  roo::FileMeta root() override { return live_->root(); }
  // The live listing (allocated and deleted names), then for each snapshot, newest first, each name it holds in the
  // same directory: a file whose extents equal those of a copy already listed at that path (the live one, or a newer
  // snapshot's) is not listed again, that copy's same_in_snapshots names the snapshot; any other file is listed with
  // recovery snapshot, name_allocated false and its snapshot; a directory is listed once (the live one, else the
  // newest snapshot's), and listing it merges every snapshot's directory of that path. A deleted live directory is
  // listed as the live volume lists it. Sorted by name: the live name, then snapshot copies newest first, then
  // deleted names.
  std::vector<roo::FileMeta> list_dir(const roo::FileMeta& dir) override;
  std::unique_ptr<roo::ByteSource> open(const roo::FileMeta& file) override;
  std::vector<roo::FileMeta> list_orphans() override { return live_->list_orphans(); }
  std::vector<std::string> errors() const override;

  // Snapshot files so far: listed as copies of their own, not listed (same extents as a listed copy), and opened
  // (their bytes read, once or more: each file counts once).
  struct Counts {
    int64_t listed = 0, same_extents = 0, opened = 0;
  };
  // Of all snapshots, and of each (in the order given).
  Counts counts() const;
  std::vector<std::pair<roo::SnapshotRef, Counts>> counts_by_snapshot() const;

 private:
  struct Snapshot {
    OpenedSnapshot opened;
    std::map<std::string, roo::FileMeta> dirs;  // by path: its directories met so far, as it lists them
    Counts counts;
    std::set<std::string> opened_paths;
  };
  // The snapshot's directory at `path`, found through the listings of its parents (cached); nothing when the
  // snapshot has no directory there.
  std::optional<roo::FileMeta> snapshot_dir(Snapshot& s, const std::string& path);

  std::unique_ptr<TskFileSystemView> live_;
  std::vector<Snapshot> snapshots_;
  std::vector<std::string> errors_;
};

}  // namespace roo::tsk
