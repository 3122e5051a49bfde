#include "core/folder_evidence.h"
#include "core/progress_beats.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

std::string FolderFileSystem::host_path(const FileMeta& f) const {
  return f.path == "/" ? root_dir_ : root_dir_ + f.path;
}

FileMeta FolderFileSystem::root() {
  FileMeta m;
  m.path.assign(1, '/');  // not `= "/"`: GCC 12 -O3 raises a false -Wrestrict on that (GCC bug 105329)
  struct stat st {};
  if (stat(root_dir_.c_str(), &st) == 0) fill_from_stat(m, st);
  m.is_dir = true;
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
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    FileMeta m;
    m.name = name;
    m.path = (dir.path == "/" ? "" : dir.path) + "/" + name;
    struct stat st {};
    if (lstat((host + "/" + name).c_str(), &st) == 0) {
      fill_from_stat(m, st);
      if (S_ISLNK(st.st_mode)) m.is_dir = false;  // never followed
    }
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
