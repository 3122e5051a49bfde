#include "core/row.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "core/row_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <new>
#include <unistd.h>
#include "core/text_util.h"

namespace roo {
namespace {

Row sample(const VolumeInfo& vol, SourceRef& src, const TaskIdentity& id) {
  src.volume = &vol;
  src.file.path = "/home/alice/t/ui_messages.json";
  src.file.inode = 12;
  Row r;
  r.kind = "user_message";
  r.identity = &id;
  r.source = &src;
  r.time_ms = 1760000000123;
  r.time_source = "ui.ts";
  r.text = std::string("bad \xff byte");
  r.position.record_index = 3;
  return r;
}

TEST(Row, JsonLineHasContractKeysInOrderAndValidUtf8) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::string line = row_to_json_line(sample(vol, src, id));
  patch_sha256(line, std::string(64, 'a'));
  rapidjson::Document d;
  d.Parse(line.c_str());
  ASSERT_FALSE(d.HasParseError());
  const char* order[] = {"schema", "row_id", "kind", "time_utc", "time_source", "agent", "surface", "user",
                         "session_id", "parent_session_id", "root_session_id", "project_path", "role", "text", "source"};
  size_t i = 0;
  for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it, ++i) EXPECT_STREQ(it->name.GetString(), order[i]);
  EXPECT_STREQ(d["time_utc"].GetString(), "2025-10-09T08:53:20.123Z");
  EXPECT_STREQ(d["text"].GetString(), "bad \xEF\xBF\xBD byte");  // invalid byte becomes U+FFFD
  EXPECT_EQ(d["source"]["partition_offset"].GetInt(), 1048576);
  EXPECT_EQ(std::string(d["source"]["sha256"].GetString()), std::string(64, 'a'));
  EXPECT_EQ(std::string(d["row_id"].GetString()).size(), 32u);
}

TEST(Row, UnreadableSourceGetsANullDigestNotAnEmptyOne) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::string line = row_to_json_line(sample(vol, src, id));
  patch_sha256(line, "");
  rapidjson::Document d;
  d.Parse(line.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_TRUE(d["source"]["sha256"].IsNull());
}

TEST(Row, RowIdIsStableAndDependsOnPositionAndKind) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  Row a = sample(vol, src, id);
  Row b = sample(vol, src, id);
  EXPECT_EQ(row_id(a), row_id(b));
  b.position.record_index = 4;
  EXPECT_NE(row_id(a), row_id(b));
  b = sample(vol, src, id);
  b.kind = "assistant_message";
  EXPECT_NE(row_id(a), row_id(b));
}

// The id is the first 32 hex digits of the SHA-256 of the key (fields joined by 0x1F, '-' for a missing number);
// the digests were computed with sha256sum from the key bytes.
TEST(Row, RowIdIsTheDigestOfTheLocatorKey) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  // demo.E01 1048576 /home/alice/t/ui_messages.json 12 3 - - user_message
  EXPECT_EQ(row_id(sample(vol, src, id)), "6961a900ce5aaf7a3f25cd8eb2f00b34");
  Row r;  // no source; a part index is appended last: "" - - - note 2
  r.kind = "note";
  r.position.part_index = 2;
  EXPECT_EQ(row_id(r), "0dd45e669eda50509319f7c84c75bece");
}

// The source object of consecutive rows, as patched: what a reader sees.
std::string source_json(const Row& r) {
  size_t sha = 0;
  std::string line = row_to_json_line(r, &sha);
  EXPECT_EQ(line.compare(sha, kShaPlaceholderLength, "\"" + std::string(64, '\x01') + "\""), 0);
  patch_sha256(line, std::string(64, 'a'));
  const size_t start = line.find("\"source\":");
  return line.substr(start, line.find(",\"record_index\"", start) - start);
}

const std::string kSha = "\"sha256\":\"" + std::string(64, 'a') + "\"";

// The source object is serialised once per source file and reused for the rows after it; a row of another source
// must never get the previous one's bytes, even from the same SourceRef object changed in place.
TEST(Row, SourceOfTheNextRowIsItsOwnEvenFromTheSameObject) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  Row r = sample(vol, src, id);
  const std::string head = "\"source\":{\"evidence\":\"demo.E01\",\"partition_offset\":1048576,\"fs_type\":\"ext4\",";
  const std::string flags = "\"name_allocated\":true,\"meta_allocated\":true,\"reallocated\":false,";
  const std::string no_times = "\"mtime\":null,\"atime\":null,\"ctime\":null,\"crtime\":null,";
  EXPECT_EQ(source_json(r), head + "\"path\":\"/home/alice/t/ui_messages.json\",\"inode\":12,\"meta_seq\":null," +
                                "\"attr\":null," + flags + "\"recovery\":\"allocated\",\"size\":null," + no_times + kSha);
  EXPECT_EQ(source_json(r), source_json(r));
  src.file.inode = 13;  // same path, another inode (a deleted file's name reused)
  EXPECT_EQ(source_json(r), head + "\"path\":\"/home/alice/t/ui_messages.json\",\"inode\":13,\"meta_seq\":null," +
                                "\"attr\":null," + flags + "\"recovery\":\"allocated\",\"size\":null," + no_times + kSha);
  src.file.mtime = FsTime{1714039200, 123456700};
  EXPECT_EQ(source_json(r), head + "\"path\":\"/home/alice/t/ui_messages.json\",\"inode\":13,\"meta_seq\":null," +
                                "\"attr\":null," + flags + "\"recovery\":\"allocated\",\"size\":null," +
                                "\"mtime\":\"2024-04-25T10:00:00.123456700Z\",\"atime\":null,\"ctime\":null," +
                                "\"crtime\":null," + kSha);
  src.file.mtime->nanos = 0;  // only the time's fraction changes
  src.file.attr = "128-4";
  src.file.recovery = Recovery::deleted;
  src.file.name_allocated = false;
  EXPECT_EQ(source_json(r), head + "\"path\":\"/home/alice/t/ui_messages.json\",\"inode\":13,\"meta_seq\":null," +
                                "\"attr\":\"128-4\",\"name_allocated\":false,\"meta_allocated\":true," +
                                "\"reallocated\":false,\"recovery\":\"deleted\",\"size\":null," +
                                "\"mtime\":\"2024-04-25T10:00:00Z\",\"atime\":null,\"ctime\":null,\"crtime\":null," + kSha);
  VolumeInfo other{"demo.E01", {}, 2097152, "ext4", 2, {}, {}};  // the same file on another partition
  src.volume = &other;
  EXPECT_NE(source_json(r).find("\"partition_offset\":2097152,"), std::string::npos);
  src.volume = nullptr;  // a folder source without a volume
  EXPECT_TRUE(starts_with(source_json(r), "\"source\":{\"evidence\":null,\"partition_offset\":null,\"fs_type\":null,"));
}

// A SourceRef freed after one file and another made at the same address for the next (what a parser's allocations
// can do): the second gets its own bytes, and the placeholder offset points into the buffer appended to.
TEST(Row, SourceAtAReusedAddressIsSerialisedAfresh) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  alignas(SourceRef) unsigned char storage[sizeof(SourceRef)];
  SourceRef* a = new (storage) SourceRef{};
  Row r = sample(vol, *a, id);
  r.text = "x";
  std::string out = "previous line\n";
  size_t sha = 0;
  append_row_json_line(r, out, &sha);
  EXPECT_NE(out.find("\"path\":\"/home/alice/t/ui_messages.json\",\"inode\":12,"), std::string::npos);
  a->~SourceRef();
  SourceRef* b = new (storage) SourceRef{};
  b->volume = &vol;
  b->file.path = "/home/bob/t/ui_messages.json";
  b->file.inode = 12;
  b->file.size = 7;
  r.source = b;
  const size_t second = out.size();
  append_row_json_line(r, out, &sha);
  EXPECT_GT(sha, second);
  EXPECT_EQ(out.compare(sha, kShaPlaceholderLength, "\"" + std::string(64, '\x01') + "\""), 0);
  EXPECT_EQ(out.compare(sha - 9, 9, "\"sha256\":"), 0);
  EXPECT_NE(out.find("\"path\":\"/home/bob/t/ui_messages.json\",\"inode\":12,", second), std::string::npos);
  EXPECT_NE(out.find("\"size\":7,", second), std::string::npos);
  b->~SourceRef();
}

// Every row's time is formatted by arithmetic, not gmtime_r (which takes glibc's time zone lock per call). The
// expected strings are calendar facts: leap days, the century rules, the proleptic Gregorian year 0, the last second
// the four-digit form can hold, and a time past it, which keeps gmtime_r's general form.
TEST(IsoTime, CalendarEdgesAsGmtimeWritesThem) {
  EXPECT_EQ(iso_from_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_from_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(iso_from_ms(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(iso_from_ms(4107542399000), "2100-02-28T23:59:59.000Z");
  EXPECT_EQ(iso_from_ms(4107542400000), "2100-03-01T00:00:00.000Z");  // 2100 is no leap year
  EXPECT_EQ(iso_from_ms(-2203891200000), "1900-03-01T00:00:00.000Z");
  EXPECT_EQ(iso_from_ms(1772323200000), "2026-03-01T00:00:00.000Z");
  EXPECT_EQ(iso_from_ms(-62167219200000), "0000-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_from_ms(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(iso_from_ms(253402300800000), "10000-01-01T00:00:00.000Z");
  EXPECT_EQ(iso_from_fs_time(FsTime{-62135596801, 5}), "0000-12-31T23:59:59.000000005Z");
}

// docs/row-contract.md, "A time outside JavaScript's Date range is no time": ±8.64e15 ms are the last instants a
// JavaScript Date holds (ECMAScript TimeClip; new Date(8.64e15).toISOString() is +275760-09-13T00:00:00.000Z, and
// new Date(-8.64e15) is -271821-04-20T00:00:00.000Z); one millisecond beyond, the row has no time and keeps the number.
TEST(Row, TimeOutsideJavaScriptDatesIsKeptRawNotFormatted) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  const struct {
    int64_t ms;
    const char* time_utc;  // nullptr: none
  } cases[] = {
      {8640000000000000, "275760-09-13T00:00:00.000Z"},
      {-8640000000000000, "-271821-04-20T00:00:00.000Z"},
      {8640000000000001, nullptr},
      {-8640000000000001, nullptr},
      {9300000000000000, nullptr},
      {-9300000000000000, nullptr},
      {100000000000000000, nullptr},
      {INT64_MAX, nullptr},
      {INT64_MIN, nullptr},
  };
  for (const auto& c : cases) {
    Row r = sample(vol, src, id);
    r.time_ms = c.ms;
    r.set("exit_code", int64_t{1});
    std::string line = row_to_json_line(r);
    patch_sha256(line, std::string(64, 'a'));
    rapidjson::Document d;
    d.Parse(line.c_str());
    ASSERT_FALSE(d.HasParseError()) << line;
    if (c.time_utc) {
      EXPECT_STREQ(d["time_utc"].GetString(), c.time_utc) << c.ms;
      EXPECT_STREQ(d["time_source"].GetString(), "ui.ts");
      EXPECT_FALSE(d.HasMember("raw_time_ms"));
      EXPECT_FALSE(d.HasMember("raw_time_source"));
      continue;
    }
    EXPECT_TRUE(d["time_utc"].IsNull()) << line;
    EXPECT_STREQ(d["time_source"].GetString(), "out_of_range") << line;
    EXPECT_EQ(d["raw_time_ms"].GetInt64(), c.ms) << line;
    EXPECT_STREQ(d["raw_time_source"].GetString(), "ui.ts");
    // After the kind's own fields, before source.
    EXPECT_LT(line.find("\"exit_code\""), line.find("\"raw_time_ms\""));
    EXPECT_LT(line.find("\"raw_time_source\""), line.find("\"source\""));
  }
}

TEST(RowWriter, EverySourceGetsItsOwnDigestPatchedInPlace) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::FILE* out = std::tmpfile();
  RowWriter w(out);
  for (int source = 0; source < 3; ++source) {
    for (int i = 0; i < 1000; ++i) {
      Row r = sample(vol, src, id);
      r.text = std::string(static_cast<size_t>(i % 97), 'x');
      r.position.record_index = i;
      w.emit(r);
    }
    w.end_source(source == 2 ? "" : std::string(64, static_cast<char>('a' + source)));
  }
  EXPECT_TRUE(w.ok());
  std::fflush(out);
  std::rewind(out);
  std::string all;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) all.append(buf, n);
  std::fclose(out);
  EXPECT_EQ(all.find('\x01'), std::string::npos);
  size_t line_no = 0, start = 0;
  for (size_t end; (end = all.find('\n', start)) != std::string::npos; start = end + 1, ++line_no) {
    rapidjson::Document d;
    d.Parse(all.data() + start, end - start);
    ASSERT_FALSE(d.HasParseError()) << line_no;
    const rapidjson::Value& sha = d["source"]["sha256"];
    if (line_no < 1000)
      EXPECT_EQ(std::string(sha.GetString()), std::string(64, 'a'));
    else if (line_no < 2000)
      EXPECT_EQ(std::string(sha.GetString()), std::string(64, 'b'));
    else
      EXPECT_TRUE(sha.IsNull());  // unreadable source: null, never empty
  }
  EXPECT_EQ(line_no, 3000u);
}

// A row whose text or native record is longer than a drain chunk is written a chunk at a time, before or after its
// digest placeholder: the file holds exactly the lines row_to_json_line gives, digests patched in, and the writer
// never held a second copy of the long string (its pending bytes stay near one chunk).
TEST(RowWriter, LongRowsAreWrittenAsTheyAreSerialisedAndPatched) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::vector<Row> rows;
  for (int i = 0; i < 6; ++i) {
    Row r = sample(vol, src, id);
    r.position.record_index = i;
    if (i == 1) r.text = std::string(5 * kRowDrainChunk + 7, 'x') + "\"quoted\"\n";  // escapes in the last chunk
    if (i == 3) r.native = std::string(3 * kRowDrainChunk, '\t');  // after the placeholder; every byte escaped
    if (i == 4) r.text = std::string(kRowDrainChunk - 1, 'y');  // just below: no drain
    rows.push_back(std::move(r));
  }
  std::FILE* out = std::tmpfile();
  RowWriter w(out);
  for (int source = 0; source < 2; ++source) {
    for (const Row& r : rows) w.emit(r);
    w.end_source(std::string(64, static_cast<char>('a' + source)));
  }
  EXPECT_TRUE(w.ok());
  std::fflush(out);
  std::rewind(out);
  std::string all;
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) all.append(buf, n);
  std::fclose(out);
  std::string want;
  for (int source = 0; source < 2; ++source) {
    std::string lines;
    for (const Row& r : rows) lines += row_to_json_line(r);
    patch_sha256(lines, std::string(64, static_cast<char>('a' + source)));
    want += lines;
  }
  EXPECT_EQ(all.size(), want.size());
  EXPECT_TRUE(all == want);
}

TEST(RowWriter, CutUnfinishedRowsKeepsOnlyFinishedSources) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  char path[] = "/tmp/roo-rows-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::FILE* out = fdopen(fd, "w+b");
  RowWriter w(out);
  w.emit(sample(vol, src, id));
  w.end_source(std::string(64, 'a'));  // finished
  w.emit(sample(vol, src, id));
  w.emit(sample(vol, src, id));
  std::fflush(out);  // a worker dies here: two rows with placeholders on disk
  std::fclose(out);
  cut_unfinished_rows(path);
  std::FILE* in = std::fopen(path, "rb");
  std::string all;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) all.append(buf, n);
  std::fclose(in);
  std::remove(path);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1);
  EXPECT_EQ(all.find('\x01'), std::string::npos);
}

}  // namespace
}  // namespace roo
