#include "core/fs_lookup.h"

#include <cctype>

#include "core/text_util.h"

namespace roo {

namespace {

// A literal catalog name (not "*" or "prefix*").
bool literal_pattern(std::string_view pattern) { return pattern != "*" && !(pattern.size() > 1 && pattern.back() == '*'); }

// A deleted FAT entry listed with its first byte lost ("_asks" for "tasks"; fs_lookup.h kNameMatchFirstByteLost).
bool fat_deleted_name_matches(const FileSystemView& fs, const FileMeta& e, std::string_view pattern) {
  const std::string& type = fs.volume().fs_type;
  const bool fat = type == "fat12" || type == "fat16" || type == "fat32";  // exFAT keeps a deleted name whole
  return fat && !e.name_allocated && literal_pattern(pattern) && pattern.size() > 1 && pattern[0] != '_' &&
         e.name.size() == pattern.size() && e.name[0] == '_' &&
         iequals(std::string_view(e.name).substr(1), pattern.substr(1));
}

}  // namespace

bool path_lost_first_byte(const std::string& path, const std::vector<std::string>& segments) {
  size_t end = path.size();
  for (size_t i = segments.size(); i-- > 0;) {
    const size_t slash = path.rfind('/', end == 0 ? 0 : end - 1);
    const size_t begin = slash == std::string::npos ? 0 : slash + 1;
    if (literal_pattern(segments[i]) && !iequals(std::string_view(path).substr(begin, end - begin), segments[i]))
      return true;
    if (slash == std::string::npos) break;
    end = slash;
  }
  return false;
}

const std::vector<FileMeta>& ListingCache::listing(const FileMeta& dir, std::vector<FileMeta>& scratch) {
  auto key = std::make_pair(dir.inode, dir.path);
  if (auto it = kept_.find(key); it != kept_.end()) return it->second;
  const size_t errors_before = base_.errors().size();
  scratch = base_.list_dir(dir);
  if (base_.errors().size() != errors_before) return scratch;  // listed again next time, its errors with it
  if (scratch.size() > kMaxKeptEntries) return scratch;         // listed again if asked: see kMaxKeptEntries
  return kept_.emplace(std::move(key), std::move(scratch)).first->second;
}

const std::vector<FileMeta>& dir_listing(FileSystemView& fs, const FileMeta& dir, std::vector<FileMeta>& scratch) {
  if (auto* cache = dynamic_cast<ListingCache*>(&fs)) return cache->listing(dir, scratch);
  scratch = fs.list_dir(dir);
  return scratch;
}

// Allocated children of dir whose name matches (case-insensitively: NTFS, FAT and HFS+ ignore case, and a
// pattern's case can differ from what the user's system wrote). "*" matches every child directory.
std::vector<FileMeta> children(FileSystemView& fs, const FileMeta& dir, const std::string& pattern, bool dirs_only,
                               bool with_deleted) {
  std::vector<FileMeta> out;
  std::vector<FileMeta> scratch;
  for (const FileMeta& e : dir_listing(fs, dir, scratch)) {
    // In a deleted tree, a name whose metadata now belongs to another file leads into that file, not the old one.
    if (!e.name_allocated && (!with_deleted || e.reallocated)) continue;
    if (dirs_only && !e.is_dir) continue;
    if (e.name == "." || e.name == "..") continue;
    bool match;
    if (pattern == "*") {
      match = true;
    } else if (pattern.size() > 1 && pattern.back() == '*') {  // "prefix*"
      match = e.name.size() >= pattern.size() - 1 && iequals(std::string_view(e.name).substr(0, pattern.size() - 1),
                                                                std::string_view(pattern).substr(0, pattern.size() - 1));
    } else {
      match = iequals(e.name, pattern) || (with_deleted && fat_deleted_name_matches(fs, e, pattern));
    }
    if (match) out.push_back(e);
  }
  return out;
}

// Every directory reached by following segments from start.
std::vector<FileMeta> resolve(FileSystemView& fs, const FileMeta& start, const std::vector<std::string>& segments,
                              bool with_deleted) {
  std::vector<FileMeta> level = {start};
  for (const std::string& seg : segments) {
    std::vector<FileMeta> next;
    for (const FileMeta& d : level)
      for (FileMeta& c : children(fs, d, seg, true, with_deleted)) next.push_back(std::move(c));
    level = std::move(next);
    if (level.empty()) break;
  }
  return level;
}

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
  // A drive of a triage collection is known by its letter: it holds no other drive's path.
  if (const auto& drive = fs.volume().collection;
      drive && p.size() >= 2 && p[1] == ':' && drive->drive.size() == 2 &&
      std::toupper(static_cast<unsigned char>(p[0])) != static_cast<unsigned char>(drive->drive[0]))
    return std::nullopt;
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
