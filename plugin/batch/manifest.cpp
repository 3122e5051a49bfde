// The manifest: a TSV file with a header, one evidence per data line (README.md "Many drives").
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "plugin/batch/batch.h"
#include "plugin/output_dir.h"

namespace roo::batch {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t at = 0;
  for (;;) {
    const size_t tab = line.find('\t', at);
    fields.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
    if (tab == std::string::npos) return fields;
    at = tab + 1;
  }
}

// An evidence id names a folder under items/ and a marker file, and goes into every merged row: letters, digits,
// '.', '_' and '-', not starting with '.' (hidden part folders start with one), at most 100 bytes.
std::optional<std::string> id_refused(const std::string& id) {
  if (id.empty()) return "the evidence id is empty";
  if (id.size() > 100) return "the evidence id is longer than 100 characters";
  if (id[0] == '.' || id[0] == '-') return "the evidence id \"" + id + "\" starts with '" + id[0] + "'";
  for (unsigned char c : id)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-')
      return "the evidence id \"" + id + "\" holds a character other than letters, digits, '.', '_' and '-' (it "
             "names a folder of the batch)";
  return std::nullopt;
}

// The same file whatever the path says: device and inode when it exists, else its resolved path.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0)
    return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  return "path " + fs::weakly_canonical(fs::absolute(path), ec).string();
}

}  // namespace

const ManifestItem* Manifest::item(int index) const {
  return index >= 1 && index <= static_cast<int>(items.size()) ? &items[index - 1] : nullptr;
}

std::optional<Manifest> load_manifest(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read the manifest " + path;
    return std::nullopt;
  }
  Manifest m;
  m.path = path;
  std::error_code ec;
  const fs::path base = fs::absolute(path, ec).parent_path();
  auto bad = [&](int line, const std::string& why) {
    *error = "manifest " + path + " line " + std::to_string(line) + ": " + why;
    return std::nullopt;
  };
  bool header_seen = false;
  std::map<std::string, int> id_lines, file_lines;
  std::string line;
  for (int file_line = 1; std::getline(in, line); ++file_line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = split_tabs(line);
    if (!header_seen) {
      if (fields.size() < 2 || fields[0] != "evidence_id" || fields[1] != "path")
        return bad(file_line,
                   "the first line must be the header \"evidence_id<TAB>path\" (further columns, extra segments, "
                   "may follow), not \"" + line + "\"");
      header_seen = true;
      continue;
    }
    ManifestItem item;
    item.index = static_cast<int>(m.items.size()) + 1;
    item.file_line = file_line;
    item.id = fields[0];
    if (auto why = id_refused(item.id)) return bad(file_line, *why);
    for (size_t i = 1; i < fields.size(); ++i) {
      std::string p = fields[i];
      if (p.empty()) continue;
      const bool slash = p.size() > 1 && p.back() == '/';
      while (p.size() > 1 && p.back() == '/') p.pop_back();
      fs::path resolved = fs::path(p).is_absolute() ? fs::path(p) : base / p;
      p = resolved.lexically_normal().string();
      if (i == 1) item.folder = slash || fs::is_directory(p, ec);
      item.paths.push_back(p);
    }
    if (item.paths.empty()) return bad(file_line, "evidence " + item.id + " has no path");
    if (item.folder && item.paths.size() > 1)
      return bad(file_line, "evidence " + item.id + " is a folder (--dir) and takes no further paths");
    if (auto [it, fresh] = id_lines.emplace(item.id, file_line); !fresh)
      return bad(file_line, "the evidence id " + item.id + " is on line " + std::to_string(it->second) + " already");
    for (const std::string& p : item.paths)
      if (auto [it, fresh] = file_lines.emplace(file_identity(p), file_line); !fresh)
        return bad(file_line, p + " is on line " + std::to_string(it->second) +
                                  " already (the same image twice would give the same rows under two ids)");
    m.items.push_back(std::move(item));
  }
  if (!header_seen) {
    *error = "manifest " + path + " is empty: it needs the header \"evidence_id<TAB>path\" and a line per evidence";
    return std::nullopt;
  }
  return m;
}

std::optional<std::string> batch_dir_refused(const Manifest& m, const std::string& batch_dir) {
  for (const ManifestItem& item : m.items) {
    const auto dirs = item.folder ? evidence_directories({}, item.paths[0]) : evidence_directories(item.paths, "");
    if (auto why = outdir_inside_evidence(batch_dir, dirs)) return "evidence " + item.id + ": " + *why;
  }
  return std::nullopt;
}

}  // namespace roo::batch
