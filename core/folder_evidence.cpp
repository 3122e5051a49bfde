#include "core/folder_evidence.h"
#include "core/progress_beats.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>

namespace roo {

namespace {

class HostFile : public ByteSource {
 public:
  HostFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~HostFile() override { close(fd_); }
  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t offset, char* buf, size_t len) override {
    for (;;) {
      ssize_t n = pread(fd_, buf, len, static_cast<off_t>(offset));
      if (n >= 0) {
        count_progress(static_cast<uint64_t>(n));
        return n;
      }
      if (errno == EINTR) continue;
      error_ = std::strerror(errno);
      return -1;
    }
  }
  std::string error() const override { return error_; }

 private:
  int fd_;
  uint64_t size_;
  std::string error_;
};

FsTime fs_time(const struct timespec& ts) {
  return {static_cast<int64_t>(ts.tv_sec), static_cast<uint32_t>(ts.tv_nsec)};
}

void fill_from_stat(FileMeta& m, const struct stat& st) {
  m.is_dir = S_ISDIR(st.st_mode);
  m.inode = st.st_ino;
  m.size = static_cast<uint64_t>(st.st_size);
  m.mtime = fs_time(st.st_mtim);
  m.atime = fs_time(st.st_atim);
  m.ctime = fs_time(st.st_ctim);
}

std::string basename_of(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

// Read-only, never through a link, never blocking (a FIFO planted in evidence must not hang the run), and without
// touching the access time where the kernel allows it (O_NOATIME needs ownership or CAP_FOWNER: retried without).
static int open_evidence(const std::string& path, int extra_flags) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | extra_flags;
  int fd = ::open(path.c_str(), flags | O_NOATIME);
  if (fd < 0 && errno == EPERM) fd = ::open(path.c_str(), flags);
  return fd;
}

std::unique_ptr<ByteSource> open_host_file(const std::string& path, std::string* why) {
  int fd = open_evidence(path, 0);
  if (fd < 0) {
    if (why) *why = std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (why) *why = "not a regular file";
    close(fd);
    return nullptr;
  }
  return std::make_unique<HostFile>(fd, static_cast<uint64_t>(st.st_size));
}

FolderFileSystem::FolderFileSystem(std::string root_dir) : root_dir_(std::move(root_dir)) {
  while (root_dir_.size() > 1 && root_dir_.back() == '/') root_dir_.pop_back();
  // The evidence id is the folder's own name, also when it was given as "." or "../x/..".
  char* real = realpath(root_dir_.c_str(), nullptr);
  volume_.evidence = basename_of(real ? real : root_dir_);
  std::free(real);
  volume_.fs_type = "folder";
}

FolderFileSystem::FolderFileSystem(const CollectedDriveOptions& drive)
    : FolderFileSystem(drive.drive.host_dir) {
  collected_ = drive;
  volume_.evidence = drive.evidence;
  volume_.collection = CollectionDriveRef{drive.collector, drive.drive.drive};
}

std::string FolderFileSystem::host_path(const FileMeta& f) {
  if (f.path == "/") return root_dir_;
  if (!collected_ || !collected_->encoded_names) return root_dir_ + f.path;
  // Decoded names do not encode back to one spelling: each folder's host name is looked up among its parent's
  // entries, once.
  const size_t slash = f.path.rfind('/');
  const std::string parent = slash == 0 ? "/" : f.path.substr(0, slash), name = f.path.substr(slash + 1);
  std::string parent_host;
  if (parent == "/") {
    parent_host = root_dir_;
  } else if (auto it = host_dirs_.find(parent); it != host_dirs_.end()) {
    parent_host = it->second;
  } else {
    FileMeta up;
    up.path = parent;
    parent_host = host_path(up);
  }
  std::string found = parent_host + "/" + name;  // when nothing decodes to it (then the open fails and says so)
  if (DIR* d = opendir(parent_host.c_str())) {
    while (struct dirent* e = readdir(d))
      if (decode_collected_name(e->d_name) == name) {
        found = parent_host + "/" + e->d_name;
        break;
      }
    closedir(d);
  }
  host_dirs_[f.path] = found;
  return found;
}

// A collection's file gets the times the collector recorded for it on its drive, all four (a time the record lacks is
// unknown, not the copy's); without a record, its copy's, said so.
void FolderFileSystem::apply_recorded_times(FileMeta& m) const {
  if (!collected_) return;
  const OriginalTimesByPath* times = collected_->drive.times.get();
  std::string key = m.path;
  if (collected_->drive.drive != "/")
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto it = times ? times->find(key) : OriginalTimesByPath::const_iterator();
  if (!times || it == times->end()) {
    m.times_from = "copy";
    return;
  }
  m.mtime = it->second.mtime;
  m.atime = it->second.atime;
  m.ctime = it->second.ctime;
  m.crtime = it->second.crtime;
  m.times_from = collected_->times_from;
}

FileMeta FolderFileSystem::root() {
  FileMeta m;
  m.path.assign(1, '/');  // not `= "/"`: GCC 12 -O3 raises a false -Wrestrict on that (GCC bug 105329)
  struct stat st {};
  if (stat(root_dir_.c_str(), &st) == 0) fill_from_stat(m, st);
  m.is_dir = true;
  apply_recorded_times(m);
  return m;
}

std::vector<FileMeta> FolderFileSystem::list_dir(const FileMeta& dir) {
  std::vector<FileMeta> out;
  const std::string host = host_path(dir);
  int dir_fd = open_evidence(host, O_DIRECTORY);
  DIR* d = dir_fd < 0 ? nullptr : fdopendir(dir_fd);
  if (!d) {
    errors_.push_back(dir.path + ": " + std::strerror(errno));
    if (dir_fd >= 0) close(dir_fd);
    return out;
  }
  while (struct dirent* e = readdir(d)) {
    const std::string host_name = e->d_name;
    if (host_name == "." || host_name == "..") continue;
    const std::string name =
        collected_ && collected_->encoded_names ? decode_collected_name(host_name) : host_name;
    FileMeta m;
    m.name = name;
    m.path = (dir.path == "/" ? "" : dir.path) + "/" + name;
    struct stat st {};
    if (lstat((host + "/" + host_name).c_str(), &st) == 0) {
      fill_from_stat(m, st);
      if (S_ISLNK(st.st_mode)) m.is_dir = false;  // never followed
    }
    apply_recorded_times(m);
    if (collected_ && collected_->encoded_names && m.is_dir) host_dirs_[m.path] = host + "/" + host_name;
    out.push_back(std::move(m));
  }
  closedir(d);
  std::sort(out.begin(), out.end(), [](const FileMeta& a, const FileMeta& b) { return a.name < b.name; });
  return out;
}

std::unique_ptr<ByteSource> FolderFileSystem::open(const FileMeta& file) {
  std::string why;
  auto src = open_host_file(host_path(file), &why);
  if (!src) errors_.push_back(file.path + ": " + why);
  return src;
}

}  // namespace roo
