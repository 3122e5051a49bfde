// The formats' own JSON and CSV text against what they replace, on generated inputs: append_json_string and
// append_json against RapidJSON's Writer itself (and html_script_safe_json of its text), find_special_byte against a
// byte-by-byte scan, append_rows_csv_record against csv_record(rows_csv_fields(row)), one_line_shortened against
// the plain definition (one_line, then shorten). The strings are weighted towards what needs care: control bytes,
// quotes, backslashes, '<' '>' '&', 0x7F, invalid UTF-8, U+2028, UTF-8-encoded surrogates, NUL, runs of white space,
// at every position around the scanners' 16-byte steps.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <stdlib.h>

#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "plugin/formats/byte_scan.h"
#include "plugin/formats/csv.h"
#include "plugin/formats/display_time.h"
#include "plugin/formats/html_report.h"
#include "plugin/formats/json_text.h"
#include "plugin/formats/row_fields.h"

namespace roo {
namespace {

std::string writer_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string writer_string(const std::string& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

// Random strings of pieces: plain ASCII runs, special bytes, multi-byte and broken UTF-8.
class Strings {
 public:
  explicit Strings(uint32_t seed) : rng_(seed) {}
  std::string next(size_t max_pieces = 40) {
    static const std::vector<std::string> pieces = {
        "a", "plain text ", "0123456789abcdef", "\"", "\\", "/", "<", ">", "&", "<script>", "'", ",", ";", "=",
        "+", "-", "@", " ", "  ", "\t", "\n", "\r", "\r\n", "\b", "\f", std::string(1, '\0'), "\x01", "\x1A", "\x1F",
        "\x7F", "\x80", "\xBF", "\xC3\xA9", "\xC3", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xED\xA0\x80", "\xED\xBF\xBF",
        "\xF0\x9F\x98\x80", "\xF4\x90\x80\x80", "\xFF", "\xFE", "\xEF\xBB\xBF", "\xE2\x80\xA6"};
    std::uniform_int_distribution<size_t> count(0, max_pieces), pick(0, pieces.size() - 1), byte(0, 255);
    std::string s;
    const size_t n = count(rng_);
    for (size_t i = 0; i < n; ++i) {
      if (rng_() % 8 == 0)
        s += static_cast<char>(byte(rng_));  // any byte at all
      else
        s += pieces[pick(rng_)];
    }
    return s;
  }
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

TEST(JsonText, EveryByteAndPairAsRapidJsonWrites) {
  for (int a = 0; a < 256; ++a) {
    const std::string one(1, static_cast<char>(a));
    std::string got;
    append_json_string(got, one);
    ASSERT_EQ(got, writer_string(one)) << a;
    for (int b = 0; b < 256; ++b) {
      const std::string two = one + static_cast<char>(b);
      got.clear();
      append_json_string(got, two);
      ASSERT_EQ(got, writer_string(two)) << a << " " << b;
      got.clear();
      append_json_string(got, two, JsonEscape::ScriptSafe);
      ASSERT_EQ(got, html_script_safe_json(writer_string(two))) << a << " " << b;
    }
  }
}

TEST(JsonText, GeneratedStringsAsRapidJsonWrites) {
  Strings gen(20261202);
  for (int i = 0; i < 20000; ++i) {
    // A prefix of 0..31 plain bytes puts each special byte at every offset of a 16-byte step.
    const std::string s = std::string(static_cast<size_t>(i % 32), 'x') + gen.next();
    std::string got = "kept:";
    append_json_string(got, s);
    ASSERT_EQ(got, "kept:" + writer_string(s)) << i;
    got.clear();
    append_json_string(got, s, JsonEscape::ScriptSafe);
    ASSERT_EQ(got, html_script_safe_json(writer_string(s))) << i;
  }
}

// A random value: objects and arrays nested a few levels, numbers of every kind RapidJSON keeps apart.
rapidjson::Value random_value(Strings& gen, rapidjson::Document::AllocatorType& a, int depth) {
  std::mt19937& rng = gen.rng();
  static const double kDoubles[] = {0.0, -0.0, 0.1, 1.5, -2.25, 1e300, -1e-300, 5.0, 1e21, 123456789.125, 4.9e-324};
  static const int64_t kInts[] = {0, 1, -1, 2147483647, 2147483648LL, -2147483648LL, -2147483649LL,
                                  INT64_MAX, INT64_MIN, 4294967295LL, 4294967296LL};
  switch (rng() % (depth > 3 ? 6 : 8)) {
    case 0: return rapidjson::Value();
    case 1: return rapidjson::Value(rng() % 2 == 0);
    case 2: return rapidjson::Value(kDoubles[rng() % std::size(kDoubles)]);
    case 3: return rapidjson::Value(kInts[rng() % std::size(kInts)]);
    case 4: return rapidjson::Value(static_cast<uint64_t>(UINT64_MAX - rng() % 3));
    case 5: {
      const std::string s = gen.next(10);
      return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
    }
    case 6: {
      rapidjson::Value arr(rapidjson::kArrayType);
      for (uint32_t n = rng() % 5; n > 0; --n) arr.PushBack(random_value(gen, a, depth + 1), a);
      return arr;
    }
    default: {
      rapidjson::Value obj(rapidjson::kObjectType);
      for (uint32_t n = rng() % 5; n > 0; --n) {
        const std::string k = gen.next(3);
        obj.AddMember(rapidjson::Value(k.data(), static_cast<rapidjson::SizeType>(k.size()), a),
                      random_value(gen, a, depth + 1), a);
      }
      return obj;
    }
  }
}

TEST(JsonText, GeneratedValuesAsRapidJsonWrites) {
  Strings gen(7);
  for (int i = 0; i < 5000; ++i) {
    rapidjson::Document d;
    rapidjson::Value v = random_value(gen, d.GetAllocator(), 0);
    std::string got;
    append_json(got, v);
    ASSERT_EQ(got, writer_json(v)) << i;
    got.clear();
    append_json(got, v, JsonEscape::ScriptSafe);
    ASSERT_EQ(got, html_script_safe_json(writer_json(v))) << i;
  }
}

TEST(ByteScan, FindsWhatAByteByByteScanFinds) {
  Strings gen(99);
  for (int i = 0; i < 20000; ++i) {
    const std::string s = std::string(static_cast<size_t>(i % 40), 'y') + gen.next();
    const char* const b = s.data();
    const char* const e = b + s.size();
    auto naive = [&](auto is_special) {
      const char* p = b;
      while (p < e && !is_special(static_cast<unsigned char>(*p))) ++p;
      return p;
    };
    ASSERT_EQ((find_special_byte<1, '"', ',', '\r', '\n'>(b, e)),
              naive([](unsigned char c) { return c == 0 || c == '"' || c == ',' || c == '\r' || c == '\n'; }));
    ASSERT_EQ((find_special_byte<0, '"', ','>(b, e)), naive([](unsigned char c) { return c == '"' || c == ','; }));
    ASSERT_EQ((find_special_byte<0x20, '"', '\\', '<', '>', '&'>(b, e)),
              naive([](unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'; }));
    ASSERT_EQ((find_special_byte<0x80>(b, e)), naive([](unsigned char c) { return c < 0x80; }));
  }
}

// one_line_shortened by its definition: control bytes and spaces as one space, trimmed, then shortened at a UTF-8
// boundary with "…".
std::string plain_one_line_shortened(const std::string& s, size_t max_bytes) {
  std::string line;
  for (unsigned char c : s) {
    if (c <= 0x20 || c == 0x7F) {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += static_cast<char>(c);
    }
  }
  if (!line.empty() && line.back() == ' ') line.pop_back();
  if (line.size() <= max_bytes) return line;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "…";
}

TEST(RowFields, OneLineShortenedAsDefined) {
  Strings gen(3);
  for (int i = 0; i < 20000; ++i) {
    const std::string s = gen.next();
    const size_t max = static_cast<size_t>(i % 70);
    ASSERT_EQ(one_line_shortened(s, max), plain_one_line_shortened(s, max)) << i;
    ASSERT_EQ(one_line(s), plain_one_line_shortened(s, s.size() + 1)) << i;
    std::string appended = "head ";
    append_one_line_shortened(appended, s, max);
    ASSERT_EQ(appended, "head " + plain_one_line_shortened(s, max)) << i;
  }
}

TEST(RowsCsv, RecordAsCsvRecordOfItsFields) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::string error;
  auto zone = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(zone) << error;
  Strings gen(11);
  // Known columns (common, kind-specific, source, native), unknown ones, duplicates, odd sources.
  static const char* const kNames[] = {"schema", "row_id", "kind", "time_utc", "text", "user", "tool_name",
                                       "command", "exit_code", "native", "hunks", "source", "source.path",
                                       "not_a_column", "zzz_new_field", "text"};
  static const char* const kSourceNames[] = {"evidence", "path", "inode", "record_index", "sha256", "unknown_key",
                                             "path"};
  static const char* const kTimes[] = {"2026-03-01T02:22:45.639Z", "1999-12-31T23:59:59.999Z", "not a time", ""};
  for (int i = 0; i < 3000; ++i) {
    rapidjson::Document row(rapidjson::kObjectType);
    auto& a = row.GetAllocator();
    std::mt19937& rng = gen.rng();
    for (uint32_t n = rng() % 12; n > 0; --n) {
      const std::string name = kNames[rng() % std::size(kNames)];
      rapidjson::Value value;
      if (name == "time_utc" && rng() % 4 != 0) {
        value.SetString(kTimes[rng() % std::size(kTimes)], a);
      } else if (name == "source" && rng() % 5 != 0) {
        value.SetObject();
        for (uint32_t k = rng() % 6; k > 0; --k)
          value.AddMember(rapidjson::StringRef(kSourceNames[rng() % std::size(kSourceNames)]),
                          random_value(gen, a, 2), a);
      } else {
        value = random_value(gen, a, 1);
      }
      row.AddMember(rapidjson::Value(name.c_str(), a), value, a);
    }
    std::string line = "before\r\n";
    append_rows_csv_record(line, row, *zone);
    ASSERT_EQ(line, "before\r\n" + csv_record(rows_csv_fields(row, *zone))) << writer_json(row);
  }
}

}  // namespace
}  // namespace roo
