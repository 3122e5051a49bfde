#include "core/text_util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace roo {

namespace {
// Writes value as exactly `width` decimal digits (value must fit). Times are formatted for every row and most of its
// provenance: digit by digit is several times cheaper than snprintf.
char* put_digits(char* p, unsigned value, int width) {
  for (int i = width - 1; i >= 0; --i, value /= 10) p[i] = static_cast<char>('0' + value % 10);
  return p + width;
}

// The UTC calendar fields of secs for years 0000–9999, by arithmetic (civil_from_days, proleptic Gregorian as
// gmtime_r). Every row's time goes through here, and glibc's gmtime_r takes the time zone lock on each
// call, which the worker threads then contend for.
bool utc_fields(int64_t secs, std::tm& tm) {
  constexpr int64_t kYear0 = -62167219200, kYear10000 = 253402300800;  // 0000-01-01, 10000-01-01
  if (secs < kYear0 || secs >= kYear10000) return false;
  int64_t days = secs / 86400, rest = secs % 86400;
  if (rest < 0) rest += 86400, --days;
  const CivilDate date = civil_from_days(days);
  tm.tm_year = static_cast<int>(date.year - 1900);
  tm.tm_mon = date.month - 1;
  tm.tm_mday = date.day;
  tm.tm_hour = static_cast<int>(rest / 3600);
  tm.tm_min = static_cast<int>(rest / 60 % 60);
  tm.tm_sec = static_cast<int>(rest % 60);
  return true;
}

std::string iso_seconds(int64_t secs) {
  std::tm tm{};
  if (!utc_fields(secs, tm)) {
    std::time_t t = static_cast<std::time_t>(secs);
    gmtime_r(&t, &tm);
  }
  const int year = tm.tm_year + 1900;
  char buf[40];
  if (year < 0 || year > 9999) {  // hostile or broken times: keep the general form
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", year, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec);
    return buf;
  }
  char* p = put_digits(buf, static_cast<unsigned>(year), 4);
  *p++ = '-';
  p = put_digits(p, static_cast<unsigned>(tm.tm_mon + 1), 2);
  *p++ = '-';
  p = put_digits(p, static_cast<unsigned>(tm.tm_mday), 2);
  *p++ = 'T';
  p = put_digits(p, static_cast<unsigned>(tm.tm_hour), 2);
  *p++ = ':';
  p = put_digits(p, static_cast<unsigned>(tm.tm_min), 2);
  *p++ = ':';
  p = put_digits(p, static_cast<unsigned>(tm.tm_sec), 2);
  return std::string(buf, p);
}
}  // namespace

std::string iso_from_ms(int64_t epoch_ms) {
  int64_t secs = epoch_ms / 1000;
  int64_t ms = epoch_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  char frac[8] = {'.'};
  put_digits(frac + 1, static_cast<unsigned>(ms), 3);
  return iso_seconds(secs).append(frac, 4).append(1, 'Z');
}

std::string iso_from_fs_time(const FsTime& t) {
  std::string s = iso_seconds(t.seconds);
  if (t.nanos != 0) {
    char frac[16] = {'.'};
    s.append(frac, put_digits(frac + 1, t.nanos % 1000000000u, 9));
  }
  return s + "Z";
}

namespace {
// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid.
size_t utf8_seq_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}
}  // namespace

bool utf8_valid(std::string_view in) {
  const size_t size = in.size();
  size_t i = 0;
  while (i < size) {
    // Most of what Roo writes is ASCII: test eight bytes at a time for a high bit before decoding.
    while (i + 8 <= size) {
      uint64_t word;
      std::memcpy(&word, in.data() + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= size) break;
    if (static_cast<unsigned char>(in[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t n = utf8_seq_len(in, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_sanitize(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  size_t run = 0;  // where the valid bytes not yet copied start
  for (size_t i = 0; i < in.size();) {
    uint64_t word;  // eight ASCII bytes at a time, as utf8_valid reads them
    if (i + 8 <= in.size() && (std::memcpy(&word, in.data() + i, 8), !(word & 0x8080808080808080ull))) {
      i += 8;
      continue;
    }
    if (static_cast<unsigned char>(in[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_seq_len(in, i);
    if (n) {
      i += n;
      continue;
    }
    out.append(in.substr(run, i - run)).append("\xEF\xBF\xBD");
    run = ++i;
  }
  return out.append(in.substr(run));
}

std::string concat(std::initializer_list<std::string_view> pieces) {
  size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  std::string out;
  out.reserve(size);
  for (std::string_view p : pieces) out.append(p);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // std::tolower of the "C" locale (the program never sets another): A-Z to a-z, every other byte as it is.
  auto fold = [](unsigned char c) { return static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c | 0x20 : c); };
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && fold(static_cast<unsigned char>(a[i])) != fold(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string to_hex(const unsigned char* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0xF];
  }
  return out;
}

std::optional<int64_t> ms_from_fs_time(const FsTime& t) {
  constexpr int64_t kMaxSeconds = 9'000'000'000'000;  // keeps seconds * 1000 far from overflow
  if (t.seconds > kMaxSeconds || t.seconds < -kMaxSeconds) return std::nullopt;
  return t.seconds * 1000 + static_cast<int64_t>(t.nanos / 1'000'000);
}

int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate civil_from_days(int64_t days) {
  days += 719468;  // days from 0000-03-01
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), static_cast<int>(month), static_cast<int>(doy - (153 * mp + 2) / 5 + 1)};
}

namespace {

bool fixed_digits(std::string_view s, size_t pos, size_t n, int64_t& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<int64_t> ms_from_iso_utc(std::string_view s) {
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!fixed_digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !fixed_digits(s, 5, 2, mo) || s[7] != '-' ||
      !fixed_digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !fixed_digits(s, 11, 2, h) || s[13] != ':' ||
      !fixed_digits(s, 14, 2, mi) || s[16] != ':' || !fixed_digits(s, 17, 2, se))
    return std::nullopt;
  size_t pos = 19;
  int64_t ms = 0;
  if (s[pos] == '.') {
    ++pos;
    size_t n = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++n)
      if (n < 3) ms = ms * 10 + (s[pos] - '0');  // sub-millisecond digits are dropped
    if (n == 0) return std::nullopt;
    for (; n < 3; ++n) ms *= 10;
  }
  const std::string_view zone = s.substr(pos);
  if (zone != "Z" && zone != "z" && zone != "+00:00") return std::nullopt;
  static constexpr int64_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  const int64_t month_days = mo >= 1 && mo <= 12 ? kDays[mo - 1] + (mo == 2 && leap) : 0;
  if (month_days == 0 || d < 1 || d > month_days || h > 23 || mi > 59 || se > 59) return std::nullopt;
  return ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 + se * 1000 + ms;
}

const char* json_string_stop(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), top_control = _mm_set1_epi8(0x1F);
  for (; end - p >= 16; p += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(b, top_control), top_control);  // b <= 0x1F, unsigned
    const int hits = _mm_movemask_epi8(
        _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(b, quote), _mm_cmpeq_epi8(b, backslash))));
    if (hits) return p + __builtin_ctz(static_cast<unsigned>(hits));
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == '"' || c == '\\') return p;
  }
  return end;
}

}  // namespace roo
