#include "plugin/output_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace roo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWorkPrefix = ".roo-ingest-work";

// The path as the kernel will find it: the existing part through its links, the rest as create_directories makes
// it (`new/..` is the directory holding `new`), with no trailing separator.
fs::path physical(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  fs::path c = fs::weakly_canonical(abs, ec);
  if (ec) c = abs.lexically_normal();
  while (!c.has_filename() && c.has_relative_path()) c = c.parent_path();
  return c;
}

bool same_directory(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The test hook for a kill at each step of publishing: ROO_INGEST_TEST_KILL_AT_PUBLISH=<step> ends the process
// with SIGKILL just before that move (0 = the first), as a power cut or `kill -9` would.
void maybe_killed_at(int step) {
  static const char* v = std::getenv("ROO_INGEST_TEST_KILL_AT_PUBLISH");
  if (v && std::to_string(step) == v) raise(SIGKILL);
}

}  // namespace

std::vector<fs::path> evidence_directories(const std::vector<std::string>& image_paths, const std::string& folder) {
  std::vector<fs::path> dirs;
  for (const std::string& img : image_paths) {
    dirs.push_back(physical(fs::absolute(img).parent_path()));  // beside the name given (a link's folder)
    dirs.push_back(physical(img).parent_path());                // beside the file it names
  }
  if (!folder.empty()) dirs.push_back(physical(folder));
  return dirs;
}

std::optional<std::string> outdir_inside_evidence(const fs::path& out, const std::vector<fs::path>& evidence) {
  std::vector<std::pair<fs::path, struct stat>> guarded;
  for (const fs::path& d : evidence) {
    struct stat st {};
    if (stat(d.c_str(), &st) == 0) guarded.push_back({d, st});
  }
  for (fs::path q = physical(out);; q = q.parent_path()) {
    struct stat st {};
    if (stat(q.c_str(), &st) == 0)
      for (const auto& [dir, dst] : guarded)
        if (same_directory(st, dst))
          return "OUTDIR " + out.string() + (q == physical(out) ? " is " : " lies inside ") + "the evidence's directory " +
                 dir.string() + "; write the outputs outside the folder that holds the evidence";
    if (q == q.root_path() || !q.has_relative_path()) break;
  }
  return std::nullopt;
}

std::optional<OutputDir> OutputDir::open(const Options& opts, std::string* error) {
  if (auto why = outdir_inside_evidence(opts.out, opts.evidence)) {
    *error = *why;
    return std::nullopt;
  }
  std::error_code ec;
  const bool existed = fs::exists(opts.out, ec);
  if (existed) {
    if (!fs::is_directory(opts.out, ec)) {
      *error = "OUTDIR " + opts.out.string() + " exists and is not a directory";
      return std::nullopt;
    }
    if (!opts.force && !(fs::is_empty(opts.out, ec) && !ec)) {
      *error = "OUTDIR " + opts.out.string() + " is not empty; use --force to write into it anyway";
      return std::nullopt;
    }
  } else if (!fs::create_directories(opts.out, ec)) {
    *error = "cannot create OUTDIR " + opts.out.string() + ": " + ec.message();
    return std::nullopt;
  }
  OutputDir dir;
  dir.out_ = opts.out;
  // Again now that it exists, through every link: a path that changed between the check and the creation, or that
  // only the kernel can resolve, is caught here.
  if (auto why = outdir_inside_evidence(fs::canonical(opts.out, ec), opts.evidence)) {
    *error = *why;
    if (!existed) fs::remove(opts.out, ec);  // the empty directory this run made
    return std::nullopt;
  }
  dir.lock_fd_ = ::open(opts.out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir.lock_fd_ < 0) {
    *error = "cannot open OUTDIR " + opts.out.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  // The lock is on the open directory, so it leaves no file behind; forked workers share it, and it is free once
  // the last of them has gone.
  for (int waited = 0; flock(dir.lock_fd_, LOCK_EX | LOCK_NB) != 0; ++waited) {
    if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL) {  // a file system without locks (some NFS)
      std::fprintf(stderr, "roo-ingest: warning: OUTDIR %s cannot be locked (%s); make sure no other run writes it\n",
                   opts.out.c_str(), std::strerror(errno));
      break;
    }
    if (errno != EWOULDBLOCK || waited >= opts.lock_wait_seconds * 10) {
      *error = "OUTDIR " + opts.out.string() + " is in use by another roo-ingest run (or by a worker of one that "
               "was killed and has not ended yet); wait for it, or choose another OUTDIR";
      return std::nullopt;
    }
    if (waited == 0)
      std::fprintf(stderr, "roo-ingest: OUTDIR %s is locked by another run; waiting up to %d s\n",
                   opts.out.c_str(), opts.lock_wait_seconds);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Holding the lock: any work directory here is a dead run's, and no process of that run can still be writing.
  for (const fs::directory_entry& e : fs::directory_iterator(opts.out, ec))
    if (e.path().filename().string().rfind(kWorkPrefix, 0) == 0) fs::remove_all(e.path(), ec);
  std::string tmpl = (opts.out / (std::string(kWorkPrefix) + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) {
    *error = "cannot create a work directory in " + opts.out.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  dir.work_ = tmpl;
  return dir;
}

OutputDir::OutputDir(OutputDir&& other) noexcept
    : out_(std::move(other.out_)), work_(std::move(other.work_)), lock_fd_(other.lock_fd_) {
  other.lock_fd_ = -1;
}

OutputDir::~OutputDir() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

bool OutputDir::publish(const std::vector<std::string>& files, const std::vector<std::string>& all_output_names,
                        std::string* error) {
  std::error_code ec;
  fs::remove(out_ / "report.json", ec);
  for (const std::string& name : all_output_names) fs::remove_all(out_ / name, ec);  // a file, or a format's folder
  int step = 0;
  for (const std::string& name : files) {
    maybe_killed_at(step++);
    fs::rename(work_ / name, out_ / name, ec);
    if (ec) {
      *error = "cannot move " + name + " into " + out_.string() + ": " + ec.message();
      return false;
    }
  }
  maybe_killed_at(step);
  fs::remove_all(work_, ec);
  return true;
}

}  // namespace roo
