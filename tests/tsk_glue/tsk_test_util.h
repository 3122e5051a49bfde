// Shared helpers for the tsk_glue tests: fixture paths, temp dirs, reading a whole ByteSource.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/evidence.h"

namespace roo::tsk::test {

namespace fs = std::filesystem;

inline fs::path fixtures() { return fs::path(ROO_FIXTURES_DIR); }
inline std::string image(const std::string& name) { return (fixtures() / "images" / name).string(); }
inline fs::path tree(const std::string& name) { return fixtures() / "trees" / name; }

// Values fixed by fixtures/build-images.sh.
inline constexpr int64_t kFsEpoch = 1711929600;       // crtime/ctime of every tree entry
inline constexpr int64_t kMtimeSec = 1714039200;      // default mtime …
inline constexpr uint32_t kMtimeNanos = 123456700;    // … .1234567
inline constexpr int64_t kAtimeSec = 1714125600;      // default atime …
inline constexpr uint32_t kAtimeNanos = 987654300;    // … .9876543
inline constexpr const char* kRooTasksLinux =
    "/home/alice/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
inline constexpr const char* kRooTasksWindows =
    "/Users/bob/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks";
inline constexpr const char* kDeletedTaskA = "019a0000-dead-7000-8000-00000000de1a";
inline constexpr const char* kDeletedTaskB = "019a0000-dead-7000-8000-00000000de1b";

inline std::string read_host_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads a whole source in odd-sized chunks (exercises offsets); fails the test on a read error.
inline std::string read_all(ByteSource& src) {
  std::string out;
  std::vector<char> buf(3001);
  uint64_t off = 0;
  for (;;) {
    int64_t n = src.read_at(off, buf.data(), buf.size());
    EXPECT_GE(n, 0) << src.error();
    if (n <= 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
    off += static_cast<uint64_t>(n);
  }
  return out;
}

// A scratch directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "roo-tsk-test.XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    char* d = mkdtemp(buf.data());
    if (d) path_ = d;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  // Links a fixture image into the temp dir under the same (or another) name.
  std::string link(const std::string& image_name, const std::string& as = "") const {
    fs::path dst = path_ / (as.empty() ? image_name : as);
    fs::create_symlink(fs::path(image(image_name)), dst);
    return dst.string();
  }

 private:
  fs::path path_;
};

// Lines of fixtures/trees/times.tsv (optional): "<tree>/<path>" entries whose times differ from the default.
inline bool has_custom_times(const std::string& tree_name, const std::string& rel_path) {
  std::ifstream in(fixtures() / "trees" / "times.tsv");
  std::string line, want = tree_name + rel_path;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, line.find('\t')) == want) return true;
  }
  return false;
}

}  // namespace roo::tsk::test
