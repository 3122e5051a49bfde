#include "tsk_glue/tsk_fs_view.h"
#include "core/progress_beats.h"

#include <tsk/libtsk.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <set>
#include <utility>

#include "tsk_glue/exfat_times.h"

namespace roo::tsk {

struct FsHandle {
  std::shared_ptr<TSK_IMG_INFO> img;  // keeps the image open while any view or source needs it
  std::shared_ptr<void> under_fs;     // closed after fs, before img: an APFS volume's pool image and pool
  TSK_FS_INFO* fs = nullptr;
  std::optional<roo::tsk::ExfatGeometry> exfat;  // exFAT only: where its directory entries lie (exfat_times.h)
  ~FsHandle() {
    if (fs) tsk_fs_close(fs);
  }
};

namespace {

// libtsk's last error on this thread, then cleared.
std::string take_tsk_error(const char* fallback = "unknown libtsk error") {
  const char* e = tsk_error_get();
  std::string s = (e && *e) ? e : fallback;
  tsk_error_reset();
  // one line
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// libtsk leaves *_nano at 0 where the file system has no sub-second part, and fills it on NTFS (100 ns
// units) and FAT (10 ms creation times) even though only ext4/APFS/… set TSK_FS_INFO_FLAG_HAVE_NANOSEC,
// so the field is taken as is.
std::optional<FsTime> fs_time(time_t sec, uint32_t nano) {
  if (sec == 0 && nano == 0) return std::nullopt;  // unset: unknown, never the epoch
  FsTime t;
  t.seconds = static_cast<int64_t>(sec);
  t.nanos = nano < 1000000000u ? nano : 0;
  return t;
}

bool is_ntfs(const TSK_FS_INFO* fs) { return TSK_FS_TYPE_ISNTFS(fs->ftype); }

// NTFS frees an MFT entry by bumping its sequence number, so a deleted name (old seq) pointing at a freed,
// not yet reused entry sees seq+1. Anything else that differs means the entry now belongs to another file.
bool seq_consistent(uint32_t name_seq, const TSK_FS_META* meta) {
  if (meta->seq == name_seq) return true;
  if (meta->flags & TSK_FS_META_FLAG_ALLOC) return false;
  uint32_t next = (name_seq + 1) & 0xffff;
  if (next == 0) next = 1;  // NTFS skips 0
  return meta->seq == next;
}

// Fills the metadata part of m from an open file (meta may be null).
void fill_from_meta(FileMeta& m, TSK_FS_FILE* file, const FsHandle& h, bool trust_meta) {
  TSK_FS_INFO* fs = h.fs;
  const TSK_FS_META* meta = file ? file->meta : nullptr;
  if (!meta) {
    m.meta_allocated = false;
    return;
  }
  m.meta_allocated = (meta->flags & TSK_FS_META_FLAG_ALLOC) != 0;
  if (!m.is_dir && trust_meta) m.is_dir = TSK_FS_IS_DIR_META(meta->type);
  m.size = static_cast<uint64_t>(meta->size < 0 ? 0 : meta->size);
  m.mtime = fs_time(meta->mtime, meta->mtime_nano);
  m.atime = fs_time(meta->atime, meta->atime_nano);
  m.ctime = fs_time(meta->ctime, meta->ctime_nano);
  m.crtime = fs_time(meta->crtime, meta->crtime_nano);
  if (h.exfat) {
    // libtsk 4.11 ignores exFAT's UtcOffset and misreads an increment of 100 (exfat_times.h): the entry decides.
    if (auto own = read_exfat_entry_times(fs, *h.exfat, meta->addr)) {
      if (own->crtime) m.crtime = own->crtime;
      if (own->mtime) m.mtime = own->mtime;
      if (own->atime) m.atime = own->atime;
    }
  }
  if (is_ntfs(fs) && file) {
    // the default attribute, as fls/icat name it: type-id (128-2 for $DATA, 144-x for a directory index)
    const TSK_FS_ATTR* attr = tsk_fs_file_attr_get(file);
    if (attr) {
      m.attr = std::to_string(static_cast<int>(attr->type)) + "-" + std::to_string(attr->id);
    } else {
      tsk_error_reset();
    }
  }
}

class TskByteSource : public ByteSource {
 public:
  TskByteSource(std::shared_ptr<FsHandle> fs, TSK_FS_FILE* file, uint64_t size, bool typed,
                TSK_FS_ATTR_TYPE_ENUM type, uint16_t id)
      : fs_(std::move(fs)), file_(file), size_(size), typed_(typed), type_(type), id_(id) {}
  ~TskByteSource() override {
    if (file_) tsk_fs_file_close(file_);
  }
  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t offset, char* buf, size_t len) override {
    try {
      if (offset >= size_ || len == 0) return 0;
      uint64_t want = std::min<uint64_t>(len, size_ - offset);
      ssize_t n = typed_ ? tsk_fs_file_read_type(file_, type_, id_, static_cast<TSK_OFF_T>(offset), buf,
                                                 static_cast<size_t>(want), TSK_FS_FILE_READ_FLAG_NONE)
                         : tsk_fs_file_read(file_, static_cast<TSK_OFF_T>(offset), buf,
                                            static_cast<size_t>(want), TSK_FS_FILE_READ_FLAG_NONE);
      if (n < 0) {
        error_ = "read at offset " + std::to_string(offset) + ": " + take_tsk_error("read failed");
        return -1;
      }
      count_progress(static_cast<uint64_t>(n));
      return static_cast<int64_t>(n);
    } catch (const std::exception& e) {
      error_ = e.what();
      return -1;
    } catch (...) {
      error_ = "unknown exception while reading";
      return -1;
    }
  }
  std::string error() const override { return error_; }

 private:
  std::shared_ptr<FsHandle> fs_;
  TSK_FS_FILE* file_;
  uint64_t size_;
  bool typed_;
  TSK_FS_ATTR_TYPE_ENUM type_;
  uint16_t id_;
  std::string error_;
};

std::string child_path(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == "/") return "/" + name;
  return dir + "/" + name;
}

// TskFileSystemView::extents_of's answer for an open file.
std::string extents_text(TSK_FS_FILE* f, uint64_t inode) {
  std::string out = std::to_string(inode) + " " + std::to_string(f->meta->size);
  const int attrs = tsk_fs_file_attr_getsize(f);
  for (int i = 0; i < attrs; ++i) {
    const TSK_FS_ATTR* a = tsk_fs_file_attr_get_idx(f, i);
    if (!a) continue;
    out += " [" + std::to_string(static_cast<int>(a->type)) + "-" + std::to_string(a->id) + " " +
           std::to_string(a->size);
    if (a->flags & TSK_FS_ATTR_NONRES) {
      for (const TSK_FS_ATTR_RUN* r = a->nrd.run; r; r = r->next)
        out += " " + std::to_string(r->addr) + "+" + std::to_string(r->len) + "/" + std::to_string(r->flags);
    } else if (a->rd.buf && a->size > 0) {
      out += " =";
      out.append(reinterpret_cast<const char*>(a->rd.buf),
                 static_cast<size_t>(std::min<TSK_OFF_T>(a->size, static_cast<TSK_OFF_T>(a->rd.buf_size))));
    }
    out += "]";
  }
  tsk_error_reset();
  return out;
}

}  // namespace

TskFileSystemView::TskFileSystemView(std::shared_ptr<TSK_IMG_INFO> img, TSK_FS_INFO* fs, VolumeInfo volume,
                                     std::vector<std::string> errors, std::shared_ptr<void> keep)
    : fs_(std::make_shared<FsHandle>()), volume_(std::move(volume)), errors_(std::move(errors)) {
  fs_->img = std::move(img);
  fs_->under_fs = std::move(keep);
  fs_->fs = fs;
  fs_->exfat = read_exfat_geometry(fs);
}

TskFileSystemView::~TskFileSystemView() = default;

FileMeta TskFileSystemView::root() {
  TSK_FS_INFO* fs = fs_->fs;
  FileMeta m;
  m.path.assign(1, '/');  // not `= "/"`: GCC 12 -O3 raises a false -Wrestrict on that (GCC bug 105329)
  m.is_dir = true;
  m.inode = static_cast<uint64_t>(fs->root_inum);
  m.name_allocated = true;
  TSK_FS_FILE* file = tsk_fs_file_open_meta(fs, nullptr, fs->root_inum);
  if (!file) {
    errors_.push_back("/: cannot read the root directory's metadata: " + take_tsk_error());
    m.meta_allocated = false;
    return m;
  }
  fill_from_meta(m, file, *fs_, true);
  m.is_dir = true;
  if (file->meta && (fs->flags & TSK_FS_INFO_FLAG_HAVE_SEQ)) m.meta_seq = file->meta->seq;
  tsk_fs_file_close(file);
  return m;
}

std::vector<FileMeta> TskFileSystemView::list_dir(const FileMeta& dir) {
  std::vector<FileMeta> out;
  TSK_FS_INFO* fs = fs_->fs;
  if (!dir.inode) {
    errors_.push_back(dir.path + ": no metadata address to open the directory by");
    return out;
  }
  try {
    TSK_FS_DIR* d = nullptr;
    // The file system's own dir_open_meta rather than tsk_fs_dir_open_meta(): the latter throws away
    // everything when the directory is only partly readable (TSK_COR), which is common for deleted ones.
    TSK_RETVAL_ENUM rv = fs->dir_open_meta(fs, &d, static_cast<TSK_INUM_T>(*dir.inode), 0);
    if (rv != TSK_OK) {
      std::string why = take_tsk_error(rv == TSK_COR ? "directory is corrupt" : "cannot open directory");
      errors_.push_back(dir.path + ": " + why);
      if (rv != TSK_COR || !d) {
        if (d) tsk_fs_dir_close(d);
        return out;
      }
    }
    const bool have_seq = (fs->flags & TSK_FS_INFO_FLAG_HAVE_SEQ) != 0;
    const TSK_INUM_T orphan_dir = TSK_FS_ORPHANDIR_INUM(fs);
    size_t n = tsk_fs_dir_getsize(d);
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const TSK_FS_NAME* name = tsk_fs_dir_get_name(d, i);
      if (!name || !name->name) continue;
      if (std::strcmp(name->name, ".") == 0 || std::strcmp(name->name, "..") == 0) continue;
      if (name->type == TSK_FS_NAME_TYPE_VIRT_DIR && name->meta_addr == orphan_dir) continue;  // $OrphanFiles

      FileMeta m;
      m.name = name->name;  // bytes as libtsk gives them; not re-validated as UTF-8
      m.path = child_path(dir.path, m.name);
      m.inode = static_cast<uint64_t>(name->meta_addr);
      if (have_seq) m.meta_seq = name->meta_seq;
      m.name_allocated = (name->flags & TSK_FS_NAME_FLAG_ALLOC) != 0;
      m.is_dir = TSK_FS_IS_DIR_NAME(name->type);
      m.recovery = m.name_allocated ? Recovery::allocated : Recovery::deleted;

      TSK_FS_FILE* file = nullptr;
      if (name->meta_addr != 0 || m.name_allocated) {
        file = tsk_fs_file_open_meta(fs, nullptr, name->meta_addr);
        if (!file) tsk_error_reset();  // a deleted name may point anywhere; no meta is a normal outcome
      }
      bool trust = true;
      if (file && file->meta && have_seq && !seq_consistent(name->meta_seq, file->meta)) trust = false;
      fill_from_meta(m, file, *fs_, trust);
      if (file && file->meta) {
        bool meta_alloc = (file->meta->flags & TSK_FS_META_FLAG_ALLOC) != 0;
        m.reallocated = (!m.name_allocated && meta_alloc) || !trust;
      }
      // Kept while the file is open anyway: a snapshot's files are compared by their extents (apfs_snapshots.h).
      if (keep_extents_ && file && file->meta && m.name_allocated && !m.is_dir && m.inode)
        extents_[*m.inode] = extents_text(file, *m.inode);
      if (file) tsk_fs_file_close(file);
      out.push_back(std::move(m));
    }
    tsk_fs_dir_close(d);
  } catch (const std::exception& e) {
    errors_.push_back(dir.path + ": " + e.what());
  }
  std::stable_sort(out.begin(), out.end(), [](const FileMeta& a, const FileMeta& b) {
    if (a.name != b.name) return a.name < b.name;  // std::string compares bytes as unsigned char
    if (a.name_allocated != b.name_allocated) return a.name_allocated;
    return a.inode.value_or(0) < b.inode.value_or(0);
  });
  return out;
}

std::vector<FileMeta> TskFileSystemView::list_orphans() {
  FileMeta orphan_dir;
  orphan_dir.path = "/$OrphanFiles";
  orphan_dir.name = "$OrphanFiles";
  orphan_dir.is_dir = true;
  orphan_dir.inode = static_cast<uint64_t>(TSK_FS_ORPHANDIR_INUM(fs_->fs));
  std::vector<FileMeta> out;
  // Each file system's dir_open_meta answers the orphan directory's address with libtsk's orphan hunt. libtsk
  // lists the files of an orphan directory below it, not at the top: those are followed (a few levels, each
  // directory once), names allocated or not, but never a reallocated one (its metadata is another file's now).
  std::set<uint64_t> seen_dirs;
  std::function<void(const FileMeta&, int)> walk = [&](const FileMeta& dir, int depth) {
    for (FileMeta& m : list_dir(dir)) {
      if (m.reallocated) continue;
      if (m.is_dir) {
        if (depth < 8 && m.inode && seen_dirs.insert(*m.inode).second) walk(m, depth + 1);
        continue;
      }
      m.recovery = Recovery::orphan;
      out.push_back(std::move(m));
    }
  };
  walk(orphan_dir, 0);
  std::stable_sort(out.begin(), out.end(),
                   [](const FileMeta& a, const FileMeta& b) { return a.inode.value_or(0) < b.inode.value_or(0); });
  return out;
}

std::unique_ptr<ByteSource> TskFileSystemView::open(const FileMeta& file) {
  TSK_FS_INFO* fs = fs_->fs;
  if (!file.inode) {
    errors_.push_back(file.path + ": no metadata address to read the file by");
    return nullptr;
  }
  TSK_FS_FILE* f = tsk_fs_file_open_meta(fs, nullptr, static_cast<TSK_INUM_T>(*file.inode));
  if (!f || !f->meta) {
    errors_.push_back(file.path + ": cannot open inode " + std::to_string(*file.inode) + ": " +
                      take_tsk_error("no metadata"));
    if (f) tsk_fs_file_close(f);
    return nullptr;
  }
  bool typed = false;
  TSK_FS_ATTR_TYPE_ENUM type = TSK_FS_ATTR_TYPE_DEFAULT;
  uint16_t id = 0;
  uint64_t size = static_cast<uint64_t>(f->meta->size < 0 ? 0 : f->meta->size);
  if (!file.attr.empty()) {
    // "type-id": read exactly that attribute (an NTFS file may have several streams)
    size_t dash = file.attr.find('-');
    try {
      int t = std::stoi(file.attr.substr(0, dash));
      int i = dash == std::string::npos ? 0 : std::stoi(file.attr.substr(dash + 1));
      type = static_cast<TSK_FS_ATTR_TYPE_ENUM>(t);
      id = static_cast<uint16_t>(i);
      typed = true;
      const TSK_FS_ATTR* a = tsk_fs_file_attr_get_id(f, id);
      if (a && a->type == type) {
        size = static_cast<uint64_t>(a->size < 0 ? 0 : a->size);
      } else {
        tsk_error_reset();
        errors_.push_back(file.path + ": attribute " + file.attr + " not found");
        tsk_fs_file_close(f);
        return nullptr;
      }
    } catch (const std::exception&) {
      errors_.push_back(file.path + ": bad attribute " + file.attr);
      tsk_fs_file_close(f);
      return nullptr;
    }
  }
  return std::make_unique<TskByteSource>(fs_, f, size, typed, type, id);
}

std::optional<std::string> TskFileSystemView::dir_state(uint64_t inode) {
  TSK_FS_FILE* f = tsk_fs_file_open_meta(fs_->fs, nullptr, static_cast<TSK_INUM_T>(inode));
  std::optional<std::string> out;
  if (f && f->meta && TSK_FS_IS_DIR_META(f->meta->type)) {
    const TSK_FS_META* m = f->meta;
    out = std::to_string(static_cast<int>(m->type)) + " " + std::to_string(m->size) + " " + std::to_string(m->nlink) +
          " " + std::to_string(static_cast<int>(m->mode)) + " " + std::to_string(m->uid) + ":" +
          std::to_string(m->gid) + " " + std::to_string(m->mtime) + "." + std::to_string(m->mtime_nano) + " " +
          std::to_string(m->ctime) + "." + std::to_string(m->ctime_nano);
  }
  tsk_error_reset();
  if (f) tsk_fs_file_close(f);
  return out;
}

std::optional<FileMeta> TskFileSystemView::entry_as_here(const FileMeta& named) {
  if (!named.inode) return std::nullopt;
  TSK_FS_FILE* file = tsk_fs_file_open_meta(fs_->fs, nullptr, static_cast<TSK_INUM_T>(*named.inode));
  if (!file || !file->meta || !(file->meta->flags & TSK_FS_META_FLAG_ALLOC)) {
    tsk_error_reset();
    if (file) tsk_fs_file_close(file);
    return std::nullopt;
  }
  FileMeta m;
  m.name = named.name;
  m.path = named.path;
  m.inode = named.inode;
  m.name_allocated = true;
  m.recovery = Recovery::allocated;
  fill_from_meta(m, file, *fs_, true);
  if (keep_extents_ && !m.is_dir) extents_[*m.inode] = extents_text(file, *m.inode);
  tsk_fs_file_close(file);
  return m;
}

std::optional<std::string> TskFileSystemView::extents_of(const FileMeta& file) {
  if (!file.inode) return std::nullopt;
  if (auto it = extents_.find(*file.inode); it != extents_.end()) return it->second;
  TSK_FS_FILE* f = tsk_fs_file_open_meta(fs_->fs, nullptr, static_cast<TSK_INUM_T>(*file.inode));
  if (!f || !f->meta) {
    tsk_error_reset();
    if (f) tsk_fs_file_close(f);
    return std::nullopt;
  }
  std::string out = extents_text(f, *file.inode);
  tsk_fs_file_close(f);
  return out;
}

}  // namespace roo::tsk
