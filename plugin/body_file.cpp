#include "plugin/body_file.h"

#include <rapidjson/document.h>

#include <cstdio>
#include <ctime>

namespace roo {

namespace {

// Epoch seconds from the row's "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::optional<int64_t> seconds_from_iso(const char* s) {
  int y, mo, d, h, mi, sec;
  if (std::sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<int64_t>(timegm(&tm));
}

std::string str(const rapidjson::Value& o, const char* key) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

// Cuts at a UTF-8 character boundary.
std::string shorten(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

}  // namespace

std::string body_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '|' || c == '%') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::optional<std::string> body_line_for_row(const rapidjson::Value& row) {
  if (!row.IsObject()) return std::nullopt;
  std::string time = str(row, "time_utc");
  if (time.empty()) return std::nullopt;
  auto secs = seconds_from_iso(time.c_str());
  if (!secs || *secs <= 0) return std::nullopt;

  std::string kind = str(row, "kind");
  std::string summary = str(row, "text");
  if (summary.empty()) summary = str(row, "tool_name");
  std::string name = "roo-code " + kind;
  std::string session = str(row, "session_id");
  if (!session.empty()) name += " [" + session + "]";
  if (!summary.empty()) name += ": " + shorten(summary, 160);

  std::string inode = "0";
  std::string path;
  auto src = row.FindMember("source");
  if (src != row.MemberEnd() && src->value.IsObject()) {
    path = str(src->value, "path");
    auto ino = src->value.FindMember("inode");
    if (ino != src->value.MemberEnd() && ino->value.IsUint64()) inode = std::to_string(ino->value.GetUint64());
  }
  if (!path.empty()) name += " (" + path + ")";

  // MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime
  const std::string t = std::to_string(*secs);
  return "0|" + body_escape(name) + "|" + inode + "|-/----------|0|0|0|" + t + "|" + t + "|" + t + "|" + t + "\n";
}

}  // namespace roo
