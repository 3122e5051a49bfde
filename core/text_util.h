// Small text helpers shared by parsers and sinks.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/evidence.h"

namespace roo {

// JavaScript's Date range, ±8.64e15 ms from the epoch (ECMAScript TimeClip): Roo's times are Date values, so a
// number outside it is no time (docs/row-contract.md, time_source out_of_range), and every output format can hold
// the ones inside it (e.g. Timesketch's microseconds, ±8.64e18, fit an int64).
inline constexpr int64_t kMaxJsTimeMs = 8'640'000'000'000'000;
inline bool is_js_time(int64_t epoch_ms) { return epoch_ms >= -kMaxJsTimeMs && epoch_ms <= kMaxJsTimeMs; }

// ISO 8601 UTC with milliseconds ("2025-10-09T08:53:20.000Z") from epoch milliseconds.
std::string iso_from_ms(int64_t epoch_ms);
// ISO 8601 UTC from a file-system time; nanoseconds are kept when non-zero.
std::string iso_from_fs_time(const FsTime& t);
// A file-system time as epoch ms (sub-millisecond digits dropped); none for a time no calendar can hold.
std::optional<int64_t> ms_from_fs_time(const FsTime& t);
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil): integer arithmetic only,
// any year, no table, no time zone, so epoch milliseconds are exact.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d);
// The other way (Howard Hinnant's civil_from_days): the proleptic Gregorian date of a day since 1970-01-01.
struct CivilDate {
  int64_t year;
  int month, day;
};
CivilDate civil_from_days(int64_t days);
// "YYYY-MM-DDTHH:MM:SS[.fff]Z" (also "t", "z", "+00:00"), as JavaScript's toISOString writes it, to epoch ms.
// Four-digit years only; an impossible date or time (month 13, Feb 30, 24:00) and any other zone give none: a
// time is never guessed.
std::optional<int64_t> ms_from_iso_utc(std::string_view s);

// Replaces every invalid UTF-8 sequence by U+FFFD so every output is valid UTF-8 (paths and carved bytes may not be).
std::string utf8_sanitize(std::string_view in);
bool utf8_valid(std::string_view in);

bool iequals(std::string_view a, std::string_view b);
bool starts_with(std::string_view s, std::string_view prefix);
std::string_view trim(std::string_view s);

// The pieces joined in one allocation: a chain of + reallocates as the text grows, three or four times for a
// parser_error text, and bad input makes one such row per record (tests/fuzz/README.md).
std::string concat(std::initializer_list<std::string_view> pieces);

// Hex helpers.
std::string to_hex(const unsigned char* bytes, size_t n);

// The first byte at or after p that ends a plain run of a JSON string: '"', '\\' or a control byte (below 0x20),
// or end. What JSON must escape when writing, and what a reader must stop at; 16 bytes per step (SSE2). The one
// string scanner: the row writer, the framing of JSON array records and the carver all use it.
const char* json_string_stop(const char* p, const char* end);

}  // namespace roo
