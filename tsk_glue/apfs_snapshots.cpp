#include "tsk_glue/apfs_snapshots.h"

#include <tsk/libtsk.h>
#include <tsk/fs/apfs_fs.h>

#include <algorithm>

#include "tsk_glue/apfs_pool.h"

namespace roo::tsk {

namespace {

// Where an entry sorts among the names of one directory: the live name, snapshot copies, deleted names.
int rank(const roo::FileMeta& f) { return f.name_allocated ? 0 : f.snapshot ? 1 : 2; }

}  // namespace

std::unique_ptr<TskFileSystemView> open_pool_volume_snapshot(std::shared_ptr<TSK_IMG_INFO> img,
                                                             const std::shared_ptr<void>& pool_keep, uint64_t offset,
                                                             uint64_t block, uint64_t xid,
                                                             const roo::VolumeInfo& volume, std::string* why,
                                                             const ApfsVolumeKey* key) {
  PoolVolumeFs opened = key ? open_filevault_volume(img.get(), offset, block, *key, why)
                            : reopen_pool_volume(pool_keep, offset, why);
  if (!opened.fs) return nullptr;
  if (tsk_apfs_set_snapshot(opened.fs, xid) != 0) {
    if (why) *why = take_error("libtsk cannot read the volume as of it");
    tsk_fs_close(opened.fs);
    return nullptr;
  }
  return std::make_unique<TskFileSystemView>(std::move(img), opened.fs, volume, std::vector<std::string>{},
                                             std::move(opened.keep));
}

roo::SnapshotRef snapshot_ref(const PoolVolume::Snapshot& s) {
  roo::SnapshotRef r;
  r.name = s.name;
  r.xid = s.xid;
  if (s.created_ns)
    r.created = roo::FsTime{static_cast<int64_t>(s.created_ns / 1000000000u),
                            static_cast<uint32_t>(s.created_ns % 1000000000u)};
  return r;
}

SnapshotMergingView::SnapshotMergingView(std::unique_ptr<TskFileSystemView> live,
                                         std::vector<OpenedSnapshot> snapshots, std::vector<std::string> errors)
    : live_(std::move(live)), errors_(std::move(errors)) {
  live_->keep_extents();
  for (OpenedSnapshot& s : snapshots) {
    s.view->keep_extents();
    Snapshot snapshot;
    snapshot.opened = std::move(s);
    snapshots_.push_back(std::move(snapshot));
  }
}

std::optional<roo::FileMeta> SnapshotMergingView::snapshot_dir(Snapshot& s, const std::string& path) {
  if (path.empty() || path == "/") return s.opened.view->root();
  if (auto it = s.dirs.find(path); it != s.dirs.end()) return it->second;
  // Not met yet (the walk came another way): its parent's listing finds it.
  const size_t slash = path.rfind('/');
  const std::string parent_path = slash == 0 ? "/" : path.substr(0, slash);
  std::optional<roo::FileMeta> parent = snapshot_dir(s, parent_path);
  if (!parent) return std::nullopt;
  ++s.counts.dirs_listed;
  for (roo::FileMeta& e : s.opened.view->list_dir(*parent))
    if (e.is_dir && e.name_allocated) s.dirs.emplace(e.path, std::move(e));
  if (auto it = s.dirs.find(path); it != s.dirs.end()) return it->second;
  return std::nullopt;
}

// What spares a snapshot most of its cost: a directory it holds as the live volume does is not listed again. APFS
// keeps a file's inode number for its life, in every snapshot (Apple File System Reference, "File-System Objects":
// j_inode_val_t, whose nchildren counts a directory's entries), and a directory's modified and changed times move
// whenever an entry is added, removed or renamed in it (POSIX rename() and unlink() mark the parent's mtime and
// ctime; libtsk 4.11 tsk/fs/apfs_compat.cpp file_add_meta gives those times and nchildren as meta->nlink). So the
// same inode, with the same number of children and the same times, holds the same names on the same inodes: only its
// files are opened, by number, for their extents (a file written in place changes its inode, not its directory). An
// added or removed entry is seen even where the times lie (the number of children differs); a rename within the
// directory is seen through its times only. Anything else the snapshot holds differently (a name's inode missing,
// or a directory where the live one has a file) falls back to listing it. With the snapshots opened on the live
// volume's pool (apfs_pool.h reopen_pool_volume), this took the bench's 24-snapshot volume from 8 times a scan without
// snapshots to 4.4-5.9 times; with 20,000 ordinary files added it costs 9-13 times (tests/bench/README.md "APFS
// snapshots": what is left is a metadata read per directory and file searched, per snapshot).
bool SnapshotMergingView::same_directory(Snapshot& s, uint64_t inode) {
  auto live = live_dir_states_.find(inode);
  if (live == live_dir_states_.end()) live = live_dir_states_.emplace(inode, live_->dir_state(inode)).first;
  if (!live->second) return false;
  const std::optional<std::string> own = s.opened.view->dir_state(inode);
  return own && *own == *live->second;
}

std::optional<std::vector<roo::FileMeta>> SnapshotMergingView::unchanged_entries(Snapshot& s,
                                                                               const std::vector<roo::FileMeta>& live,
                                                                               size_t live_count) {
  std::vector<roo::FileMeta> out;
  std::vector<const roo::FileMeta*> dirs;
  for (size_t i = 0; i < live_count; ++i) {
    const roo::FileMeta& f = live[i];
    if (!f.name_allocated || f.snapshot) continue;
    if (f.is_dir) {
      dirs.push_back(&f);
      continue;
    }
    std::optional<roo::FileMeta> own = s.opened.view->entry_as_here(f);
    if (!own || own->is_dir) return std::nullopt;  // not what the directory's metadata promised: list it after all
    out.push_back(std::move(*own));
  }
  // Each listed once, the live one; the snapshot's, the same inode under the same name, is merged when it is listed.
  for (const roo::FileMeta* d : dirs) s.dirs.emplace(d->path, *d);
  return out;
}

std::vector<roo::FileMeta> SnapshotMergingView::list_dir(const roo::FileMeta& dir) {
  std::vector<roo::FileMeta> out;
  if (!dir.snapshot) {
    out = live_->list_dir(dir);
    if (!dir.name_allocated) return out;  // a deleted directory: what its deleted names say
  }
  // The extents of each listed copy, by its place in out, computed when first compared.
  std::map<size_t, std::optional<std::string>> extents;
  auto extents_at = [&](size_t i) -> const std::optional<std::string>& {
    auto it = extents.find(i);
    if (it != extents.end()) return it->second;
    const roo::FileMeta& f = out[i];
    TskFileSystemView* view = live_.get();
    if (f.snapshot)
      for (Snapshot& s : snapshots_)
        if (s.opened.ref == *f.snapshot) {
          view = s.opened.view.get();
          break;
        }
    return extents.emplace(i, view->extents_of(f)).first->second;
  };
  const size_t live_count = out.size();
  for (Snapshot& s : snapshots_) {
    std::optional<roo::FileMeta> sdir = snapshot_dir(s, dir.path);
    if (!sdir || !sdir->is_dir) continue;
    std::optional<std::vector<roo::FileMeta>> entries;
    if (!dir.snapshot && dir.inode && sdir->inode == dir.inode && same_directory(s, *dir.inode))
      entries = unchanged_entries(s, out, live_count);
    if (entries) {
      ++s.counts.dirs_unchanged;
    } else {
      entries = s.opened.view->list_dir(*sdir);
      ++s.counts.dirs_listed;
    }
    for (roo::FileMeta& e : *entries) {
      if (!e.name_allocated) continue;  // not a name the snapshot holds
      std::vector<size_t> same_name;    // the copies already listed under this name (live or snapshot)
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i].name == e.name && (out[i].name_allocated || out[i].snapshot)) same_name.push_back(i);
      if (e.is_dir) {
        s.dirs.emplace(e.path, e);
        const bool listed = std::any_of(same_name.begin(), same_name.end(), [&](size_t i) { return out[i].is_dir; });
        if (listed) continue;
      } else {
        const std::optional<std::string> own = s.opened.view->extents_of(e);
        bool folded = false;
        for (size_t i : same_name) {
          if (out[i].is_dir || !own || extents_at(i) != own) continue;
          out[i].same_in_snapshots.push_back(s.opened.ref);
          ++s.counts.same_extents;
          folded = true;
          break;
        }
        if (folded) continue;
        extents.emplace(out.size(), own);
        ++s.counts.listed;
      }
      e.name_allocated = false;
      e.recovery = roo::Recovery::snapshot;
      e.snapshot = s.opened.ref;
      out.push_back(std::move(e));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const roo::FileMeta& a, const roo::FileMeta& b) {
    if (a.name != b.name) return a.name < b.name;  // std::string compares bytes as unsigned char
    return rank(a) < rank(b);  // snapshot copies keep their order among themselves: newest first
  });
  return out;
}

std::unique_ptr<roo::ByteSource> SnapshotMergingView::open(const roo::FileMeta& file) {
  if (!file.snapshot) return live_->open(file);
  for (Snapshot& s : snapshots_)
    if (s.opened.ref == *file.snapshot) {
      if (s.opened_paths.insert(file.path).second) ++s.counts.opened;
      return s.opened.view->open(file);
    }
  errors_.push_back(file.path + ": snapshot " + file.snapshot->name + " is not open");
  return nullptr;
}

SnapshotMergingView::Counts SnapshotMergingView::counts() const {
  Counts all;
  for (const Snapshot& s : snapshots_) {
    all.listed += s.counts.listed;
    all.same_extents += s.counts.same_extents;
    all.opened += s.counts.opened;
    all.dirs_listed += s.counts.dirs_listed;
    all.dirs_unchanged += s.counts.dirs_unchanged;
  }
  return all;
}

std::vector<std::pair<roo::SnapshotRef, SnapshotMergingView::Counts>> SnapshotMergingView::counts_by_snapshot() const {
  std::vector<std::pair<roo::SnapshotRef, Counts>> out;
  for (const Snapshot& s : snapshots_) out.emplace_back(s.opened.ref, s.counts);
  return out;
}

std::vector<std::string> SnapshotMergingView::errors() const {
  std::vector<std::string> out = errors_;
  for (std::string& e : live_->errors()) out.push_back(std::move(e));
  for (const Snapshot& s : snapshots_)
    for (const std::string& e : s.opened.view->errors()) out.push_back("snapshot " + s.opened.ref.name + ": " + e);
  return out;
}

}  // namespace roo::tsk
