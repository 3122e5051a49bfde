#include "core/json_records.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace roo {
namespace {

using test::MemoryBytes;

struct Framed {
  std::vector<JsonRecord> records;
  JsonArrayReader::Status last;
  std::string sha;
};

Framed frame(const std::string& bytes, size_t chunk = 7) {
  MemoryBytes src(bytes);
  HashingStream in(src, chunk);  // tiny chunks so records straddle buffer refills
  JsonArrayReader reader(in);
  Framed f;
  for (;;) {
    JsonRecord rec;
    f.last = reader.next(rec);
    if (f.last == JsonArrayReader::Status::trailing) continue;
    if (f.last != JsonArrayReader::Status::record) break;
    f.records.push_back(std::move(rec));
  }
  f.sha = in.finish();
  return f;
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

// Seed 000, Bad-line rows: a cut file keeps every record before the cut.
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

}  // namespace
}  // namespace roo
