#include "core/collection_layout.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/text_util.h"

namespace fs = std::filesystem;

namespace roo {

namespace {

// A collection's record files are read line by line; a line longer than this is not one of their records.
constexpr size_t kMaxRecordLine = 1 << 20;

std::vector<std::string> sorted_names(const fs::path& dir, bool dirs) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_symlink(type_ec)) continue;  // never followed, as the folder view never follows one
    if (it->is_directory(type_ec) == dirs) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "C:" from "C:", "c:" or "\\.\C:" (Velociraptor's ntfs accessor names the device).
std::optional<std::string> drive_letter(const std::string& name) {
  if (name.size() < 2 || name.back() != ':' || !std::isalpha(static_cast<unsigned char>(name[name.size() - 2])))
    return std::nullopt;
  if (name.size() != 2 && name != std::string("\\\\.\\") + name.substr(name.size() - 2)) return std::nullopt;
  return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(name[name.size() - 2])))) + ":";
}

// "2025-08-25 20:21:09.9776063" (KAPE) or "2026-03-16T10:00:27.165123456Z" (Velociraptor), UTC, to the nanosecond.
std::optional<FsTime> parse_utc_time(std::string_view s) {
  s = trim(s);
  auto digits = [&](size_t at, size_t n, int64_t& out) {
    if (at + n > s.size()) return false;
    out = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int64_t y, mo, d, h, mi, se;
  if (!digits(0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(5, 2, mo) || s[7] != '-' || !digits(8, 2, d) ||
      (s[10] != 'T' && s[10] != ' ') || !digits(11, 2, h) || s[13] != ':' || !digits(14, 2, mi) || s[16] != ':' ||
      !digits(17, 2, se))
    return std::nullopt;
  size_t pos = 19;
  uint32_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    size_t n = 0;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++n)
      if (n < 9) nanos = nanos * 10 + static_cast<uint32_t>(s[pos] - '0');
    if (n == 0) return std::nullopt;
    for (; n < 9; ++n) nanos *= 10;
  }
  const std::string_view zone = s.substr(pos);
  if (!zone.empty() && zone != "Z" && zone != "+00:00") return std::nullopt;  // another zone is never guessed
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return std::nullopt;
  return FsTime{((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60 + se, nanos};
}

// A Windows path as the collector recorded it ("C:\Users\bob\x.json") split into its drive and the lookup key of
// its path on that drive ("/users/bob/x.json"); a Unix path ("/home/bob/x.json") is on the drive "/".
std::optional<std::pair<std::string, std::string>> drive_and_key(const std::string& recorded) {
  if (recorded.size() >= 3 && recorded[1] == ':' && (recorded[2] == '\\' || recorded[2] == '/')) {
    std::optional<std::string> drive = drive_letter(recorded.substr(0, 2));
    if (!drive) return std::nullopt;
    std::string key = recorded.substr(2);
    for (char& c : key) c = c == '\\' ? '/' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::pair{*drive, key};
  }
  if (!recorded.empty() && recorded[0] == '/') return std::pair{std::string("/"), recorded};
  return std::nullopt;
}

// One CSV record (RFC 4180 quoting) split into its fields.
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

using TimesByDrive = std::map<std::string, OriginalTimesByPath>;

// Each line of a file, without its line end (and a UTF-8 byte order mark at the start); false for a line too long.
template <typename F>
void for_each_line(const fs::path& file, std::vector<std::string>& warnings, F&& f) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > kMaxRecordLine) {
      warnings.push_back(file.filename().string() + ": line " + std::to_string(number) + " is too long; skipped");
      continue;
    }
    if (!f(line, number)) warnings.push_back(file.filename().string() + ": line " + std::to_string(number) +
                                             " is not a record of its kind; skipped");
  }
}

// KAPE's <timestamp>_CopyLog.csv: one line per file copied, its SourceFile's times (UTC) before the copy.
void read_kape_copy_log(const fs::path& file, TimesByDrive& times, std::vector<std::string>& warnings) {
  std::map<std::string, size_t> column;
  for_each_line(file, warnings, [&](const std::string& line, size_t number) {
    const std::vector<std::string> fields = csv_fields(line);
    if (number == 1) {
      for (size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      return column.count("SourceFile") > 0;
    }
    if (line.empty()) return true;
    auto field = [&](const char* name) -> std::string {
      auto it = column.find(name);
      return it != column.end() && it->second < fields.size() ? fields[it->second] : std::string();
    };
    const auto where = drive_and_key(field("SourceFile"));
    if (!where) return false;
    OriginalTimes t{parse_utc_time(field("ModifiedOnUtc")), parse_utc_time(field("LastAccessedOnUtc")), std::nullopt,
                    parse_utc_time(field("CreatedOnUtc"))};
    if (!t.mtime && !t.atime && !t.crtime) return false;
    times[where->first][where->second] = t;
    return true;
  });
}

// The Generic.Forensic.RooCode artifact's result rows (packaging/collectors/): one JSON object per line, OSPath and
// the file's Mtime, Atime, Ctime, Btime (RFC 3339, UTC).
void read_velociraptor_results(const fs::path& file, TimesByDrive& times, std::vector<std::string>& warnings) {
  for_each_line(file, warnings, [&](const std::string& line, size_t) {
    if (line.empty()) return true;
    rapidjson::Document row;
    row.Parse(line.data(), line.size());
    if (row.HasParseError() || !row.IsObject() || !row.HasMember("OSPath") || !row["OSPath"].IsString()) return false;
    const auto where = drive_and_key(row["OSPath"].GetString());
    if (!where) return false;
    auto time = [&](const char* name) -> std::optional<FsTime> {
      return row.HasMember(name) && row[name].IsString() ? parse_utc_time(row[name].GetString()) : std::nullopt;
    };
    OriginalTimes t{time("Mtime"), time("Atime"), time("Ctime"), time("Btime")};
    if (!t.mtime && !t.atime && !t.ctime && !t.crtime) return false;
    times[where->first][where->second] = t;
    return true;
  });
}

void attach_times(CollectionLayout& layout, TimesByDrive& times) {
  for (CollectedDrive& d : layout.drives) {
    auto it = times.find(d.drive);
    if (it != times.end()) d.times = std::make_shared<const OriginalTimesByPath>(std::move(it->second));
  }
}

bool is_home_folder(const std::string& name) {
  return iequals(name, "Users") || iequals(name, "home") || iequals(name, "root");
}

}  // namespace

std::string decode_collected_name(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%' && i + 2 < name.size()) {
      const int hi = hex_value(name[i + 1]), lo = hex_value(name[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += name[i];
  }
  return out;
}

CollectionLayout detect_collection_layout(const std::string& folder) {
  CollectionLayout layout;
  const fs::path top(folder);
  const std::vector<std::string> top_dirs = sorted_names(top, true);
  // A folder with a home at its top is a drive's root itself (a mounted image, or --dir given the drive folder).
  for (const std::string& d : top_dirs)
    if (is_home_folder(d)) return layout;

  TimesByDrive times;
  const fs::path uploads = top / "uploads";
  if (std::find(top_dirs.begin(), top_dirs.end(), "uploads") != top_dirs.end()) {
    // uploads/<accessor>/<drive>/…: "auto" first, then the others; a drive found under two accessors is read once.
    std::vector<std::string> accessors = sorted_names(uploads, true);
    std::stable_partition(accessors.begin(), accessors.end(), [](const std::string& a) { return a == "auto"; });
    for (const std::string& accessor : accessors) {
      const std::vector<std::string> entries = sorted_names(uploads / accessor, true);
      bool any_drive = false;
      for (const std::string& e : entries)
        if (std::optional<std::string> letter = drive_letter(decode_collected_name(e))) {
          any_drive = true;
          const bool seen = std::any_of(layout.drives.begin(), layout.drives.end(),
                                        [&](const CollectedDrive& d) { return d.drive == *letter; });
          if (!seen) layout.drives.push_back({*letter, (uploads / accessor / e).string(), nullptr});
        }
      const bool have_root = std::any_of(layout.drives.begin(), layout.drives.end(),
                                         [](const CollectedDrive& d) { return d.drive == "/"; });
      if (!any_drive && !entries.empty() && !have_root)  // a macOS or Linux collection: the accessor folder is "/"
        layout.drives.push_back({"/", (uploads / accessor).string(), nullptr});
    }
    if (!layout.drives.empty()) {
      layout.collector = "velociraptor";
      layout.encoded_names = true;
      const fs::path results = top / "results" / "Generic.Forensic.RooCode.json";
      std::error_code ec;
      if (fs::is_regular_file(results, ec)) {
        read_velociraptor_results(results, times, layout.warnings);
        layout.time_records.push_back(fs::relative(results, top).string());
      }
    }
  } else {
    for (const std::string& d : top_dirs)
      if (d.size() == 1 && std::isalpha(static_cast<unsigned char>(d[0])))
        layout.drives.push_back({drive_letter(d + ":").value(), (top / d).string(), nullptr});
    if (!layout.drives.empty()) {
      layout.collector = "kape";
      for (const std::string& f : sorted_names(top, false))
        if (f.size() > 12 && f.compare(f.size() - 12, 12, "_CopyLog.csv") == 0) {
          read_kape_copy_log(top / f, times, layout.warnings);
          layout.time_records.push_back(f);
        }
    }
  }
  std::sort(layout.drives.begin(), layout.drives.end(),
            [](const CollectedDrive& a, const CollectedDrive& b) { return a.drive < b.drive; });
  attach_times(layout, times);
  return layout;
}

}  // namespace roo
