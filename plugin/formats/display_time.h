// Row times (ISO 8601 UTC with milliseconds) shown in the examiner's time zone (--tz), for the display formats
// l2t.csv and rows.csv. rows.jsonl, roo.body, timeline.jsonl and roo.sqlite stay UTC; report.html gets the zone's
// name and lets the browser's Intl.DateTimeFormat show times in it, so it does not use this.
//
// g++ 12 has no std::chrono time zones: the conversion is Howard Hinnant's date library (Debian
// libhowardhinnant-date-dev, date/tz.h), built there to read the tz database's compiled files in /usr/share/zoneinfo.
// It reads their transitions only, not the POSIX TZ rule a TZif file ends with for the times after its last
// transition (eggert/tz tzfile.5, 2025b: Debian's files list transitions up to 2037), so that rule is read here
// (display_time.cpp says why not with the library's date/ptz.h). The process's own zone (TZ, which main.cpp pins to UTC for libtsk) is never touched, so
// a DisplayZone may be used on any thread. UTC needs no file and no look-up.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace roo {

// Where --tz names are looked up (the tzdata package).
inline constexpr const char* kZoneInfoDir = "/usr/share/zoneinfo";

// Whether name is an IANA zone this machine knows ("UTC" always is). On false, *error says what is wrong and what
// to give instead, naming the zone.
bool time_zone_exists(const std::string& name, std::string* error);

// "2026-03-01T02:22:45.639Z" (the row contract's time_utc; a year of four or more digits, maybe negative) as epoch
// milliseconds; none for anything else, and for a time outside JavaScript's Date range (is_js_time), which no row
// holds: so no format's arithmetic on it can overflow.
std::optional<int64_t> epoch_ms_from_row_time(std::string_view iso_utc);

// One instant as a wall clock in a zone shows it.
struct DisplayTime {
  int64_t year = 0;
  int month = 0, day = 0, hour = 0, minute = 0, second = 0, millisecond = 0;
  int utc_offset_seconds = 0;     // east of UTC is positive
  std::string zone_abbreviation;  // "CET", "EDT"

  std::string date_iso() const;     // 2026-03-01
  std::string date_mdy() const;     // 03/01/2026 (l2tcsv)
  std::string time_hms() const;     // 03:22:45
  std::string time_hms_ms() const;  // 03:22:45.639
  std::string utc_offset() const;   // UTC+01:00 (as Roo writes offsets; a bare "+01:00" or "-05:00" cell would
                                    // start with a sign a spreadsheet reads as a formula)
};

// The zone display formats show times in.
class DisplayZone {
 public:
  // Fails (nullptr, *error set) for a zone time_zone_exists refuses.
  static std::unique_ptr<DisplayZone> open(const std::string& name, std::string* error);
  ~DisplayZone();
  DisplayZone(const DisplayZone&) = delete;
  DisplayZone& operator=(const DisplayZone&) = delete;

  const std::string& name() const { return name_; }
  std::optional<DisplayTime> at(int64_t epoch_ms) const;
  // The row's time_utc in this zone; none when it is not the contract's form.
  std::optional<DisplayTime> at(std::string_view iso_utc) const;

 private:
  struct Rules;  // the zone's transitions and its rule after them; none for UTC
  DisplayZone(std::string name, std::unique_ptr<const Rules> rules);
  std::string name_;
  std::unique_ptr<const Rules> rules_;
};

}  // namespace roo
