// Row times (ISO 8601 UTC with milliseconds) shown in the examiner's time zone (--tz), for the display formats
// l2t.csv and rows.csv. rows.jsonl, roo.body, timeline.jsonl and roo.sqlite stay UTC; report.html formats times in
// the browser and does not use this.
//
// g++ 12 has no std::chrono time zones, so the conversion is the C library's: TZ set to the zone's file and
// localtime_r. That changes the process's zone, which main.cpp pins to UTC for libtsk (FAT times); so a DisplayZone
// exists only in the parent, single-threaded, after the workers have finished, and puts the previous TZ back when it
// goes away.
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

// The zone display formats show times in. While it exists the process's TZ is that zone.
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
  explicit DisplayZone(std::string name);
  std::string name_;
  std::optional<std::string> previous_tz_;
};

}  // namespace roo
