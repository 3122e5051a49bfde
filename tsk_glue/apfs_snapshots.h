// An APFS volume with local snapshots seen as one file system: the live volume's names, and, merged into each
// directory, the names its snapshots hold that the live volume does not hold with the same bytes
// (docs/row-contract.md "APFS snapshots"). libtsk 4.11 reads a volume as of a snapshot once tsk_apfs_set_snapshot is
// called on its TSK_FS_INFO, so each snapshot is the volume opened again, on the live volume's pool, and set to it.
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

// Opens the pool volume whose live state `pool_keep` holds open (apfs_pool.h PoolVolumeFs::keep) as of snapshot
// `xid`, on that same pool and pool image (apfs_pool.h reopen_pool_volume); null and *why when libtsk cannot. An
// encrypted volume's `key` (given) opens volume `block` of the container at `offset` decrypted instead, as its live
// state was (apfs_filevault.h open_filevault_volume), since its keep is not a plain pool's.
std::unique_ptr<TskFileSystemView> open_pool_volume_snapshot(std::shared_ptr<TSK_IMG_INFO> img,
                                                             const std::shared_ptr<void>& pool_keep, uint64_t offset,
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
  // (their bytes read, once or more: each file counts once); and the snapshot's directories merged so far, listed
  // or, holding the live directory's names (same_directory), not listed.
  struct Counts {
    int64_t listed = 0, same_extents = 0, opened = 0;
    int64_t dirs_listed = 0, dirs_unchanged = 0;
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
  // Whether the snapshot's directory `inode` has the live one's metadata (TskFileSystemView::dir_state), so holds
  // the same names on the same inodes.
  bool same_directory(Snapshot& s, uint64_t inode);
  // The snapshot's entries of a directory same_directory says holds the live one's names: for each allocated live
  // file among live's first live_count entries, the snapshot's metadata of its inode (its directories are only noted
  // in s.dirs). Nothing when a live file's inode is not a file in the snapshot: then the directory is listed.
  std::optional<std::vector<roo::FileMeta>> unchanged_entries(Snapshot& s, const std::vector<roo::FileMeta>& live,
                                                              size_t live_count);

  std::unique_ptr<TskFileSystemView> live_;
  std::map<uint64_t, std::optional<std::string>> live_dir_states_;  // by inode: live_->dir_state's answers
  std::vector<Snapshot> snapshots_;
  std::vector<std::string> errors_;
};

}  // namespace roo::tsk
