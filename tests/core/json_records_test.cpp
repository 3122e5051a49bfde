#include "core/json_records.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "test_util.h"

namespace roo {
namespace {

using test::MemoryBytes;

struct Framed {
  std::vector<JsonRecord> records;
  std::vector<std::pair<uint64_t, uint64_t>> junk;  // offset, length of each junk run skipped
  JsonArrayReader::Status last;
  std::string sha;
};

Framed frame(ByteSource& src, size_t chunk = 7) {
  HashingStream in(src, chunk);  // tiny chunks so records straddle buffer refills
  JsonArrayReader reader(in);
  Framed f;
  for (;;) {
    JsonRecord rec;
    f.last = reader.next(rec);
    if (f.last == JsonArrayReader::Status::trailing) continue;
    if (f.last == JsonArrayReader::Status::junk) {
      f.junk.push_back({rec.offset, rec.length});
      continue;
    }
    if (f.last != JsonArrayReader::Status::record) break;
    f.records.push_back(std::move(rec));
  }
  f.sha = in.finish();
  return f;
}

Framed frame(const std::string& bytes, size_t chunk = 7) {
  MemoryBytes src(bytes);
  return frame(src, chunk);
}

// A prefix, then `zeros` zero bytes, made up as they are read: a file extended with `truncate -s`.
class ZeroPadded : public ByteSource {
 public:
  ZeroPadded(std::string prefix, uint64_t zeros) : prefix_(std::move(prefix)), size_(prefix_.size() + zeros) {}
  uint64_t size() const override { return size_; }
  int64_t read_at(uint64_t off, char* buf, size_t len) override {
    if (off >= size_) return 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len, size_ - off));
    for (size_t i = 0; i < n; ++i) buf[i] = off + i < prefix_.size() ? prefix_[off + i] : 0;
    return static_cast<int64_t>(n);
  }

 private:
  std::string prefix_;
  uint64_t size_;
};

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(JsonArrayReader, FramesRecordsWithExactOffsets) {
  const std::string text = R"([{"a":"x,]}"} , {"b":[1,{"c":"\"}"}]},3])";
  Framed f = frame(text);
  ASSERT_EQ(f.last, JsonArrayReader::Status::end);
  ASSERT_EQ(f.records.size(), 3u);
  for (const JsonRecord& r : f.records) EXPECT_EQ(text.substr(r.offset, r.length), r.text);
  EXPECT_EQ(f.records[0].text, R"({"a":"x,]}"})");
  EXPECT_EQ(f.records[1].index, 1);
  EXPECT_EQ(f.records[1].text, R"({"b":[1,{"c":"\"}"}]})");
  EXPECT_EQ(f.records[2].text, "3");
  EXPECT_TRUE(f.records[1].doc.IsObject());
}

TEST(JsonArrayReader, HashCoversWholeFileEvenWhenParsingStopsEarly) {
  // Expected digest computed outside the code under test: printf '[1,2' | sha256sum
  Framed f = frame("[1,2");
  EXPECT_EQ(f.last, JsonArrayReader::Status::cut_off);
  EXPECT_EQ(f.sha, "901cf92ee391a6b0b984a3a0da2062ab999a43cd4c3e53e6bc171423dead3abd");
}

// docs/row-contract.md "Bad-line rows": a cut file keeps every record before the cut.
TEST(JsonArrayReader, CutInsideARecordKeepsEveryRecordBefore) {
  Framed f = frame(R"([{"ts":1},{"ts":2},{"ts":3,"text":"abc)");
  EXPECT_EQ(f.last, JsonArrayReader::Status::cut_off);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[1].doc["ts"].GetInt(), 2);
}

TEST(JsonArrayReader, BadRecordIsSkippedAndTheNextKept) {
  Framed f = frame(R"([{"ts":1},{"ts":tru},{"ts":3}])");
  EXPECT_EQ(f.last, JsonArrayReader::Status::end);
  ASSERT_EQ(f.records.size(), 3u);
  EXPECT_TRUE(f.records[0].parse_error.empty());
  EXPECT_FALSE(f.records[1].parse_error.empty());
  EXPECT_TRUE(f.records[2].parse_error.empty());
  EXPECT_EQ(f.records[2].doc["ts"].GetInt(), 3);
}

TEST(JsonArrayReader, EmptyAndNonArrayInputsAreNamed) {
  EXPECT_EQ(frame("").last, JsonArrayReader::Status::empty);
  EXPECT_EQ(frame("  \n").last, JsonArrayReader::Status::empty);
  EXPECT_EQ(frame("{\"a\":1}").last, JsonArrayReader::Status::not_an_array);
  EXPECT_EQ(frame(std::string(16, '\0')).last, JsonArrayReader::Status::not_an_array);
  EXPECT_EQ(frame("[]").last, JsonArrayReader::Status::end);
}

// Numbers come out exactly as JSON.stringify wrote them: a cost summed in JS, the largest integers, and a number
// that is no double is a parse error, not a guess.
TEST(ParseJson, NumbersAreExact) {
  rapidjson::Document d;
  std::string why;
  const std::string text = R"({"c":0.09809999999999999,"big":18446744073709551615,"neg":-9007199254740993,"e":5e-7})";
  ASSERT_TRUE(parse_json(text.data(), text.size(), d, &why)) << why;
  EXPECT_EQ(d["c"].GetDouble(), 0.09809999999999999);
  EXPECT_NE(d["c"].GetDouble(), 0.0981);
  EXPECT_EQ(d["big"].GetUint64(), 18446744073709551615ull);
  EXPECT_EQ(d["neg"].GetInt64(), -9007199254740993ll);
  EXPECT_EQ(d["e"].GetDouble(), 5e-7);
  EXPECT_EQ(to_json_text(d["c"]), "0.09809999999999999");
  const std::string huge = R"({"x":1e999})";
  EXPECT_FALSE(parse_json(huge.data(), huge.size(), d, &why));
  EXPECT_NE(why.find("at byte"), std::string::npos) << why;  // RapidJSON's "Number too big…" or ours
  const std::string trailing = R"({"x":1} junk)";
  EXPECT_FALSE(parse_json(trailing.data(), trailing.size(), d, &why));
}

// Node's JSON.stringify writes a lone surrogate (a stream cut inside an emoji) as an escape: valid JSON, kept.
TEST(ParseJson, LoneSurrogateEscapesAreReadAsReplacementCharacter) {
  rapidjson::Document d;
  std::string why;
  const std::string text = R"({"t":"cut \ud83d","pair":"\ud83d\ude00","lit":"\\ud83d"})";
  ASSERT_TRUE(parse_json(text.data(), text.size(), d, &why)) << why;
  EXPECT_STREQ(d["t"].GetString(), "cut \xEF\xBF\xBD");
  EXPECT_STREQ(d["pair"].GetString(), "\xF0\x9F\x98\x80");
  EXPECT_STREQ(d["lit"].GetString(), "\\ud83d");  // an escaped backslash, not an escape
}

TEST(JsonArrayReader, RecordsAfterAStrayClosingBracketAreKept) {
  Framed f = frame(R"([{"a":1}] {"b":2},{"c":3}])");
  ASSERT_EQ(f.records.size(), 3u);
  EXPECT_EQ(f.records[2].doc["c"].GetInt(), 3);
  EXPECT_EQ(f.last, JsonArrayReader::Status::end);
}

TEST(JsonArrayReader, HostileNestingIsRefusedNotRecursed) {
  std::string deep = "[" + std::string(100000, '[') + std::string(100000, ']') + ",{\"ok\":1}]";
  Framed f = frame(deep, 4096);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_NE(f.records[0].parse_error.find("nesting deeper"), std::string::npos);
  EXPECT_TRUE(f.records[1].doc.IsObject());
}

// "Bad-line rows": a bad record is one row and every other record is kept. A junk byte where a record should
// start is skipped to the next record: the record after it is kept, and positions stay the array's.
TEST(JsonArrayReader, JunkBeforeARecordIsSkippedAndTheIndexesStayTheArrays) {
  const std::string text = std::string(R"([{"ts":1,"text":"A"},)") + '\0' + R"({"ts":2,"text":"B"},{"ts":3,"text":"C"}])";
  Framed f = frame(text);
  EXPECT_EQ(f.last, JsonArrayReader::Status::end);
  ASSERT_EQ(f.records.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(f.records[i].index, i);
    EXPECT_TRUE(f.records[i].parse_error.empty()) << f.records[i].parse_error;
  }
  EXPECT_STREQ(f.records[1].doc["text"].GetString(), "B");
  EXPECT_STREQ(f.records[2].doc["text"].GetString(), "C");
  ASSERT_EQ(f.junk.size(), 1u);
  EXPECT_EQ(f.junk[0], std::make_pair(uint64_t{text.find('\0')}, uint64_t{1}));
}

TEST(JsonArrayReader, JunkTextBeforeARecordIsOneRunSkipped) {
  Framed f = frame(R"([{"a":1}, garbage here {"b":2}])");
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[1].index, 1);
  EXPECT_EQ(f.records[1].doc["b"].GetInt(), 2);
  ASSERT_EQ(f.junk.size(), 1u);
  EXPECT_EQ(f.junk[0].second, std::string("garbage here ").size());
}

// A record followed by 256 MiB of zeros (a file extended by truncate, or the zeros a file system leaves after a cut
// write): the record is kept, the zeros are one junk run, and none of them is kept in memory.
TEST(JsonArrayReader, ZerosAfterARecordCostNoMemory) {
  const long before = peak_rss_kib();
  ZeroPadded src(R"([{"ts":1,"type":"say","say":"text","text":"A"},)", 1ull << 28);
  Framed f = frame(src, 1 << 20);
  EXPECT_EQ(f.last, JsonArrayReader::Status::cut_off);
  ASSERT_EQ(f.records.size(), 1u);
  EXPECT_STREQ(f.records[0].doc["text"].GetString(), "A");
  ASSERT_EQ(f.junk.size(), 1u);
  EXPECT_EQ(f.junk[0].second, 1ull << 28);
  EXPECT_LT(peak_rss_kib() - before, 64 * 1024) << "peak RSS grew by " << (peak_rss_kib() - before) << " KiB";
}

// Zeros inside a string (a write cut mid-record, the rest of the block zero): the record ends at the first zero, as
// a bad record, and the record that follows the zeros is kept.
TEST(JsonArrayReader, ZerosInsideARecordBreakItOffThere) {
  const std::string text = std::string(R"([{"a":"cut here)") + std::string(5000, '\0') + R"({"b":2}])";
  Framed f = frame(text, 1024);
  EXPECT_EQ(f.last, JsonArrayReader::Status::end);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[0].text, R"({"a":"cut here)");
  EXPECT_NE(f.records[0].parse_error.find("NUL byte at byte 15"), std::string::npos) << f.records[0].parse_error;
  EXPECT_EQ(f.records[1].index, 1);
  EXPECT_EQ(f.records[1].doc["b"].GetInt(), 2);
  ASSERT_EQ(f.junk.size(), 1u);
  EXPECT_EQ(f.junk[0], std::make_pair(uint64_t{15}, uint64_t{5000}));
}

// A scalar that goes on and on (a number followed by junk with no separator) is kept only up to kMaxScalarBytes.
TEST(JsonArrayReader, AScalarIsKeptOnlyUpToItsLimit) {
  Framed f = frame("[1" + std::string(10u << 20, 'x') + R"(,{"b":2}])", 1 << 16);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(f.records[0].text.size(), kMaxScalarBytes);
  EXPECT_EQ(f.records[0].length, (10u << 20) + 1);
  EXPECT_NE(f.records[0].parse_error.find("4096-byte limit"), std::string::npos) << f.records[0].parse_error;
  EXPECT_EQ(f.records[1].doc["b"].GetInt(), 2);
}

// Roo reads its files with JSON.parse, which keeps the last value of a key named twice (in the key's first place);
// RapidJSON keeps both members and FindMember finds the first. The document must say what Roo read.
TEST(ParseJson, ADuplicateKeyKeepsItsLastValueAsJsonParseDoes) {
  const std::string text = R"({"a":1,"b":2,"a":3,"x":[{"k":"first","k":"mid","k":"last"}],"y":{"z":0,"z":{"w":1,"w":2}}})";
  rapidjson::Document d;
  std::string why;
  ASSERT_TRUE(parse_json(text.data(), text.size(), d, &why)) << why;
  EXPECT_EQ(d.MemberCount(), 4u);
  EXPECT_STREQ(d.MemberBegin()->name.GetString(), "a");  // where the key first stood
  EXPECT_EQ(d["a"].GetInt(), 3);
  EXPECT_EQ(d["b"].GetInt(), 2);
  EXPECT_EQ(d["x"][0].MemberCount(), 1u);
  EXPECT_STREQ(d["x"][0]["k"].GetString(), "last");
  EXPECT_EQ(d["y"].MemberCount(), 1u);
  EXPECT_EQ(d["y"]["z"]["w"].GetInt(), 2);
  // The same key in two different objects is no duplicate.
  const std::string apart = R"({"k":1,"o":{"k":2}})";
  ASSERT_TRUE(parse_json(apart.data(), apart.size(), d, &why)) << why;
  EXPECT_EQ(d["k"].GetInt(), 1);
  EXPECT_EQ(d["o"]["k"].GetInt(), 2);
}

// The read size follows what is left of the source: a token is found (and an escaped one is not) in a source far
// smaller than the 1 MiB read, from any offset, and across the 1 MiB boundary of a larger one.
TEST(ContainsJsonToken, FindsAnUnescapedTokenAtAnySourceSize) {
  const std::string small = R"([{"type":"text"},{"type":"tool_use"}])";
  MemoryBytes s(small);
  EXPECT_TRUE(contains_json_token(s, 0, "tool_use"));
  EXPECT_FALSE(contains_json_token(s, small.find("tool_use") + 1, "tool_use"));
  EXPECT_FALSE(contains_json_token(s, small.size() + 5, "tool_use"));
  const std::string escaped = R"({"a":"\"tool_use"})";  // the string "tool_use, no token
  MemoryBytes e(escaped);
  EXPECT_FALSE(contains_json_token(e, 0, "tool_use"));
  std::string big((1u << 20) - 4, ' ');
  big += R"("tool_use")";
  MemoryBytes b(big);
  EXPECT_TRUE(contains_json_token(b, 0, "tool_use"));
}

}  // namespace
}  // namespace roo
