#include "plugin/formats/display_time.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include "core/text_util.h"

namespace roo {

namespace {

bool is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int64_t y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

// Reads exactly n digits at s[*pos].
bool digits(std::string_view s, size_t* pos, size_t n, int64_t* out) {
  if (*pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

std::string two(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

std::string year_text(int64_t y) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%04lld", static_cast<long long>(y));
  return buf;
}

}  // namespace

bool time_zone_exists(const std::string& name, std::string* error) {
  if (name == "UTC") return true;  // glibc knows it without tzdata
  auto refuse = [&](const std::string& why) {
    *error = "--tz " + name + ": " + why +
             "; give an IANA time zone name such as Europe/Berlin, America/New_York or UTC "
             "(`timedatectl list-timezones` lists them)";
    return false;
  };
  if (name.empty()) return refuse("empty time zone name");
  // A name, not a path: nothing outside the zone directory may be read as a zone.
  if (name.front() == '/' || name.find("..") != std::string::npos || name.find("//") != std::string::npos)
    return refuse("not a time zone name");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/_+-.", c)))
      return refuse("not a time zone name");
  const std::string path = std::string(kZoneInfoDir) + "/" + name;
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return refuse(std::string("no such time zone in ") + kZoneInfoDir);
  // glibc falls back to UTC, silently, for a file it cannot read as a zone: only a TZif file is a zone.
  char magic[4] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(magic, 4) || std::memcmp(magic, "TZif", 4) != 0) return refuse(path + " is not a time zone file");
  return true;
}

std::optional<int64_t> epoch_ms_from_row_time(std::string_view s) {
  size_t pos = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++pos;
  size_t year_digits = 0;
  while (pos + year_digits < s.size() && s[pos + year_digits] >= '0' && s[pos + year_digits] <= '9') ++year_digits;
  if (year_digits < 4 || year_digits > 6) return std::nullopt;  // JavaScript dates end at year 275760
  int64_t year, month, day, hour, minute, second, ms;
  if (!digits(s, &pos, year_digits, &year) || !expect(s, &pos, '-') || !digits(s, &pos, 2, &month) ||
      !expect(s, &pos, '-') || !digits(s, &pos, 2, &day) || !expect(s, &pos, 'T') || !digits(s, &pos, 2, &hour) ||
      !expect(s, &pos, ':') || !digits(s, &pos, 2, &minute) || !expect(s, &pos, ':') || !digits(s, &pos, 2, &second) ||
      !expect(s, &pos, '.') || !digits(s, &pos, 3, &ms) || !expect(s, &pos, 'Z') || pos != s.size())
    return std::nullopt;
  if (negative) year = -year;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, static_cast<int>(month)) || hour > 23 ||
      minute > 59 || second > 59)
    return std::nullopt;
  const int64_t days = days_from_civil(year, month, day);
  const int64_t epoch_ms = ((days * 24 + hour) * 60 + minute) * 60000 + second * 1000 + ms;
  if (!is_js_time(epoch_ms)) return std::nullopt;  // past 275760-09-13 (or before -271821-04-20) no row has a time
  return epoch_ms;
}

std::string DisplayTime::date_iso() const {
  return year_text(year) + "-" + two(month) + "-" + two(day);
}
std::string DisplayTime::date_mdy() const {
  return two(month) + "/" + two(day) + "/" + year_text(year);
}
std::string DisplayTime::time_hms() const {
  return two(hour) + ":" + two(minute) + ":" + two(second);
}
std::string DisplayTime::time_hms_ms() const {
  char ms[8];
  std::snprintf(ms, sizeof ms, ".%03d", millisecond);
  return time_hms() + ms;
}
std::string DisplayTime::utc_offset() const {
  const int abs = utc_offset_seconds < 0 ? -utc_offset_seconds : utc_offset_seconds;
  const char sign = utc_offset_seconds < 0 ? '-' : '+';
  char buf[24];
  if (abs % 60)  // local mean time of old dates: keep the seconds rather than round them away
    std::snprintf(buf, sizeof buf, "UTC%c%02d:%02d:%02d", sign, abs / 3600, abs / 60 % 60, abs % 60);
  else
    std::snprintf(buf, sizeof buf, "UTC%c%02d:%02d", sign, abs / 3600, abs / 60 % 60);
  return buf;
}

std::unique_ptr<DisplayZone> DisplayZone::open(const std::string& name, std::string* error) {
  if (!time_zone_exists(name, error)) return nullptr;
  return std::unique_ptr<DisplayZone>(new DisplayZone(name));
}

DisplayZone::DisplayZone(std::string name) : name_(std::move(name)) {
  if (const char* tz = std::getenv("TZ")) previous_tz_ = tz;
  // The zone's file by its full path (":" = a file, as glibc reads TZ), so TZDIR cannot point elsewhere.
  const std::string tz = name_ == "UTC" ? "UTC" : ":" + std::string(kZoneInfoDir) + "/" + name_;
  setenv("TZ", tz.c_str(), 1);
  tzset();
}

DisplayZone::~DisplayZone() {
  if (previous_tz_)
    setenv("TZ", previous_tz_->c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

std::optional<DisplayTime> DisplayZone::at(int64_t epoch_ms) const {
  // Floor division: 1969-12-31T23:59:59.500Z is second -1, millisecond 500.
  int64_t secs = epoch_ms / 1000, ms = epoch_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    --secs;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (!localtime_r(&t, &tm)) return std::nullopt;
  DisplayTime d;
  d.year = static_cast<int64_t>(tm.tm_year) + 1900;
  d.month = tm.tm_mon + 1;
  d.day = tm.tm_mday;
  d.hour = tm.tm_hour;
  d.minute = tm.tm_min;
  d.second = tm.tm_sec;
  d.millisecond = static_cast<int>(ms);
  d.utc_offset_seconds = static_cast<int>(tm.tm_gmtoff);
  d.zone_abbreviation = tm.tm_zone ? tm.tm_zone : "";
  return d;
}

std::optional<DisplayTime> DisplayZone::at(std::string_view iso_utc) const {
  const auto ms = epoch_ms_from_row_time(iso_utc);
  if (!ms) return std::nullopt;
  return at(*ms);
}

}  // namespace roo
