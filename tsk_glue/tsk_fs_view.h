// One libtsk file system seen as a roo::FileSystemView. Made by roo::tsk::Image::open_fs().
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"

struct TSK_IMG_INFO;
struct TSK_FS_INFO;

namespace roo::tsk {

// Owns one TSK_FS_INFO and keeps the shared TSK_IMG_INFO alive; ByteSources from open() share it too, so
// they may outlive the view. Not thread-safe (libtsk handles are not): one view per thread.
struct FsHandle;

class TskFileSystemView : public roo::FileSystemView {
 public:
  // Takes ownership of fs. `errors` seeds errors() (e.g. a file system reaching past the image end).
  // `keep`: what fs is read through and must outlive it (an APFS volume's pool and pool image, apfs_pool.h).
  TskFileSystemView(std::shared_ptr<TSK_IMG_INFO> img, TSK_FS_INFO* fs, roo::VolumeInfo volume,
                    std::vector<std::string> errors = {}, std::shared_ptr<void> keep = {});
  ~TskFileSystemView() override;

  const roo::VolumeInfo& volume() const override { return volume_; }
  roo::FileMeta root() override;
  // One directory level via the file system's dir_open_meta (allocated and deleted names; a damaged
  // directory yields what could be parsed plus an error). Skips "." "..", and $OrphanFiles.
  std::vector<roo::FileMeta> list_dir(const roo::FileMeta& dir) override;
  // Reads the default attribute (NTFS: the one named in file.attr). nullptr + an errors() entry on failure.
  std::unique_ptr<roo::ByteSource> open(const roo::FileMeta& file) override;
  // The files of libtsk's virtual $OrphanFiles directory (TSK_FS_ORPHANDIR_INUM), directories left out. The first
  // call makes libtsk walk every unallocated metadata entry (and every name, to know which entries are named).
  std::vector<roo::FileMeta> list_orphans() override;
  std::vector<std::string> errors() const override { return errors_; }
  // Where the file's bytes lie, as one comparable string: its metadata address, size and, for each attribute, its
  // type, id, size and runs (or its bytes, when resident). Two equal answers on two states of one APFS volume mean
  // the same bytes: APFS never writes a block that a snapshot still holds (copy-on-write). Nothing when the file's
  // metadata cannot be read.
  std::optional<std::string> extents_of(const roo::FileMeta& file);
  // A directory's own metadata as one comparable string: its type, size, link count (an APFS directory's number of
  // children, j_inode_val_t nchildren), mode, owner, and modified and changed times. Two equal answers on two states
  // of one APFS volume say the directory holds the same names: adding, removing or renaming an entry changes its
  // number of children or its modified and changed times (apfs_snapshots.cpp says why). Nothing when its metadata
  // cannot be read or it is not a directory.
  std::optional<std::string> dir_state(uint64_t inode);
  // The allocated name `named` (a name, path and metadata address, from another view of the same volume) as this view
  // would list it: this view's metadata of that address, its extents kept when keep_extents() is on. Nothing when
  // this view has no file or directory there.
  std::optional<roo::FileMeta> entry_as_here(const roo::FileMeta& named);
  // From now on, list_dir keeps the extents of the allocated files it lists (their metadata is open then), so
  // extents_of need not open them again: for the views an APFS snapshot merge compares.
  void keep_extents() { keep_extents_ = true; }

 private:
  bool keep_extents_ = false;
  std::map<uint64_t, std::string> extents_;  // by metadata address: what extents_of answers
  std::shared_ptr<FsHandle> fs_;
  roo::VolumeInfo volume_;
  std::vector<std::string> errors_;
};

}  // namespace roo::tsk
