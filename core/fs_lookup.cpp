#include "core/fs_lookup.h"

#include "core/discovery.h"

namespace roo {

std::optional<std::string> read_whole(HashingStream& in) {
  bool over = false;
  std::string bytes = read_up_to(in, kMaxRecordBytes, &over);
  if (over) return std::nullopt;
  return bytes;
}

std::string read_file_bytes(FileSystemView& fs, const FileMeta& file) {
  std::string bytes;
  if (auto src = fs.open(file)) {
    HashingStream in(*src);
    if (auto all = read_whole(in)) bytes = std::move(*all);
  }
  return bytes;
}

std::optional<FileMeta> find_directory(FileSystemView& fs, std::string_view recorded) {
  std::string_view p = recorded;
  if (p.size() >= 2 && p[1] == ':') p.remove_prefix(2);  // a drive letter: see the header
  std::vector<std::string> segments;
  std::string seg;
  for (char c : p) {
    if (c == '/' || c == '\\') {
      if (!seg.empty() && seg != ".") segments.push_back(std::move(seg));
      seg.clear();
    } else {
      seg += c;
    }
  }
  if (!seg.empty() && seg != ".") segments.push_back(std::move(seg));
  if (segments.empty()) return std::nullopt;
  for (const std::string& s : segments)
    if (s == ".." || s == "*") return std::nullopt;  // not a plain path: never guessed at
  auto found = resolve(fs, fs.root(), segments);
  if (found.empty()) return std::nullopt;
  return found.front();
}

}  // namespace roo
