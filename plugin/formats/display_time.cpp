#include "plugin/formats/display_time.h"

#include <date/tz.h>
#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

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

// The zone in the time-zone library's tz database (the files of kZoneInfoDir, without posix/ and right/), its
// transitions read; nullptr when it has no such zone or cannot read its file.
const date::time_zone* library_zone(const std::string& name) {
  try {
    const date::time_zone* zone = date::locate_zone(name);
    zone->get_info(date::sys_seconds{});  // the file is read on first use
    return zone;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The POSIX TZ string a TZif file of version 2 or later ends with, between its last two newlines (eggert/tz tzfile.5,
// 2025b: "\n<TZ string>\n", the string itself holds no newline); empty when the file has none.
std::string tzif_footer(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 6 || bytes.compare(0, 4, "TZif") != 0 || bytes[4] < '2' || bytes.back() != '\n') return "";
  const size_t open = bytes.rfind('\n', bytes.size() - 2);
  if (open == std::string::npos) return "";
  return bytes.substr(open + 1, bytes.size() - open - 2);
}

// The POSIX TZ string of a TZif footer (eggert/tz tzfile.5, 2025b), e.g. "CET-1CEST,M3.5.0,M10.5.0/3": the zone's
// offsets and abbreviations and, when it has summer time, the yearly rules of its start and end. Read here rather
// than with date/ptz.h, which Debian's version 3.0.1 of the library cannot compile as C++20 (its hh_mm_ss clashes
// with std::chrono's) and which refuses the negative rule times tzfile.5 allows (America/Nuuk's
// "<-02>2<-01>,M3.5.0/-1,M10.5.0/0": 23:00 on the Saturday before the last Sunday).
class PosixRule {
 public:
  static std::optional<PosixRule> parse(std::string_view s) {
    PosixRule r;
    size_t pos = 0;
    int64_t west = 0;
    if (!name(s, &pos, &r.std_abbreviation_) || !clock(s, &pos, 24, &west)) return std::nullopt;
    r.std_offset_ = -west;  // POSIX counts hours west of Greenwich
    if (pos == s.size()) return r;
    if (!name(s, &pos, &r.dst_abbreviation_)) return std::nullopt;
    r.dst_offset_ = r.std_offset_ + 3600;
    if (pos < s.size() && s[pos] != ',') {
      if (!clock(s, &pos, 24, &west)) return std::nullopt;
      r.dst_offset_ = -west;
    }
    // A zone with summer time gives its rules (a footer has them; POSIX leaves the default to the system).
    if (!expect(s, &pos, ',') || !when(s, &pos, &r.start_) || !expect(s, &pos, ',') || !when(s, &pos, &r.end_) ||
        pos != s.size())
      return std::nullopt;
    r.has_dst_ = true;
    return r;
  }

  // The offset east of UTC and abbreviation in force at secs.
  std::pair<int64_t, const std::string*> at(int64_t secs) const {
    if (!has_dst_) return {std_offset_, &std_abbreviation_};
    int64_t days = (secs + std_offset_) / 86400;
    if ((secs + std_offset_) % 86400 < 0) --days;
    const int64_t year = civil_from_days(days).year;
    // The last change at or before secs, among those of the years around it (a rule time may reach 167 hours
    // past its day); at equal instants summer time wins, so "0/0,J365/25" is summer time all year.
    int64_t latest = INT64_MIN;
    bool dst = false;
    for (int64_t y = year - 2; y <= year + 1; ++y) {
      const int64_t start = start_.day(y) * 86400 + start_.time - std_offset_;
      const int64_t end = end_.day(y) * 86400 + end_.time - dst_offset_;
      if (end <= secs && end > latest) latest = end, dst = false;
      if (start <= secs && start >= latest) latest = start, dst = true;
    }
    return dst ? std::pair{dst_offset_, &dst_abbreviation_} : std::pair{std_offset_, &std_abbreviation_};
  }

 private:
  struct When {
    char form = 'M';  // 'J': Julian day 1-365 (no 29 February); 'N': zero-based day 0-365; 'M': month.week.weekday
    int64_t month = 0, week = 0, weekday = 0, n = 0;
    int64_t time = 7200;  // local time of day, -167 to 167 hours; 02:00 when not given

    int64_t day(int64_t year) const {  // days since 1970-01-01
      const int64_t jan1 = days_from_civil(year, 1, 1);
      if (form == 'J') return jan1 + n - 1 + (n >= 60 && is_leap(year));
      if (form == 'N') return jan1 + n;
      const int64_t first = days_from_civil(year, month, 1);
      const int64_t first_weekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday; Sunday is 0
      int64_t d = first + (weekday - first_weekday + 7) % 7 + (week - 1) * 7;
      if (d >= first + days_in_month(year, static_cast<int>(month))) d -= 7;  // week 5: the last one
      return d;
    }
  };

  static bool name(std::string_view s, size_t* pos, std::string* out) {
    size_t begin = *pos, end;
    if (begin < s.size() && s[begin] == '<') {
      end = s.find('>', begin);
      if (end == std::string_view::npos) return false;
      *out = std::string(s.substr(begin + 1, end - begin - 1));
      *pos = end + 1;
    } else {
      for (end = begin; end < s.size() && std::isalpha(static_cast<unsigned char>(s[end]));) ++end;
      *out = std::string(s.substr(begin, end - begin));
      *pos = end;
    }
    return out->size() >= 3;
  }

  // One to three digits, from low to high.
  static bool number(std::string_view s, size_t* pos, int64_t low, int64_t high, int64_t* out) {
    size_t n = 0;
    while (*pos + n < s.size() && n < 3 && std::isdigit(static_cast<unsigned char>(s[*pos + n]))) ++n;
    return n > 0 && digits(s, pos, n, out) && *out >= low && *out <= high;
  }

  // "[+-]h[h[h]][:mm[:ss]]" in seconds, hours up to max_hours.
  static bool clock(std::string_view s, size_t* pos, int64_t max_hours, int64_t* out) {
    const bool negative = *pos < s.size() && s[*pos] == '-';
    if (*pos < s.size() && (s[*pos] == '-' || s[*pos] == '+')) ++*pos;
    int64_t hours = 0, minutes = 0, seconds = 0;
    if (!number(s, pos, 0, max_hours, &hours)) return false;
    if (*pos < s.size() && s[*pos] == ':' && !(expect(s, pos, ':') && digits(s, pos, 2, &minutes))) return false;
    if (*pos < s.size() && s[*pos] == ':' && !(expect(s, pos, ':') && digits(s, pos, 2, &seconds))) return false;
    if (minutes > 59 || seconds > 59) return false;
    *out = (negative ? -1 : 1) * (hours * 3600 + minutes * 60 + seconds);
    return true;
  }

  static bool when(std::string_view s, size_t* pos, When* w) {
    if (*pos < s.size() && s[*pos] == 'J') {
      ++*pos;
      w->form = 'J';
      if (!number(s, pos, 1, 365, &w->n)) return false;
    } else if (*pos < s.size() && s[*pos] == 'M') {
      ++*pos;
      w->form = 'M';
      if (!number(s, pos, 1, 12, &w->month) || !expect(s, pos, '.') || !number(s, pos, 1, 5, &w->week) ||
          !expect(s, pos, '.') || !number(s, pos, 0, 6, &w->weekday))
        return false;
    } else {
      w->form = 'N';
      if (!number(s, pos, 0, 365, &w->n)) return false;
    }
    return *pos >= s.size() || s[*pos] != '/' || (expect(s, pos, '/') && clock(s, pos, 167, &w->time));
  }

  std::string std_abbreviation_, dst_abbreviation_;
  int64_t std_offset_ = 0, dst_offset_ = 0;  // seconds east of UTC
  bool has_dst_ = false;
  When start_, end_;
};

}  // namespace

struct DisplayZone::Rules {
  const date::time_zone* transitions = nullptr;  // the TZif file's, as the library reads them
  std::optional<PosixRule> after_last;           // its footer's rule; none when it has none or it cannot be read

  std::pair<int64_t, std::string> at(int64_t secs) const {
    const date::sys_info info = transitions->get_info(date::sys_seconds{std::chrono::seconds{secs}});
    // The library's last period runs to the end of its calendar: from its start on, the footer's rule holds.
    if (after_last && info.end >= date::sys_days{date::year::max() / date::January / 1}) {
      const auto [offset, abbreviation] = after_last->at(secs);
      return {offset, *abbreviation};
    }
    return {info.offset.count(), info.abbrev};
  }
};

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
  if (!library_zone(name)) return refuse("not a zone of the tz database (posix/ and right/ are not)");
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
  if (name == "UTC") return std::unique_ptr<DisplayZone>(new DisplayZone(name, nullptr));
  auto rules = std::make_unique<Rules>();
  rules->transitions = library_zone(name);
  if (!rules->transitions) {  // time_zone_exists found it a moment ago
    *error = "--tz " + name + ": the time zone library cannot read it";
    return nullptr;
  }
  // A footer this code cannot read leaves the times after the file's last transition at its last offset, as the
  // library alone gives them (tests/plugin/formats_test.cpp checks every zone of the installed tzdata against glibc).
  rules->after_last = PosixRule::parse(tzif_footer(std::string(kZoneInfoDir) + "/" + name));
  return std::unique_ptr<DisplayZone>(new DisplayZone(name, std::move(rules)));
}

DisplayZone::DisplayZone(std::string name, std::unique_ptr<const Rules> rules)
    : name_(std::move(name)), rules_(std::move(rules)) {}

DisplayZone::~DisplayZone() = default;

std::optional<DisplayTime> DisplayZone::at(int64_t epoch_ms) const {
  // Floor division: 1969-12-31T23:59:59.500Z is second -1, millisecond 500.
  int64_t secs = epoch_ms / 1000, ms = epoch_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    --secs;
  }
  DisplayTime d;
  d.zone_abbreviation = "UTC";
  if (rules_) {
    auto [offset, abbreviation] = rules_->at(secs);
    d.utc_offset_seconds = static_cast<int>(offset);
    d.zone_abbreviation = std::move(abbreviation);
  }
  const int64_t local = secs + d.utc_offset_seconds;
  int64_t days = local / 86400, rest = local % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  const CivilDate date = civil_from_days(days);
  d.year = date.year;
  d.month = date.month;
  d.day = date.day;
  d.hour = static_cast<int>(rest / 3600);
  d.minute = static_cast<int>(rest / 60 % 60);
  d.second = static_cast<int>(rest % 60);
  d.millisecond = static_cast<int>(ms);
  return d;
}

std::optional<DisplayTime> DisplayZone::at(std::string_view iso_utc) const {
  const auto ms = epoch_ms_from_row_time(iso_utc);
  if (!ms) return std::nullopt;
  return at(*ms);
}

}  // namespace roo
